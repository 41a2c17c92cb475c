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

func TestMayImport(t *testing.T) {
	src := map[string]string{
		"defines.py":  "import torch\n\n\ndef save(state):\n    torch.save(state, 'x.pt')\n",
		"explicit.py": "from .api import (\n    load,\n    save,\n)\n",
		"renamed.py":  "import pkg.store as save\n",
		"star.py":     "from .memory_utils import *\n",
		"strings.py":  "# from .io import save\nDOC = 'from .io import save'\n",
		"later.py":    "x = 1\nfrom .io import load\nsave = load\n",
	}
	read := func(p string) ([]byte, error) { return []byte(src[p]), nil }
	var files []string
	for p := range src {
		files = append(files, p)
	}
	r := NewResult(files, read, token.NewFileSet(), 1)
	if err := r.ParseMatching(context.Background(), []string{"empty_cache"}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"defines.py":  false, // names save in a def, not in an import
		"explicit.py": true,
		"renamed.py":  true,
		"star.py":     true,
		"strings.py":  false, // a comment and a string import nothing
		"later.py":    false, // binds save by assignment: not an import
		"unread.py":   true,  // never read: nothing is known
	} {
		if got := r.MayImport(path, "save"); got != want {
			t.Errorf("MayImport(%s, save) = %v, want %v", path, got, want)
		}
	}
}
