package pylex

import (
	"strings"
	"testing"
)

// scan returns the LineInfo of every line of src.
func scan(src string) []LineInfo {
	var s Scanner
	var out []LineInfo
	for _, l := range strings.Split(src, "\n") {
		out = append(out, s.Line([]byte(l)))
	}
	return out
}

func TestComment(t *testing.T) {
	tests := []struct {
		line string
		want int // offset of the comment's '#', -1 for none
	}{
		{"x = 1  # c", 7},
		{"# c", 0},
		{"s = '#'", -1},
		{`s = "a\"#"  # c`, 12},
		{`s = r"\"#"  # c`, 12},
		{`s = '''#'''  # c`, 13},
		{`s = b'#' + rb"#" + Rb'#' + U"#"`, -1},
		{`s = f"{x!r:>{w}} #" # c`, 20},
		{`s = f"{d["#"]}" # c`, 16},
		{`s = f'{{#}}' # c`, 13},
		{`s = f"{f'{1}#'}"  # c`, 18},
		{`s = f"{(lambda: 1)()}#"`, -1},
		{`s = t"{x}#" # c`, 12},
		{`elf = "#"  # c`, 11},
		{`x = 1if y else 2  # c`, 18},
		{`s = "unterminated # not a comment`, -1},
	}
	for _, tt := range tests {
		if got := scan(tt.line)[0].Comment; got != tt.want {
			t.Errorf("%s: comment at %d, want %d", tt.line, got, tt.want)
		}
	}
}

func TestLineState(t *testing.T) {
	src := "a = (1,\n" + // 1: opens a bracket
		"     2)\n" + // 2: inside brackets
		"s = '''x\n" + // 3: opens a triple-quoted string
		"# not a comment\n" + // 4: inside the string
		"'''  # c\n" + // 5: closes it
		"t = a + \\\n" + // 6: continuation
		"    b\n" + // 7: continued
		"u = 'a\\\n" + // 8: single-quoted string continued by a backslash
		"b'\n" + // 9
		"v = f'''{\n" + // 10: replacement field spanning lines
		"x # c\n" + // 11: comment inside the field
		"}'''\n" + // 12
		"w = 'oops\n" + // 13: unterminated: closed at end of line
		"z = 1\r" // 14: CR before the (absent) LF
	got := scan(src)
	type want struct {
		clean, cont, inString bool
		stringLine, comment   int
		unterminated          bool
	}
	wants := map[int]want{
		1:  {clean: true, comment: -1},
		2:  {comment: -1},
		3:  {clean: true, inString: true, stringLine: 3, comment: -1},
		4:  {inString: true, stringLine: 3, comment: -1},
		5:  {comment: 5},
		6:  {clean: true, cont: true, comment: -1},
		7:  {comment: -1},
		8:  {clean: true, inString: true, stringLine: 8, comment: -1},
		9:  {comment: -1},
		10: {clean: true, inString: true, stringLine: 10, comment: -1},
		11: {inString: true, stringLine: 10, comment: 2},
		12: {comment: -1},
		13: {clean: true, comment: -1, unterminated: true},
		14: {clean: true, comment: -1},
	}
	for n, w := range wants {
		g := got[n-1]
		if g.Line != n || g.Clean != w.clean || g.Continues != w.cont || g.InString != w.inString ||
			g.StringLine != w.stringLine || g.Comment != w.comment || g.Unterminated != w.unterminated {
			t.Errorf("line %d: got %+v, want %+v", n, g, w)
		}
	}
}

func TestClone(t *testing.T) {
	var s Scanner
	s.Line([]byte("x = '''"))
	c := s.Clone()
	c.Line([]byte("'''"))
	if s.Clean() || !c.Clean() {
		t.Fatalf("clone shares state: original clean=%v, clone clean=%v", s.Clean(), c.Clean())
	}
}
