package evidence

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// JUnit XML, in the shape CI systems read (Jenkins, GitLab, GitHub
// actions that publish test reports): testsuites, one testsuite per result
// set (a runbook on one Kafka version), one testcase per expectation per
// run, and one testcase per run that did not complete, with an error.

// JUnitSuites is the document element.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one result set.
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is a name and a value of a suite.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one expectation in one run, or a run that did not complete.
type JUnitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      string        `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure"`
	Error     *JUnitProblem `xml:"error"`
}

// JUnitProblem is a failure or an error.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit builds the document of the result sets, in order.
func JUnit(sets []*results.Results) JUnitSuites {
	doc := JUnitSuites{Name: "kafkabook"}
	for _, res := range sets {
		// The class names the release and the client as the run's
		// directory does (kafka-4.3.1, kafka-4.3.1-librdkafka-2.15.1), so
		// that a franz-go run keeps the class it had before clients.
		client, version, _ := clientOf(res.Provenance)
		on := res.Provenance.Kafka + " · " + Block{Client: client, ClientVersion: version}.ClientLabel()
		class := res.Runbook.Name + ".kafka-" + res.Provenance.Kafka
		if client != franzGo {
			class += "-" + strings.ReplaceAll(client, "@", "-")
		}
		s := JUnitSuite{
			Name: res.Runbook.Name + " on Kafka " + on,
			Properties: []JUnitProperty{
				{"title", res.Title}, {"kafka", res.Provenance.Kafka}, {"client", client}, {"client_version", version}, {"backend", res.Provenance.Backend},
				{"runbook", res.Runbook.Path}, {"runbook_sha256", res.Runbook.SHA256},
			},
		}
		if !res.Provenance.Start.IsZero() {
			s.Timestamp = res.Provenance.Start.UTC().Format("2006-01-02T15:04:05Z")
		}
		var total float64
		for _, run := range res.Runs {
			d := run.End.Sub(run.Start).Seconds()
			if d > 0 {
				total += d
			}
			for _, x := range run.Expectations {
				file, line := fileLine(x.Pos)
				c := JUnitCase{ClassName: class, Name: fmt.Sprintf("%s (run %d)", x.Expr, run.Number), File: file, Line: line, Time: "0"}
				if !x.Held {
					c.Failure = &JUnitProblem{
						Message: fmt.Sprintf("expect %s: measured %s", x.Expr, x.Actual),
						Type:    "expectation",
						Text:    fmt.Sprintf("%s: expect %s did not hold in run %d: measured %s", x.Pos, x.Expr, run.Number, x.Actual),
					}
					s.Failures++
				}
				s.Cases = append(s.Cases, c)
			}
			if !run.Complete || run.Error != "" {
				msg := run.Error
				if msg == "" {
					msg = "the run did not complete"
				}
				s.Cases = append(s.Cases, JUnitCase{
					ClassName: class, Name: fmt.Sprintf("run %d completes", run.Number), Time: fmt.Sprintf("%.3f", max(d, 0)),
					Error: &JUnitProblem{Message: msg, Type: "incomplete", Text: fmt.Sprintf("run %d of %s on Kafka %s: %s", run.Number, res.Runbook.Name, on, msg)},
				})
				s.Errors++
			}
		}
		if len(res.Runs) == 0 {
			msg := res.Error
			if msg == "" {
				msg = "no run"
			}
			s.Cases = append(s.Cases, JUnitCase{ClassName: class, Name: "runs", Time: "0",
				Error: &JUnitProblem{Message: msg, Type: "incomplete", Text: msg}})
			s.Errors++
		}
		s.Tests = len(s.Cases)
		s.Time = fmt.Sprintf("%.3f", total)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, s)
	}
	return doc
}

// fileLine splits a file:line:col position into file and line.
func fileLine(pos string) (string, string) {
	var parts []string
	rest := pos
	for range 2 {
		i := lastColon(rest)
		if i < 0 {
			break
		}
		parts = append(parts, rest[i+1:])
		rest = rest[:i]
	}
	if len(parts) == 2 {
		return rest, parts[1]
	}
	return pos, ""
}

func lastColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
	}
	return -1
}

// Write writes the document as indented XML with its declaration.
func (d JUnitSuites) Write(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(d); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
