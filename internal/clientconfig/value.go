package clientconfig

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkValue checks value against p's type in client's catalogue: one line
// of text always; a number, boolean or one of a listed set of words where
// the catalogue says so. Strings, lists, classes and passwords are text.
func checkValue(client string, p Property, value string) error {
	if !utf8.ValidString(value) {
		return fmt.Errorf("%s: the value is not valid UTF-8", p.Name)
	}
	if i := strings.IndexFunc(value, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s: the value holds the control character %U: a property is one line of text", p.Name, []rune(value[i:])[0])
	}
	v := strings.TrimSpace(value)
	var msg string
	if client == Librdkafka {
		msg = rdkafkaValue(p, v)
	} else {
		msg = javaValue(p, v)
	}
	if msg != "" {
		return fmt.Errorf("%s=%s: %s", p.Name, value, msg)
	}
	return nil
}

// javaRange matches the Range validator as ConfigDef prints it:
// [1,...], [...,5] or [0,...,5].
var javaRange = regexp.MustCompile(`^\[(-?[0-9.E]+)?,\.\.\.(?:,(-?[0-9.E]+))?\]$`)

// word is a plain token of a validator's list of allowed values; a list
// holding anything else (auto.offset.reset's by_duration:PnDTnHnMn.nS) is a
// pattern, not a closed set, and is not enforced.
var word = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// javaValue checks v against a kafka-clients ConfigDef type and validator.
func javaValue(p Property, v string) string {
	bits := map[string]int{"SHORT": 16, "INT": 32, "LONG": 64}[p.Type]
	switch {
	case bits > 0:
		n, err := strconv.ParseInt(v, 10, bits)
		if err != nil {
			return fmt.Sprintf("want a whole number (%s)", p.Type)
		}
		return inRange(float64(n), p.Valid)
	case p.Type == "DOUBLE":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) {
			return "want a number (DOUBLE)"
		}
		return inRange(f, p.Valid)
	case p.Type == "BOOLEAN":
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return "want true or false"
		}
	case p.Type == "STRING":
		fold := strings.HasPrefix(p.Valid, "(case insensitive) ")
		return oneOf(v, strings.TrimPrefix(p.Valid, "(case insensitive) "), ", ", fold)
	}
	return ""
}

// inRange checks n against a Range validator; other validators pass.
func inRange(n float64, valid string) string {
	m := javaRange.FindStringSubmatch(valid)
	if m == nil {
		return ""
	}
	if lo, err := strconv.ParseFloat(m[1], 64); err == nil && n < lo {
		return "want at least " + m[1]
	}
	if hi, err := strconv.ParseFloat(m[2], 64); err == nil && n > hi {
		return "want at most " + m[2]
	}
	return ""
}

// oneOf checks v against a closed list "[a, b, c]" (java) or "a, b, c"
// (librdkafka); a validator that is not such a list passes.
func oneOf(v, list, sep string, fold bool) string {
	list = strings.TrimSuffix(strings.TrimPrefix(list, "["), "]")
	if list == "" {
		return ""
	}
	allowed := strings.Split(list, sep)
	for _, a := range allowed {
		if !word.MatchString(a) {
			return ""
		}
	}
	if slices.ContainsFunc(allowed, func(a string) bool { return a == v || (fold && strings.EqualFold(a, v)) }) {
		return ""
	}
	return "want one of " + strings.Join(allowed, ", ")
}

// rdkafkaRange matches librdkafka's numeric range column: "0 .. 1000".
var rdkafkaRange = regexp.MustCompile(`^(-?[0-9.e+]+) \.\. (-?[0-9.e+]+)$`)

// rdkafkaWords are the words librdkafka takes for an integer property, as
// rd_kafka_conf_set answered when every integer property of 2.15.1 and
// 2.16.1 was tried with a word: only acks and its old name take "all" (-1).
var rdkafkaWords = map[string]string{"acks": "all", "request.required.acks": "all"}

// rdkafkaValue checks v against a librdkafka property's type and range.
func rdkafkaValue(p Property, v string) string {
	switch p.Type {
	case "integer", "float":
		if v == rdkafkaWords[p.Name] {
			return ""
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || (p.Type == "integer" && f != math.Trunc(f)) {
			return "want a number (" + p.Type + ")"
		}
		if m := rdkafkaRange.FindStringSubmatch(p.Valid); m != nil {
			lo, _ := strconv.ParseFloat(m[1], 64)
			hi, _ := strconv.ParseFloat(m[2], 64)
			if f < lo || f > hi {
				return fmt.Sprintf("want %s to %s", m[1], m[2])
			}
		}
	case "boolean":
		if !slices.Contains([]string{"true", "false", "t", "f", "1", "0"}, strings.ToLower(v)) {
			return "want true or false"
		}
	case "enum value":
		return oneOf(v, p.Valid, ", ", true)
	case "CSV flags":
		for _, f := range strings.Split(v, ",") {
			if msg := oneOf(strings.TrimSpace(f), p.Valid, ", ", false); msg != "" {
				return "each of the comma-separated flags must be one of " + p.Valid
			}
		}
	case "see dedicated API":
		return "this property is set through the client's API (a callback or pointer), not as a text value"
	}
	return ""
}
