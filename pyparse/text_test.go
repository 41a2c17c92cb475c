package pyparse

import (
	"strings"
	"testing"
)

// TestLoneCRLineEnds: a file with classic Mac line endings is read as Python reads it, one
// line per '\r', so its calls sit in their loop and on their lines.
func TestLoneCRLineEnds(t *testing.T) {
	src := "import torch\r\rdef train(loader):\r    for b in loader:\r        torch.cuda.empty_cache()\r"
	f := parse(t, src)
	if len(f.Errors) != 0 || len(f.Calls) != 1 {
		t.Fatalf("errors %v, %d calls", f.Errors, len(f.Calls))
	}
	c := f.Calls[0]
	line, col := f.Position(int(c.Node.Start))
	if c.Callee != "torch.cuda.empty_cache" || c.Function == nil || line != 5 || col != 9 || c.Node.Line() != 5 {
		t.Errorf("call %q in %v at %d:%d (row %d), want torch.cuda.empty_cache in train at 5:9", c.Callee, c.Function, line, col, c.Node.Line())
	}
	// The offset past the final line end is on the line after it, with or without a tree.
	for _, g := range []*File{f, {Src: f.Src}} {
		if line, col := g.Position(len(src)); line != 6 || col != 1 {
			t.Errorf("end of file at %d:%d, want 6:1", line, col)
		}
		if line, col := g.Position(int(c.Node.Start)); line != 5 || col != 9 {
			t.Errorf("call at %d:%d, want 5:9", line, col)
		}
	}
	if l := f.Root.Find(func(n *Node) bool { return n.Kind() == "for_statement" }); l == nil || !strings.Contains(l.Text(f.Src), "\r") {
		t.Error("the tree's text is not the file's own")
	}
}

// TestCommentRuns: a long run of comment lines (which tree-sitter-python's scanner reads
// ahead over at every line end) still parses to the same model, and the text in strings
// that looks like comments is left alone.
func TestCommentRuns(t *testing.T) {
	comments := strings.Repeat("        # a comment\n\n", 3*commentRunKept)
	doc := "    s = '''\n" + strings.Repeat("# not a comment\n", 2*commentRunKept) + "'''\n"
	src := "import torch\ndef train(loader):\n" + doc + "    for b in loader:\n        x = 1\n" + comments + "        torch.cuda.empty_cache()\n"
	f := parse(t, src)
	if len(f.Errors) != 0 || len(f.Calls) != 1 || f.Calls[0].Function == nil {
		t.Fatalf("errors %v, calls %d", f.Errors, len(f.Calls))
	}
	if got := f.Calls[0].Node.Line(); got != 7+8*commentRunKept {
		t.Errorf("call on line %d, want %d", got, 7+8*commentRunKept)
	}
	kept := 0
	f.Root.Walk(func(n *Node) bool {
		if n.Kind() == "comment" {
			kept++
		}
		return true
	})
	if kept != commentRunKept {
		t.Errorf("%d comment nodes, want the first %d of the run", kept, commentRunKept)
	}
	text := parseText([]byte(src))
	if len(text) != len(src) || !strings.Contains(string(text), doc) {
		t.Error("parseText changed the length or a string's text")
	}
	if clean := []byte("x = 1\n# c\n"); &parseText(clean)[0] != &clean[0] {
		t.Error("parseText copied a file it had nothing to change in")
	}
}
