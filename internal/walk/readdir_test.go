//go:build linux

package walk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadDirAsOS: readDir lists a directory as os.ReadDir does, names and types in the
// same order, whatever the buffer (a small one answers in many getdents64 calls).
func TestReadDirAsOS(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		name := fmt.Sprintf("file_%03d_%s.py", 299-i, strings.Repeat("x", i%40))
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"sub", "Zeta", ".hidden", "a.py"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{dirBufSize, 512} {
		got, err := readDir(dir, make([]byte, size))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("buffer %d: %d entries, want %d", size, len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			wt := w.Type()
			if wt&(fs.ModeDir|fs.ModeSymlink) == 0 && wt != 0 {
				wt = fs.ModeIrregular // devices, pipes, sockets: not walked, one kind here
			}
			if g.name != w.Name() || g.typ != wt {
				t.Errorf("buffer %d, entry %d: %q %v, want %q %v", size, i, g.name, g.typ, w.Name(), wt)
			}
		}
	}
}

// TestReadDirMissing: a directory that cannot be opened is an error naming it, which the
// walk's warning unwraps to the system's reason.
func TestReadDirMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	got, err := readDir(missing, make([]byte, dirBufSize))
	if len(got) != 0 || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("readDir(missing) = %v, %v; want nothing and a not-exist error", got, err)
	}
	if pe := (*fs.PathError)(nil); !errors.As(err, &pe) || pe.Path != missing {
		t.Errorf("error %v does not name %s", err, missing)
	}
}
