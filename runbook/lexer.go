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
	lx := &lineLexer{file: file, lineNo: lineNo, line: line}
	lx.out.start = -1
	i := 0
	for i < len(line) {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i >= len(line) || line[i] == '#' {
			break
		}
		if line[i] == '&' && restIsEmpty(line, i+1) {
			lx.out.background, lx.out.bgCol = true, i+1
			lx.out.end = i + 1
			break
		}
		if lx.out.start < 0 {
			lx.out.start = i
		}
		i = lx.word(i)
		lx.out.end = i
	}
	if lx.out.start < 0 {
		lx.out.start = lx.out.end
		if lx.out.background {
			lx.out.start = lx.out.bgCol - 1
		}
	}
	return lx.out, lx.errs
}

// lineLexer holds the state of lexing one line: what is lexed so far and
// the token being lexed.
type lineLexer struct {
	file   string
	lineNo int
	line   string
	out    lexed
	errs   ErrorList

	tok token  // the token being lexed
	cur piece  // its literal run being lexed
	buf []byte // the bytes of cur
}

func (lx *lineLexer) at(i int) Pos { return Pos{lx.file, lx.lineNo, i + 1} }

func (lx *lineLexer) errorAt(i int, msg string) {
	lx.errs = append(lx.errs, &Error{Pos: lx.at(i), Msg: msg})
}

// flush ends the current literal run of the token.
func (lx *lineLexer) flush() {
	if len(lx.cur.cols) > 0 {
		lx.cur.lit = string(lx.buf)
		lx.tok.pieces = append(lx.tok.pieces, lx.cur)
	}
	lx.cur, lx.buf = piece{}, nil
}

// addLit adds byte line[i] to the current literal.
func (lx *lineLexer) addLit(i int) {
	lx.buf = append(lx.buf, lx.line[i])
	lx.cur.cols = append(lx.cur.cols, i+1)
}

// word lexes the token starting at i, adds it to the output and returns
// the index after it.
func (lx *lineLexer) word(i int) int {
	line := lx.line
	lx.tok = token{pos: lx.at(i)}
	start := i
	ok := true
	for ok && i < len(line) && !isBlank(line[i]) {
		c := line[i]
		switch {
		case c == '"' || c == '\'':
			i, ok = lx.quoted(i)
		case c == '$' && i+1 < len(line) && line[i+1] == '{':
			i = lx.ref(i)
		case c == '&' && restIsEmpty(line, i+1):
			ok = false
		default:
			lx.addLit(i)
			i++
		}
	}
	lx.flush()
	i = min(i, len(line))
	lx.tok.raw = line[start:i]
	if len(lx.tok.pieces) == 0 {
		// "" or '' is an empty argument; keep it as one.
		lx.tok.pieces = []piece{{}}
	}
	lx.out.toks = append(lx.out.toks, lx.tok)
	return i
}

// quoted lexes a quoted part at q: in "...", \" \\ and \$ escape and
// ${} refers; '...' is taken literally. It returns the index after it, and
// false when it is not closed.
func (lx *lineLexer) quoted(q int) (int, bool) {
	line, quote := lx.line, lx.line[q]
	lx.tok.quoted = true
	i := q + 1
	for i < len(line) && line[i] != quote {
		switch {
		case quote == '"' && line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`, line[i+1]) >= 0:
			lx.addLit(i + 1)
			i += 2
		case quote == '"' && line[i] == '$' && i+1 < len(line) && line[i+1] == '{':
			i = lx.ref(i)
		default:
			lx.addLit(i)
			i++
		}
	}
	if i < len(line) {
		return i + 1, true
	}
	if quote == '"' {
		lx.errorAt(q, "unclosed double quote")
	} else {
		lx.errorAt(q, "unclosed single quote")
	}
	return i, false
}

// ref lexes ${name} at i and returns the index after it.
func (lx *lineLexer) ref(i int) int {
	line := lx.line
	j := strings.IndexByte(line[i+2:], '}')
	if j < 0 {
		lx.errorAt(i, `unclosed "${": missing "}"`)
		lx.tok.bad = true
		return len(line)
	}
	name := line[i+2 : i+2+j]
	if !validParam(name) {
		lx.errorAt(i, `bad parameter reference "${`+name+`}": want ${name} with letters, digits, _ . -`)
		lx.tok.bad = true
	} else {
		lx.flush()
		lx.tok.pieces = append(lx.tok.pieces, piece{ref: name, col: i + 1})
	}
	return i + 3 + j
}
