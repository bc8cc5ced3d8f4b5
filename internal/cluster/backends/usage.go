package backends

import "fmt"

// A UsageError is a refusal that is the user's to fix (flags that do not
// fit the backend, a runbook the chosen cluster cannot run) and comes
// before anything ran, so the mains can exit with their usage code for it
// rather than their run-failed code.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usagef is a UsageError with a message of its own.
func usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// usage marks err, when there is one, as the user's.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{err}
}
