package runbook

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Front matter is a YAML document between a "---" line at the very top of
// the file and the next "---" (or "...") line. It is parsed here rather than
// by a goldmark extension so that every key and value keeps its file
// position; the loader blanks it out before goldmark sees the file.

// metaKeys are the front matter keys, in the order of the reference.
var metaKeys = []string{"title", "kafka", "nodes", "broker", "repeat", "params", "sweep", "client", "producer", "consumer", "backend", "quorum"}

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

// Front matter limits: what the backends can start and what a run can be
// asked to repeat. MaxNodes is the local backend's limit
// (internal/cluster/local), which the docker backend shares.
const (
	MaxNodes  = 9
	MaxRepeat = 1000
)

// metaSetting is one entry of the broker: map with the positions of its
// name and value, checked once the Kafka releases are final.
type metaSetting struct {
	name, value string
	namePos     Pos
	valuePos    Pos
}

// metaParser decodes the front matter's YAML nodes into a Meta, collecting
// every error with the file position of its node.
type metaParser struct {
	s      *source
	first  int // 0-based file line of YAML line 1
	m      *Meta
	broker []metaSetting
	client []clientSetting // producer: and consumer: entries
	errs   ErrorList
}

func (p *metaParser) at(n *yaml.Node) Pos {
	return Pos{p.s.path, p.first + n.Line, n.Column}
}

func (p *metaParser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, &Error{Pos: p.at(n), Msg: fmt.Sprintf(format, args...)})
}

// parseMeta decodes the front matter between lines open and close into m.
// It returns the broker settings with their positions, for checkBroker,
// and the producer: and consumer: ones, for checkClientSettings.
func parseMeta(s *source, open, close int, m *Meta) ([]metaSetting, []clientSetting, ErrorList) {
	p := &metaParser{s: s, first: open + 1, m: m}
	text := strings.Join(s.lineRange(p.first, close), "\n")
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		return nil, nil, ErrorList{yamlError(s, err, p.first, close)}
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, nil, nil // empty front matter
	}
	doc := root.Content[0]
	if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
		return nil, nil, nil
	}
	if doc.Kind != yaml.MappingNode {
		p.errorf(doc, "front matter must be a mapping of keys (%s)", strings.Join(metaKeys, ", "))
		return nil, nil, p.errs
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if seen[k.Value] {
			p.errorf(k, "front matter key %q given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		p.key(k, v)
	}
	return p.broker, p.client, p.errs
}

// yamlError positions a YAML syntax error on its file line.
func yamlError(s *source, err error, first, close int) *Error {
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
	return &Error{Pos: Pos{s.path, line, 1}, Msg: "front matter: " + msg}
}

// key decodes one front matter key k with value v.
func (p *metaParser) key(k, v *yaml.Node) {
	m := p.m
	switch k.Value {
	case "title":
		if v.Kind != yaml.ScalarNode {
			p.errorf(v, "title must be text")
			return
		}
		m.Title = v.Value
	case "kafka":
		p.kafka(v)
	case "backend":
		if v.Kind != yaml.ScalarNode || !slices.Contains(Backends, v.Value) {
			p.errorf(v, "backend %q: use local, docker, kubernetes or external (external needs --cluster-file)", v.Value)
			return
		}
		m.Backend = v.Value
	case "quorum":
		if v.Kind != yaml.ScalarNode || (v.Value != QuorumStatic && v.Value != QuorumDynamic) {
			p.errorf(v, "quorum %q: use %s (controller.quorum.voters, the default) or %s (KIP-853: voters can be added and removed)", v.Value, QuorumStatic, QuorumDynamic)
			return
		}
		m.Quorum = v.Value
	case "nodes":
		if n, ok := p.count(v, "nodes", MaxNodes, "the most nodes a cluster has"); ok {
			m.Nodes = n
		}
	case "repeat":
		if n, ok := p.count(v, "repeat", MaxRepeat, "the most runs of one runbook"); ok {
			m.Repeat = n
		}
	case "broker":
		var pairs [][2]*yaml.Node
		m.Broker, pairs = scalarMap(v, "broker", p.errorf, func(*yaml.Node) {})
		for _, kv := range pairs {
			p.broker = append(p.broker, metaSetting{name: kv[0].Value, value: kv[1].Value, namePos: p.at(kv[0]), valuePos: p.at(kv[1])})
		}
	case "client":
		p.clients(v)
	case "producer", "consumer":
		props, pairs := scalarMap(v, k.Value, p.errorf, func(*yaml.Node) {})
		for _, kv := range pairs {
			p.client = append(p.client, clientSetting{role: k.Value, name: kv[0].Value, value: kv[1].Value, pos: p.at(kv[0])})
		}
		if k.Value == RoleProducer {
			m.Producer = props
		} else {
			m.Consumer = props
		}
	case "params":
		m.Params, _ = scalarMap(v, "params", p.errorf, func(k *yaml.Node) {
			switch {
			case k.Value == "run":
				p.errorf(k, "params: %q is reserved for the run number ${run}", k.Value)
			case !validParam(k.Value):
				p.errorf(k, "params: bad name %q: use letters, digits, _ . -", k.Value)
			}
		})
	case "sweep":
		p.sweep(v)
	default:
		p.errorf(k, "unknown front matter key %q%s", k.Value, didYouMean(k.Value, metaKeys))
	}
}

// kafka decodes the kafka: key, one release or a list of them.
func (p *metaParser) kafka(v *yaml.Node) {
	p.m.Kafka = nil
	var items []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		items = v.Content
		if len(items) == 0 {
			p.errorf(v, "kafka: the list of versions is empty")
		}
	default:
		p.errorf(v, "kafka must be a version like %s or a list of versions", DefaultKafka)
	}
	for _, it := range items {
		if msg := releaseError(it.Value); it.Kind != yaml.ScalarNode || msg != "" {
			if it.Kind != yaml.ScalarNode {
				msg = fmt.Sprintf("bad version %q: want a release like %s", it.Value, DefaultKafka)
			}
			p.errorf(it, "kafka: %s", msg)
			continue
		}
		p.m.Kafka = append(p.m.Kafka, it.Value)
	}
}

// clients decodes the client: key, one client or a list of them.
func (p *metaParser) clients(v *yaml.Node) {
	p.m.Client = nil
	items := []*yaml.Node{v}
	switch {
	case v.Kind == yaml.SequenceNode && len(v.Content) == 0:
		p.errorf(v, "client: the list of clients is empty")
	case v.Kind == yaml.SequenceNode:
		items = v.Content
	}
	for _, it := range items {
		if it.Kind != yaml.ScalarNode {
			p.errorf(it, "client must be a client like %s or a list of them", Java)
			continue
		}
		if _, _, err := ParseClient(it.Value); err != nil {
			p.errorf(it, "client: %v", err)
			continue
		}
		p.m.Client = append(p.m.Client, it.Value)
	}
}

// count decodes a whole number from 1 to max; why says what max is.
func (p *metaParser) count(v *yaml.Node, key string, max int, why string) (int, bool) {
	n, ok := yamlInt(v)
	switch {
	case !ok && v.Kind == yaml.ScalarNode && wholeNumber(v.Value):
		p.errorf(v, "%s %s is too large: at most %d (%s)", key, v.Value, max, why)
	case !ok || n < 1:
		p.errorf(v, "%s must be a positive number, not %q", key, v.Value)
	case n > max:
		p.errorf(v, "%s %d is too large: at most %d (%s)", key, n, max, why)
	default:
		return n, true
	}
	return 0, false
}

// wholeNumber reports whether s is written as digits only.
func wholeNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func yamlInt(v *yaml.Node) (int, bool) {
	if v.Kind != yaml.ScalarNode {
		return 0, false
	}
	n, err := strconv.Atoi(v.Value)
	return n, err == nil
}

// scalarMap decodes a mapping of scalars, keeping values as written.
// It also returns the name and value nodes of each entry, in file order.
func scalarMap(v *yaml.Node, what string, errorf func(*yaml.Node, string, ...any), checkKey func(*yaml.Node)) (map[string]string, [][2]*yaml.Node) {
	out := map[string]string{}
	var pairs [][2]*yaml.Node
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return out, nil
	}
	if v.Kind != yaml.MappingNode {
		errorf(v, "%s must be a mapping of names to values", what)
		return out, nil
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
		pairs = append(pairs, [2]*yaml.Node{k, val})
	}
	return out, pairs
}

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?([-.][0-9A-Za-z.-]+)?$`)

func validVersion(v string) bool { return versionRE.MatchString(v) }
