package kafkaconfig

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckBroker checks that a runbook may set the broker setting name to
// value on release: the release has it, kafkabook does not own it, and the
// value is one line of the setting's type within its range.
func CheckBroker(release, name, value string) error { return Check(release, Broker, name, value) }

// CheckTopic is CheckBroker for a topic configuration (topic create --config).
func CheckTopic(release, name, value string) error { return Check(release, Topic, name, value) }

// UnknownError is the error for a name the catalogues of some releases
// do not hold; it matches ErrUnknown.
type UnknownError struct {
	Name     string
	Releases []string // the releases that lack it
	Kind     Kind
}

func (e *UnknownError) Error() string {
	verb := "has"
	if len(e.Releases) > 1 {
		verb = "have"
	}
	return fmt.Sprintf("unknown setting %q: Kafka %s %s no %s setting of that name", e.Name, strings.Join(e.Releases, ", "), verb, e.Kind)
}

// Is makes errors.Is(err, ErrUnknown) hold.
func (e *UnknownError) Is(target error) bool { return target == ErrUnknown }

// Check is CheckBroker or CheckTopic, by kind.
func Check(release string, kind Kind, name, value string) error {
	if err := Known(release); err != nil {
		return err
	}
	s, ok := Lookup(release, kind, name)
	if !ok {
		return &UnknownError{Name: name, Releases: []string{release}, Kind: kind}
	}
	if why := Owned(s); why != "" {
		return fmt.Errorf("%s %s: %w", name, why, ErrOwned)
	}
	if msg := badText(value); msg != "" {
		return fmt.Errorf("%s: the value %s", name, msg)
	}
	if msg := badValue(s, strings.TrimSpace(value)); msg != "" {
		return fmt.Errorf("%s=%s: %s", name, value, msg)
	}
	return nil
}

// badText says what in value cannot go into server.properties or a
// topic's configuration as it is, or "".
func badText(value string) string {
	if !utf8.ValidString(value) {
		return "is not valid UTF-8"
	}
	for _, r := range value {
		switch {
		case r == '\\':
			return `holds a backslash, which server.properties reads as an escape`
		case unicode.IsControl(r):
			return fmt.Sprintf("holds the control character %U: a setting is one line of text", r)
		}
	}
	return ""
}

// badValue checks v against the setting's type and, for numbers, the range
// Kafka's validator prints.
func badValue(s Setting, v string) string {
	var n float64
	switch s.Type {
	case "INT", "SHORT", "LONG":
		bits := map[string]int{"SHORT": 16, "INT": 32, "LONG": 64}[s.Type]
		i, err := strconv.ParseInt(v, 10, bits)
		if err != nil {
			return fmt.Sprintf("want a whole number (%s, %d bits)", s.Type, bits)
		}
		n = float64(i)
	case "DOUBLE":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "want a number (DOUBLE)"
		}
		n = f
	case "BOOLEAN":
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return "want true or false"
		}
		return ""
	default:
		return ""
	}
	if lo, hi, ok := parseRange(s.Valid); ok && (n < lo || n > hi) {
		return "want a value in " + s.Valid
	}
	return ""
}

var rangeRE = regexp.MustCompile(`^\[(?:([-+.0-9eE]+),)?\.\.\.(?:,([-+.0-9eE]+))?\]$`)

// parseRange reads Kafka's ConfigDef.Range as it prints itself: "[1,...]",
// "[0,...,1]" or "[...,5]"; any other validator ("[1,...,9] or -1") is
// left to Kafka.
func parseRange(valid string) (lo, hi float64, ok bool) {
	m := rangeRE.FindStringSubmatch(valid)
	if m == nil {
		return 0, 0, false
	}
	lo, hi = math.Inf(-1), math.Inf(1)
	var err1, err2 error
	if m[1] != "" {
		lo, err1 = strconv.ParseFloat(m[1], 64)
	}
	if m[2] != "" {
		hi, err2 = strconv.ParseFloat(m[2], 64)
	}
	return lo, hi, err1 == nil && err2 == nil
}
