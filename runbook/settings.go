package runbook

import (
	"errors"
	"fmt"
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
	for _, r := range releases {
		for _, s := range settings {
			err := kafkaconfig.CheckBroker(r, s.name, s.value)
			if msg, onName := settingError(err, r, kafkaconfig.Broker, s.name); msg != "" {
				p := s.valuePos
				if onName {
					p = s.namePos
				}
				errs = append(errs, &Error{Pos: p, Msg: "broker: " + msg})
			}
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
	for _, r := range c.d.Meta.Kafka {
		err := kafkaconfig.CheckTopic(r, name, val)
		if msg, onName := settingError(err, r, kafkaconfig.Topic, name); msg != "" {
			p := v.at(len(name) + 1)
			if onName {
				p = v.at(0)
			}
			c.errorf(p, "--config: %s", msg)
		}
	}
}

// settingError turns what kafkaconfig said about a setting into a message,
// with a suggestion for a misspelt name, and says whether it is about the
// name rather than the value. An unknown release was reported already.
func settingError(err error, release string, kind kafkaconfig.Kind, name string) (string, bool) {
	switch {
	case err == nil || kafkaconfig.Known(release) != nil:
		return "", false
	case errors.Is(err, kafkaconfig.ErrUnknown):
		return err.Error() + didYouMean(name, kafkaconfig.Names(release, kind)), true
	case errors.Is(err, kafkaconfig.ErrOwned):
		return err.Error(), true
	}
	return err.Error(), false
}
