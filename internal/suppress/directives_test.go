package suppress

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseDirectivesMatchesParse holds the shortcut to Parse's answers: for every line and
// code, suppressed or not, and the same warnings, on the fixture corpus and on directives
// spelt every way Parse accepts.
func TestParseDirectivesMatchesParse(t *testing.T) {
	srcs := map[string][]byte{
		"upper":   []byte("import torch\ntorch.cuda.empty_cache()  # NOQA: CL001\n"),
		"tight":   []byte("torch.cuda.empty_cache()  #noqa\n"),
		"own":     []byte("# cachelint: ignore[CL001]\ntorch.cuda.empty_cache()\n"),
		"file":    []byte("# cachelint: noqa-file: CL003\nx = 1\n"),
		"string":  []byte("s = '# noqa'\ntorch.cuda.empty_cache()\n"),
		"bad":     []byte("x = 1  # noqa: \n# cachelint: ignore[\n"),
		"none":    []byte("import torch\n# a comment\nx = 1  # not a directive\n"),
		"no hash": []byte("x = 1\n"),
		"empty":   {},
	}
	err := filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		src, err := os.ReadFile(p)
		srcs[p] = src
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for name, src := range srcs {
		full, quick := Parse(src), ParseDirectives(src)
		if !mayHaveDirective(src) {
			skipped++
		}
		lines := strings.Count(string(src), "\n") + 2
		for line := 1; line <= lines; line++ {
			for _, code := range []string{"CL001", "CL002", "CL003", "CL006"} {
				if a, b := full.Suppressed(code, line), quick.Suppressed(code, line); a != b {
					t.Errorf("%s:%d %s: Parse says suppressed %v, ParseDirectives %v", name, line, code, a, b)
				}
			}
		}
		if a, b := full.Warnings(), quick.Warnings(); !reflect.DeepEqual(a, b) && len(a)+len(b) > 0 {
			t.Errorf("%s: warnings %v and %v", name, a, b)
		}
		if a, b := full.Unused(), quick.Unused(); !reflect.DeepEqual(a, b) && len(a)+len(b) > 0 {
			t.Errorf("%s: unused %v and %v", name, a, b)
		}
	}
	if skipped < 10 {
		t.Errorf("only %d of %d files went without lexing: the shortcut is not taken", skipped, len(srcs))
	}
}
