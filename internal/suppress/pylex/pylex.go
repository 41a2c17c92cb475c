// Package pylex tokenizes just enough Python to tell code from string literals and comments,
// line by line.
//
// Suppression comments and notebook magics are recognised textually, so a `# noqa` inside a
// docstring or a `%` that continues an expression must not be mistaken for one. A full
// parser is not needed for that, and only pyparse may import tree-sitter, so this scanner
// follows Python's lexical rules for strings (all prefixes, triple quotes, escapes, raw
// strings, PEP 701 f-strings with nested quotes and format specs), comments, brackets and
// backslash continuations. It never fails: on malformed input it recovers the way CPython's
// tokenizer would report an error, by closing a single-quoted string at the end of its line.
package pylex

// frameKind says what the scanner is inside of.
type frameKind uint8

const (
	// code is ordinary Python code: the bottom of the stack, or an f-string replacement field.
	code frameKind = iota
	// str is a string literal body.
	str
	// spec is the format spec of an f-string replacement field (after a top-level ':').
	spec
)

type frame struct {
	kind frameKind
	// field marks a code frame that is an f-string replacement field; it ends at '}'.
	field bool
	depth int // open brackets in a code frame
	// String properties, for str frames.
	quote  byte
	triple bool
	raw    bool
	fmt    bool // f-string or t-string: braces open replacement fields
}

// Scanner carries the lexical state from one line to the next. The zero value is ready to
// scan the first line of a file.
type Scanner struct {
	// bottom is the file's own code frame, kept outside stack so that plain code, the
	// common case, needs no allocation.
	bottom frame
	stack  []frame
	// continued records that the previous line ended with a backslash outside a string.
	continued bool
	line      int
	// stringLine is the line where the outermost open string literal began.
	stringLine int
}

// LineInfo describes one scanned line.
type LineInfo struct {
	// Line is the 1-based number of the line.
	Line int
	// Clean reports that the line starts at a statement boundary: not inside a string
	// literal, not inside brackets and not after a backslash continuation.
	Clean bool
	// Comment is the byte offset within the line of the '#' that starts a comment, or -1.
	Comment int
	// Continues reports that the line ends with a backslash continuation outside a string.
	Continues bool
	// InString reports that the line ends inside a string literal that goes on to the next
	// line; StringLine is then the line where that literal began.
	InString   bool
	StringLine int
	// Unterminated reports that a single-quoted string literal was still open at the end
	// of the line (a syntax error); the scanner closed it there, so anything appended to
	// the line would be part of that literal.
	Unterminated bool
}

// Clean reports whether the scanner is at a statement boundary.
func (s *Scanner) Clean() bool {
	return !s.continued && !s.inString() && s.depth() == 0
}

// Clone returns an independent copy, so a caller can look ahead and discard the result.
func (s *Scanner) Clone() *Scanner {
	c := *s
	c.stack = append([]frame(nil), s.stack...)
	return &c
}

func (s *Scanner) inString() bool { return len(s.stack) > 0 }

func (s *Scanner) depth() int { return s.bottom.depth }

// Line scans one line. content must not include the terminating '\n'; a trailing '\r' is
// allowed and treated as part of the line ending.
func (s *Scanner) Line(content []byte) LineInfo {
	s.line++
	info := LineInfo{Line: s.line, Clean: s.Clean(), Comment: -1}
	s.continued = false
	n := len(content)
	if n > 0 && content[n-1] == '\r' {
		n--
	}
	i := 0
	for i < n {
		f := s.top()
		switch f.kind {
		case code:
			i = s.scanCode(content[:n], i, f, &info)
		case str:
			i = s.scanString(content[:n], i, f)
		case spec:
			i = s.scanSpec(content[:n], i, f)
		}
	}
	s.endLine(content[:n], &info)
	return info
}

func (s *Scanner) endLine(content []byte, info *LineInfo) {
	if info.Continues {
		s.continued = true
	}
	// A single-quoted string cannot span lines unless its line ends with a backslash;
	// closing it here is how the tokenizer recovers from the error.
	for i := len(s.stack) - 1; i >= 0; i-- {
		f := s.stack[i]
		if f.kind != str || f.triple {
			continue
		}
		if endsWithOddBackslashes(content) && i == len(s.stack)-1 {
			continue
		}
		s.stack = s.stack[:i]
		info.Unterminated = true
	}
	if s.inString() {
		info.InString = true
		info.StringLine = s.stringLine
	}
}

func endsWithOddBackslashes(b []byte) bool {
	k := 0
	for j := len(b) - 1; j >= 0 && b[j] == '\\'; j-- {
		k++
	}
	return k%2 == 1
}

// top returns the innermost frame; the bottom code frame when the stack is empty.
func (s *Scanner) top() *frame {
	if len(s.stack) == 0 {
		return &s.bottom
	}
	return &s.stack[len(s.stack)-1]
}

func (s *Scanner) push(f frame) {
	if len(s.stack) == 0 {
		s.stringLine = s.line
	}
	s.stack = append(s.stack, f)
}

func (s *Scanner) pop() {
	if len(s.stack) > 0 {
		s.stack = s.stack[:len(s.stack)-1]
	}
}

// popString pops frames up to and including the innermost string frame.
func (s *Scanner) popString() {
	for len(s.stack) > 0 {
		k := s.stack[len(s.stack)-1].kind
		s.pop()
		if k == str {
			return
		}
	}
}

func (s *Scanner) scanCode(b []byte, i int, f *frame, info *LineInfo) int {
	c := b[i]
	switch {
	case c == '#':
		if info.Comment < 0 {
			info.Comment = i
		}
		return len(b)
	case c == '\\':
		if i+1 == len(b) {
			info.Continues = len(s.stack) == 0
			return len(b)
		}
		return i + 1
	case c == '"' || c == '\'':
		return s.openString(b, i, "")
	case isIdentByte(c) && !isDigit(c):
		j := i + 1
		for j < len(b) && isIdentByte(b[j]) {
			j++
		}
		if j < len(b) && (b[j] == '"' || b[j] == '\'') && isPrefix(b[i:j]) {
			return s.openString(b, j, string(b[i:j]))
		}
		return j
	case isDigit(c):
		// Skip the whole number so that a suffix like 1j or 0x1f is not read as a prefix.
		j := i + 1
		for j < len(b) && (isIdentByte(b[j]) || b[j] == '.') {
			j++
		}
		return j
	case c == '(' || c == '[' || c == '{':
		f.depth++
	case c == ')' || c == ']' || c == '}':
		if f.field && f.depth == 0 {
			if c == '}' {
				s.pop()
			}
			return i + 1
		}
		if f.depth > 0 {
			f.depth--
		}
	case c == ':' && f.field && f.depth == 0:
		s.push(frame{kind: spec})
	}
	return i + 1
}

func (s *Scanner) openString(b []byte, q int, prefix string) int {
	f := frame{kind: str, quote: b[q]}
	for k := 0; k < len(prefix); k++ {
		switch prefix[k] | 0x20 {
		case 'r':
			f.raw = true
		case 'f', 't':
			f.fmt = true
		}
	}
	if q+2 < len(b) && b[q+1] == b[q] && b[q+2] == b[q] {
		f.triple = true
		s.push(f)
		return q + 3
	}
	s.push(f)
	return q + 1
}

func (s *Scanner) scanString(b []byte, i int, f *frame) int {
	c := b[i]
	switch {
	case c == '\\':
		// In raw strings too, a backslash keeps the next quote from closing the literal.
		return i + 2
	case c == f.quote:
		if !f.triple {
			s.pop()
			return i + 1
		}
		if i+2 < len(b) && b[i+1] == c && b[i+2] == c {
			s.pop()
			return i + 3
		}
	case f.fmt && c == '{':
		if i+1 < len(b) && b[i+1] == '{' {
			return i + 2
		}
		s.push(frame{kind: code, field: true})
	case f.fmt && c == '}':
		if i+1 < len(b) && b[i+1] == '}' {
			return i + 2
		}
	}
	return i + 1
}

func (s *Scanner) scanSpec(b []byte, i int, _ *frame) int {
	c := b[i]
	switch c {
	case '{':
		s.push(frame{kind: code, field: true})
	case '}':
		s.pop() // the spec
		s.pop() // the replacement field it belongs to
	case '\\':
		return i + 2
	default:
		// The enclosing string's own closing quote ends it even in a malformed spec.
		if str := s.enclosingString(); str != nil && c == str.quote {
			if !str.triple {
				s.popString()
				return i + 1
			}
			if i+2 < len(b) && b[i+1] == c && b[i+2] == c {
				s.popString()
				return i + 3
			}
		}
	}
	return i + 1
}

func (s *Scanner) enclosingString() *frame {
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i].kind == str {
			return &s.stack[i]
		}
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentByte(c byte) bool {
	return c == '_' || c >= 0x80 || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// isPrefix reports whether p is a valid string prefix (any case): r u b f t br rb fr rf tr rt.
func isPrefix(p []byte) bool {
	switch len(p) {
	case 1:
		switch p[0] | 0x20 {
		case 'r', 'u', 'b', 'f', 't':
			return true
		}
	case 2:
		a, b := p[0]|0x20, p[1]|0x20
		if a > b {
			a, b = b, a
		}
		switch string([]byte{a, b}) {
		case "br", "fr", "rt":
			return true
		}
	}
	return false
}
