package pyparse

import (
	"context"
	"go/token"
	"testing"
)

func TestParseFilesParsesOnlyTheNamedPendingFiles(t *testing.T) {
	src := map[string]string{
		"a.py": "import torch\ntorch.cuda.empty_cache()\n",
		"b.py": "def get_device():\n    return torch.cuda\n",
		"c.py": "x = 1\n",
	}
	read := func(p string) ([]byte, error) { return []byte(src[p]), nil }
	r := NewResult([]string{"a.py", "b.py", "c.py"}, read, token.NewFileSet(), 1)
	if err := r.ParseMatching(context.Background(), []string{"empty_cache"}); err != nil {
		t.Fatal(err)
	}
	if r.Parsed != 1 || r.ByPath["a.py"] == nil {
		t.Fatalf("prefilter parsed %d files, want a.py alone", r.Parsed)
	}
	if err := r.ParseFiles(context.Background(), []string{"b.py", "a.py", "missing.py"}); err != nil {
		t.Fatal(err)
	}
	if r.Parsed != 2 || r.ByPath["b.py"] == nil || r.ByPath["c.py"] != nil {
		t.Fatalf("after ParseFiles: parsed %d, b.py %v, c.py %v; want a.py and b.py", r.Parsed, r.ByPath["b.py"] != nil, r.ByPath["c.py"] != nil)
	}
	// c.py is still pending: a later round can parse it.
	if err := r.ParseMatching(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if r.ByPath["c.py"] == nil {
		t.Error("c.py was lost from the pending files")
	}
}
