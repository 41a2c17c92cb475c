package fix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/report"
)

func TestApplyKeepsTheRest(t *testing.T) {
	src := []byte("for b in l:\r\n    step()\r\n    torch.cuda.empty_cache()\r\n    log()\r\n")
	start := strings.Index(string(src), "    torch")
	end := strings.Index(string(src), "    log")
	out, n := Apply(src, []*report.Fix{{Edits: []report.Edit{{Start: start, End: end}}}})
	if n != 1 || string(out) != "for b in l:\r\n    step()\r\n    log()\r\n" {
		t.Fatalf("got %d %q", n, out)
	}
}

func TestApplySkipsOverlaps(t *testing.T) {
	src := []byte("abcdef")
	out, n := Apply(src, []*report.Fix{
		{Edits: []report.Edit{{Start: 1, End: 3, NewText: "X"}}},
		{Edits: []report.Edit{{Start: 2, End: 4, NewText: "Y"}}},
		{Edits: []report.Edit{{Start: 9, End: 12, NewText: "out of range"}}},
	})
	if n != 1 || string(out) != "aXdef" {
		t.Fatalf("got %d %q", n, out)
	}
}

func TestWriteAtomicKeepsMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "train.py")
	if err := os.WriteFile(p, []byte("old"), 0o751); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	b, _ := os.ReadFile(p)
	if string(b) != "new" || fi.Mode().Perm() != 0o751 {
		t.Fatalf("got %q %v", b, fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}

func TestDiff(t *testing.T) {
	d, err := Diff("t.py", []byte("a\nb\nc\n"), []byte("a\nc\n"))
	if err != nil || !strings.Contains(d, "--- t.py") || !strings.Contains(d, "-b") {
		t.Fatalf("diff = %q, %v", d, err)
	}
}
