package evidence

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

// junitFixture is the acks evidence on two Kafka versions: on 4.0.0 the
// acks=all expectation failed in run 2 and run 4 did not complete.
func junitFixture(t *testing.T) []*results.Results {
	a, _ := load(t, fixture)
	b, _ := load(t, fixture)
	b.Provenance.Kafka = "4.0.0"
	for i, x := range b.Runs[1].Expectations {
		if x.Expr == "lost(acksall) == 0" {
			b.Runs[1].Expectations[i].Held = false
			b.Runs[1].Expectations[i].Actual = "3"
		}
	}
	b.Runs[3].Complete = false
	b.Runs[3].Error = "wait leader acksall: no leader in k2,k3 after 60s"
	b.Runs[3].Expectations = b.Runs[3].Expectations[:1]
	return []*results.Results{a, b}
}

func TestJUnitGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := JUnit(junitFixture(t)).Write(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "junit.xml", buf.Bytes())
}

// What CI systems read, parsed independently of the writer's types.
type xmlSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			ClassName string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitParses(t *testing.T) {
	var buf bytes.Buffer
	if err := JUnit(junitFixture(t)).Write(&buf); err != nil {
		t.Fatal(err)
	}
	var doc xmlSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("the JUnit file does not parse: %v", err)
	}
	// 4.3.1: 4 runs x 3 expectations; 4.0.0: 3 x 3 + 1 + the incomplete run.
	if doc.Tests != 12+11 || doc.Failures != 1 || doc.Errors != 1 || len(doc.Suites) != 2 {
		t.Fatalf("testsuites tests=%d failures=%d errors=%d suites=%d, want 23, 1, 1, 2", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites))
	}
	tests, failures, errs := 0, 0, 0
	for _, s := range doc.Suites {
		if len(s.Cases) != s.Tests {
			t.Errorf("suite %s: tests=%d but %d testcases", s.Name, s.Tests, len(s.Cases))
		}
		for _, c := range s.Cases {
			tests++
			if c.Failure != nil {
				failures++
				if c.ClassName != "producer-acks.kafka-4.0.0" || c.Name != "lost(acksall) == 0 (run 2)" {
					t.Errorf("failure in %s / %s", c.ClassName, c.Name)
				}
				if !strings.Contains(c.Failure.Text, "examples/producer-acks.md:60:1") || !strings.Contains(c.Failure.Message, "measured 3") {
					t.Errorf("failure lacks the step's position or the measured value: %+v", c.Failure)
				}
			}
			if c.Error != nil {
				errs++
				if !strings.Contains(c.Error.Message, "no leader") {
					t.Errorf("error lacks the run's error: %+v", c.Error)
				}
			}
		}
	}
	if tests != doc.Tests || failures != doc.Failures || errs != doc.Errors {
		t.Errorf("counted %d/%d/%d testcases/failures/errors, the document says %d/%d/%d", tests, failures, errs, doc.Tests, doc.Failures, doc.Errors)
	}
}

// TestJUnitClient: a run through librdkafka is a suite and a class of its
// own, named like its directory, with the client's exact version.
func TestJUnitClient(t *testing.T) {
	a, _ := load(t, fixture)
	b, _ := load(t, fixture)
	var buf bytes.Buffer
	if err := JUnit([]*results.Results{a, withLibrdkafka(b)}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	var doc xmlSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 2 {
		t.Fatalf("%d suites, want 2", len(doc.Suites))
	}
	for i, want := range []struct{ suite, class string }{
		{"producer-acks on Kafka 4.3.1 · franz-go v1.22.3", "producer-acks.kafka-4.3.1"},
		{"producer-acks on Kafka 4.3.1 · librdkafka@2.15.1 (confluent-kafka 2.15.1, librdkafka 2.15.1)", "producer-acks.kafka-4.3.1-librdkafka-2.15.1"},
	} {
		s := doc.Suites[i]
		if s.Name != want.suite || len(s.Cases) == 0 || s.Cases[0].ClassName != want.class {
			t.Errorf("suite %d: %q, class %q; want %q, %q", i, s.Name, s.Cases[0].ClassName, want.suite, want.class)
		}
	}
	if !strings.Contains(buf.String(), `<property name="client_version" value="confluent-kafka 2.15.1, librdkafka 2.15.1">`) {
		t.Errorf("the librdkafka suite lacks the client's version:\n%s", buf.String())
	}
}
