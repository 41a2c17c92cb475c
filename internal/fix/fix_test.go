package fix

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestWriteAtomicThroughSymlink: a symlink's target gets the new text and the link stays a
// link (it was replaced by a regular file, and the target left unfixed).
func TestWriteAtomicThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "train.py")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "train.py")
	if err := os.Symlink(filepath.Join("real", "train.py"), link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(link, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a symlink (%v)", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target = %q, want the new text", b)
	}
}

// TestWriteAtomicRefusesHardLinks: a file with a second hard link is left as it is, with an
// error that names it (a rename would split the link and leave the other name unfixed).
func TestWriteAtomicRefusesHardLinks(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.py"), filepath.Join(dir, "b.py")
	if err := os.WriteFile(a, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(a, b); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	err := WriteAtomic(a, []byte("new\n"))
	var hl *HardLinkError
	if !errors.As(err, &hl) || hl.Links != 2 || !strings.HasPrefix(err.Error(), a+" has 2 hard links") {
		t.Fatalf("err = %v, want a HardLinkError for %s", err, a)
	}
	for _, p := range []string{a, b} {
		if got, _ := os.ReadFile(p); string(got) != "old\n" {
			t.Errorf("%s = %q, want it unchanged", p, got)
		}
	}
}

// TestWriteAtomicRemovesStaleTemp: a temporary file an interrupted run left beside the file
// is removed by the next write; a fresh one (a run going on now) and other files stay.
func TestWriteAtomicRemovesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.py")
	stale, fresh, other := filepath.Join(dir, ".train.py.cachelint-123"), filepath.Join(dir, ".train.py.cachelint-456"), filepath.Join(dir, ".train.py.cachelint-notes")
	for _, p := range []string{path, stale, fresh, other} {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{stale, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteAtomic(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != ".train.py.cachelint-456 .train.py.cachelint-notes train.py" {
		t.Errorf("directory holds %s", got)
	}
}
