package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// A config claim states a setting of the clients under test as their
// configuration in force recorded it (provenance.clients), in every cited
// directory:
//
//	config(session.timeout.ms)=6s          every client that has the setting
//	config(java: request.timeout.ms)=30s   the Java client's entries only
//	config(librdkafka: retries)=2147483647
//
// A setting whose name ends in .ms is compared as a duration, written
// with its unit; any other as the text recorded. Entries without the
// setting do not count, but at least one must have it.

var configRe = regexp.MustCompile(`^config\(\s*(?:([a-z-]+)\s*:\s*)?([A-Za-z0-9_.]+)\s*\)$`)

// parseConfig reads a config claim's two sides into c.
func parseConfig(c *claim, lhs, rhs string) error {
	g := configRe.FindStringSubmatch(lhs)
	if g == nil {
		return fmt.Errorf("cannot read %q: write config(session.timeout.ms)=6s or config(java: acks)=all", lhs)
	}
	if c.Op != "==" || c.Scope != "" {
		return fmt.Errorf("a setting is stated with = and no scope")
	}
	c.Kind, c.Node, c.Line = "config", g[1], g[2]
	if strings.HasSuffix(c.Line, ".ms") {
		n, tol, err := parseNum(rhs, true)
		if err != nil {
			return err
		}
		c.Want, c.Tol = []int64{n}, []int64{tol}
	}
	c.Set = []string{rhs}
	return nil
}

// checkConfig compares the setting in force with the claim in every cited
// directory's clients.
func (c claim) checkConfig(l *loader, dirs []string) (string, bool, error) {
	var seen []string
	ok := true
	err := l.eachProvenance(dirs, func(d string, p results.Provenance) error {
		for _, ci := range p.Clients {
			v, has := ci.Config[c.Line]
			if !has || (c.Node != "" && ci.Client != c.Node) {
				continue
			}
			seen = append(seen, ci.Client+" "+v)
			if c.Want != nil {
				ms, err := strconv.ParseInt(v, 10, 64)
				ok = ok && err == nil && near(ms*int64(time.Millisecond), c.Want[0], c.Tol[0])
			} else {
				ok = ok && v == c.Set[0]
			}
		}
		return nil
	})
	if err != nil {
		return "", false, err
	}
	if len(seen) == 0 {
		return "", false, fmt.Errorf("%s: no cited run's clients record %s", c.Text, c.Line)
	}
	return compact(seen), ok, nil
}

// A feature claim states a finalized feature level of the cluster the
// cited runs met (provenance.features; an absent feature is at level 0,
// as Kafka reads it), in every cited directory, which must have recorded
// the features:
//
//	feature(eligible.leader.replicas.version)=1

var featureRe = regexp.MustCompile(`^feature\(\s*([a-z.]+)\s*\)$`)

// parseFeature reads a feature claim's two sides into c.
func parseFeature(c *claim, lhs, rhs string) error {
	g := featureRe.FindStringSubmatch(lhs)
	if g == nil || c.Op != "==" || c.Scope != "" || !isInt(rhs) {
		return fmt.Errorf("write a feature level as feature(eligible.leader.replicas.version)=1")
	}
	n, _ := strconv.ParseInt(rhs, 10, 64)
	c.Kind, c.Line, c.Want = "feature", g[1], []int64{n}
	return nil
}

// checkFeature compares the finalized level with the claim in every cited
// directory.
func (c claim) checkFeature(l *loader, dirs []string) (string, bool, error) {
	var seen []string
	ok := true
	err := l.eachProvenance(dirs, func(d string, p results.Provenance) error {
		if p.Features == nil {
			return fmt.Errorf("%s: %s recorded no finalized features", c.Text, d)
		}
		v := int64(p.Features[c.Line])
		seen = append(seen, strconv.FormatInt(v, 10))
		ok = ok && v == c.Want[0]
		return nil
	})
	return compact(seen), ok, err
}

// eachProvenance calls f with the provenance of every cited directory,
// in order, until f fails.
func (l *loader) eachProvenance(dirs []string, f func(dir string, p results.Provenance) error) error {
	for _, d := range dirs {
		r, err := l.load(d)
		if err != nil {
			return err
		}
		if err := f(d, r.Provenance); err != nil {
			return err
		}
	}
	return nil
}
