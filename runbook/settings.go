package runbook

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/kafkaconfig"
)

// Broker settings (broker:) and topic configurations (topic create
// --config) are checked against the catalogue each Kafka release prints of
// itself (internal/kafkaconfig), for every release the runbook runs on:
// the name must exist there, kafkabook must not own it, and the value must
// be one line of its type.

// releaseError says what is wrong with a Kafka release a runbook asks
// for, or "".
func releaseError(v string) string {
	if !validVersion(v) {
		return fmt.Sprintf("bad version %q: want a release like %s", v, DefaultKafka)
	}
	if err := kafkaconfig.Known(v); err != nil {
		return err.Error()
	}
	return ""
}

// checkBroker checks the broker: settings against every release.
func checkBroker(settings []metaSetting, releases []string) ErrorList {
	var errs ErrorList
	for _, s := range settings {
		for _, m := range settingErrors(kafkaconfig.Broker, s.name, s.value, releases) {
			p := s.valuePos
			if m.onName {
				p = s.namePos
			}
			errs = append(errs, &Error{Pos: p, Msg: "broker: " + m.text})
		}
	}
	return errs
}

// checkTopicConfig checks a --config K=V value of topic create against
// every release.
func (c *checker) checkTopicConfig(v value) {
	name, val, ok := strings.Cut(v.text, "=")
	if v.bad || !ok || name == "" {
		return // already reported
	}
	for _, m := range settingErrors(kafkaconfig.Topic, name, val, c.d.Meta.Kafka) {
		p := v.at(len(name) + 1)
		if m.onName {
			p = v.at(0)
		}
		c.errorf(p, "--config: %s", m.text)
	}
}

// settingMsg is one problem with a setting, about its name or its value.
type settingMsg struct {
	text   string
	onName bool
}

// settingErrors checks one setting against every known release. A name
// some releases lack is one message naming them, with a suggestion; the
// same problem on several releases is one message.
func settingErrors(kind kafkaconfig.Kind, name, value string, releases []string) []settingMsg {
	var (
		out     []settingMsg
		seen    = map[string]bool{}
		lacking []string
		known   []string
	)
	for _, r := range releases {
		if kafkaconfig.Known(r) != nil {
			continue // reported with the release
		}
		known = append(known, r)
		err := kafkaconfig.Check(r, kind, name, value)
		switch {
		case err == nil || seen[err.Error()]:
		case errors.Is(err, kafkaconfig.ErrUnknown):
			lacking = append(lacking, r)
		default:
			seen[err.Error()] = true
			out = append(out, settingMsg{err.Error(), errors.Is(err, kafkaconfig.ErrOwned)})
		}
	}
	if len(lacking) > 0 {
		msg := (&kafkaconfig.UnknownError{Name: name, Releases: lacking, Kind: kind}).Error()
		if having := slices.DeleteFunc(known, func(r string) bool { return slices.Contains(lacking, r) }); len(having) == 1 {
			msg += fmt.Sprintf(" (%s has it)", having[0])
		} else if len(having) > 1 {
			msg += fmt.Sprintf(" (%s have it)", strings.Join(having, ", "))
		} else {
			msg += didYouMean(name, kafkaconfig.Names(lacking[0], kind))
		}
		out = append(out, settingMsg{msg, true})
	}
	return out
}
