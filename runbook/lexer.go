package runbook

import "strings"

// A step line is lexed into tokens separated by blanks. A token may contain
// "double quoted" parts (backslash escapes \" \\ and \$, ${} expanded) and
// 'single quoted' parts (taken literally), and ${name} references that are
// expanded per run. '#' at the start of a token starts a comment; an
// unquoted '&' that ends the line marks the step as a background step.

// piece is a literal run of a token, or a ${name} reference.
type piece struct {
	lit  string
	cols []int  // file column of each byte of lit
	ref  string // parameter name of a ${ref}
	col  int    // column of the '$' of a ref
}

// token is one blank-separated word of a step line, as written.
type token struct {
	pos    Pos
	raw    string
	quoted bool
	bad    bool // holds a malformed ${...}: its value is not checked
	pieces []piece
}

// plain reports whether t is written without quotes or references, so its
// raw text is its value (directive names and flag names must be plain).
func (t token) plain() bool {
	return !t.quoted && len(t.pieces) == 1 && t.pieces[0].ref == ""
}

// expand returns the token's text with references replaced by lookup, and
// the file column of every byte of it plus one past the end. A reference
// that lookup does not know expands to nothing; the caller reports it.
func (t token) expand(lookup func(string) (string, bool)) (string, []int) {
	var b strings.Builder
	var cols []int
	end := t.pos.Col
	for _, p := range t.pieces {
		if p.ref == "" {
			b.WriteString(p.lit)
			cols = append(cols, p.cols...)
			if n := len(p.cols); n > 0 {
				end = p.cols[n-1] + 1
			}
			continue
		}
		v, _ := lookup(p.ref)
		b.WriteString(v)
		for range len(v) {
			cols = append(cols, p.col)
		}
		end = p.col + len(p.ref) + 3
	}
	return b.String(), append(cols, end)
}

// lexed is the result of lexing one step line.
type lexed struct {
	toks       []token
	background bool
	bgCol      int
	start, end int // byte range of the step text in the line
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// restIsEmpty reports whether line[i:] holds only blanks or a comment.
func restIsEmpty(line string, i int) bool {
	rest := strings.TrimLeft(line[i:], " \t\r\v\f")
	return rest == "" || rest[0] == '#'
}

// validParam reports whether name may be used as ${name}.
func validParam(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range []byte(name) {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// lexLine splits one file line (without its newline) into tokens. Columns
// are 1-based byte offsets into line.
func lexLine(file string, lineNo int, line string) (lexed, ErrorList) {
	var (
		out  lexed
		errs ErrorList
	)
	at := func(i int) Pos { return Pos{file, lineNo, i + 1} }
	out.start = -1
	i := 0
	for i < len(line) {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i >= len(line) || line[i] == '#' {
			break
		}
		if line[i] == '&' && restIsEmpty(line, i+1) {
			out.background, out.bgCol = true, i+1
			out.end = i + 1
			break
		}
		if out.start < 0 {
			out.start = i
		}
		tok := token{pos: at(i)}
		start := i
		var (
			cur piece
			buf []byte
		)
		flush := func() {
			if len(cur.cols) > 0 {
				cur.lit = string(buf)
				tok.pieces = append(tok.pieces, cur)
			}
			cur, buf = piece{}, nil
		}
		// addLit adds byte line[i] to the current literal.
		addLit := func(i int) {
			buf = append(buf, line[i])
			cur.cols = append(cur.cols, i+1)
		}
		// ref lexes ${name} at i and returns the index after it.
		ref := func(i int) int {
			j := strings.IndexByte(line[i+2:], '}')
			if j < 0 {
				errs = append(errs, &Error{Pos: at(i), Msg: `unclosed "${": missing "}"`})
				tok.bad = true
				return len(line)
			}
			name := line[i+2 : i+2+j]
			if !validParam(name) {
				errs = append(errs, &Error{Pos: at(i), Msg: `bad parameter reference "${` + name + `}": want ${name} with letters, digits, _ . -`})
				tok.bad = true
			} else {
				flush()
				tok.pieces = append(tok.pieces, piece{ref: name, col: i + 1})
			}
			return i + 3 + j
		}
	word:
		for i < len(line) && !isBlank(line[i]) {
			c := line[i]
			switch {
			case c == '"':
				tok.quoted = true
				q := i
				i++
				for i < len(line) && line[i] != '"' {
					switch {
					case line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`, line[i+1]) >= 0:
						addLit(i + 1)
						i += 2
					case line[i] == '$' && i+1 < len(line) && line[i+1] == '{':
						i = ref(i)
					default:
						addLit(i)
						i++
					}
				}
				if i >= len(line) {
					errs = append(errs, &Error{Pos: at(q), Msg: "unclosed double quote"})
					break word
				}
				i++
			case c == '\'':
				tok.quoted = true
				q := i
				i++
				for i < len(line) && line[i] != '\'' {
					addLit(i)
					i++
				}
				if i >= len(line) {
					errs = append(errs, &Error{Pos: at(q), Msg: "unclosed single quote"})
					break word
				}
				i++
			case c == '$' && i+1 < len(line) && line[i+1] == '{':
				i = ref(i)
			case c == '&' && restIsEmpty(line, i+1):
				break word
			default:
				addLit(i)
				i++
			}
		}
		flush()
		if i > len(line) {
			i = len(line)
		}
		tok.raw = line[start:i]
		if len(tok.pieces) == 0 {
			// "" or '' is an empty argument; keep it as one.
			tok.pieces = []piece{{}}
		}
		out.toks = append(out.toks, tok)
		out.end = i
	}
	if out.start < 0 {
		out.start = out.end
		if out.background {
			out.start = out.bgCol - 1
		}
	}
	return out, errs
}
