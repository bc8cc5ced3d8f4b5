package runbook

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Front matter is a YAML document between a "---" line at the very top of
// the file and the next "---" (or "...") line. It is parsed here rather than
// by a goldmark extension so that every key and value keeps its file
// position; the loader blanks it out before goldmark sees the file.

// metaKeys are the front matter keys, in the order of the reference.
var metaKeys = []string{"title", "kafka", "nodes", "broker", "repeat", "params", "backend"}

// frontMatter locates the front matter. It returns the 0-based line
// indexes of the opening and closing delimiter lines, or ok false when the
// file has none. An opening line without a closing one is an error.
func frontMatter(s *source) (open, close int, ok bool, err *Error) {
	if s.lines() == 0 || strings.TrimRight(s.line(0), " \t\r") != "---" {
		return 0, 0, false, nil
	}
	for i := 1; i < s.lines(); i++ {
		switch strings.TrimRight(s.line(i), " \t\r") {
		case "---", "...":
			return 0, i, true, nil
		}
	}
	return 0, 0, false, &Error{Pos: s.pos(0, 0), Msg: `front matter is not closed: add a "---" line after it`}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseMeta decodes the front matter between lines open and close into m.
func parseMeta(s *source, open, close int, m *Meta) ErrorList {
	var errs ErrorList
	first := open + 1 // 0-based file line of YAML line 1
	at := func(n *yaml.Node) Pos {
		return Pos{s.path, first + n.Line, n.Column}
	}
	errorf := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, &Error{Pos: at(n), Msg: fmt.Sprintf(format, args...)})
	}
	text := strings.Join(s.lineRange(first, close), "\n")
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := first + 1
		if sm := yamlLine.FindStringSubmatch(err.Error()); sm != nil {
			n, _ := strconv.Atoi(sm[1])
			msg = sm[2]
			// yaml.v3 counts lines from 1 for scanner errors but from 0
			// for parser errors, which all start like this.
			if strings.HasPrefix(msg, "did not find expected") {
				n++
			}
			line = min(first+n, close+1)
		}
		return ErrorList{{Pos: Pos{s.path, line, 1}, Msg: "front matter: " + msg}}
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil // empty front matter
	}
	doc := root.Content[0]
	if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
		return nil
	}
	if doc.Kind != yaml.MappingNode {
		errorf(doc, "front matter must be a mapping of keys (%s)", strings.Join(metaKeys, ", "))
		return errs
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if seen[k.Value] {
			errorf(k, "front matter key %q given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "title":
			if v.Kind != yaml.ScalarNode {
				errorf(v, "title must be text")
				continue
			}
			m.Title = v.Value
		case "kafka":
			m.Kafka = nil
			var items []*yaml.Node
			switch v.Kind {
			case yaml.ScalarNode:
				items = []*yaml.Node{v}
			case yaml.SequenceNode:
				items = v.Content
				if len(items) == 0 {
					errorf(v, "kafka: the list of versions is empty")
				}
			default:
				errorf(v, "kafka must be a version like %s or a list of versions", DefaultKafka)
			}
			for _, it := range items {
				if it.Kind != yaml.ScalarNode || !validVersion(it.Value) {
					errorf(it, "kafka: bad version %q: want a release like %s", it.Value, DefaultKafka)
					continue
				}
				m.Kafka = append(m.Kafka, it.Value)
			}
		case "backend":
			if v.Kind != yaml.ScalarNode || v.Value != "local" && v.Value != "docker" {
				errorf(v, "backend %q: use local or docker", v.Value)
				continue
			}
			m.Backend = v.Value
		case "nodes":
			if n, ok := yamlInt(v); !ok || n < 1 {
				errorf(v, "nodes must be a positive number, not %q", v.Value)
			} else {
				m.Nodes = n
			}
		case "repeat":
			if n, ok := yamlInt(v); !ok || n < 1 {
				errorf(v, "repeat must be a positive number, not %q", v.Value)
			} else {
				m.Repeat = n
			}
		case "broker":
			m.Broker = scalarMap(v, "broker", errorf, func(*yaml.Node) {})
		case "params":
			m.Params = scalarMap(v, "params", errorf, func(k *yaml.Node) {
				switch {
				case k.Value == "run":
					errorf(k, "params: %q is reserved for the run number ${run}", k.Value)
				case !validParam(k.Value):
					errorf(k, "params: bad name %q: use letters, digits, _ . -", k.Value)
				}
			})
		default:
			errorf(k, "unknown front matter key %q%s", k.Value, didYouMean(k.Value, metaKeys))
		}
	}
	return errs
}

func yamlInt(v *yaml.Node) (int, bool) {
	if v.Kind != yaml.ScalarNode {
		return 0, false
	}
	n, err := strconv.Atoi(v.Value)
	return n, err == nil
}

// scalarMap decodes a mapping of scalars, keeping values as written.
func scalarMap(v *yaml.Node, what string, errorf func(*yaml.Node, string, ...any), checkKey func(*yaml.Node)) map[string]string {
	out := map[string]string{}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return out
	}
	if v.Kind != yaml.MappingNode {
		errorf(v, "%s must be a mapping of names to values", what)
		return out
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			errorf(k, "%s: names must be plain text", what)
			continue
		}
		if _, dup := out[k.Value]; dup {
			errorf(k, "%s: %q given twice", what, k.Value)
			continue
		}
		checkKey(k)
		if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
			errorf(val, "%s: %s needs a single value", what, k.Value)
			continue
		}
		out[k.Value] = val.Value
	}
	return out
}

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?([-.][0-9A-Za-z.-]+)?$`)

func validVersion(v string) bool { return versionRE.MatchString(v) }
