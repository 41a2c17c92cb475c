package invoke

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses a shell script as the binary")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "fake")
	body := "#!/bin/sh\nif [ \"$1\" = fail ]; then echo broken >&2; exit 2; fi\nprintf '{\"dir\": \"%s\"}' \"$(pwd)\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	bin := Binary("./fake") // relative: must still be found from inside the tree
	var out struct{ Dir string }
	if err := JSON(bin, tree, []string{"calls"}, &out); err != nil {
		t.Fatal(err)
	}
	if got, _ := filepath.EvalSymlinks(out.Dir); got != mustEval(t, tree) {
		t.Errorf("ran in %s, want %s", out.Dir, tree)
	}
	if err := JSON(bin, tree, []string{"fail"}, &out); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a failing run gave %v, want its standard error", err)
	}
	if got := Binary("cachelint"); got != "cachelint" {
		t.Errorf("Binary(cachelint) = %q, want the bare name for PATH", got)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
