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
	"time"
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
		got, err := readDir(dir, make([]byte, size), nil)
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
	got, err := readDir(missing, make([]byte, dirBufSize), nil)
	if len(got) != 0 || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("readDir(missing) = %v, %v; want nothing and a not-exist error", got, err)
	}
	if pe := (*fs.PathError)(nil); !errors.As(err, &pe) || pe.Path != missing {
		t.Errorf("error %v does not name %s", err, missing)
	}
}

// TestReadDirStat: the files the caller asks about carry the size and time os.Lstat gives;
// directories, links and other names do not.
func TestReadDirStat(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, at time.Time) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	write("train.py", "import torch\n", time.Unix(1_700_000_000, 123_456_789))
	write("notes.txt", "hello", time.Unix(1_600_000_000, 0))
	if err := os.Mkdir(filepath.Join(dir, "pkg.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("train.py", filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	got, err := readDir(dir, make([]byte, dirBufSize), func(name string) bool { return strings.HasSuffix(name, ".py") })
	if err != nil {
		t.Fatal(err)
	}
	stated := map[string]dirent{}
	for _, e := range got {
		if e.stated {
			stated[e.name] = e
		}
	}
	fi, err := os.Lstat(filepath.Join(dir, "train.py"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]dirent{"train.py": {name: "train.py", stated: true, size: fi.Size(), modNs: fi.ModTime().UnixNano()}}
	if len(stated) != 1 || stated["train.py"] != want["train.py"] {
		t.Errorf("stated %v, want %v", stated, want)
	}
}

// TestWalkStat: with Options.Stat every walked file carries the size and time os.Stat gives
// it; without, none does.
func TestWalkStat(t *testing.T) {
	root := t.TempDir()
	for i, name := range []string{"a.py", "pkg/b.py", "pkg/sub/c.ipynb", "pkg/sub/d.pyi"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Unix(1_700_000_000+int64(i), int64(i)*1000)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	for _, stat := range []bool{true, false} {
		files, _, err := Files([]string{root}, Options{Stat: stat})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 4 {
			t.Fatalf("%d files, want 4", len(files))
		}
		for _, f := range files {
			fi, err := os.Stat(f.Abs)
			if err != nil {
				t.Fatal(err)
			}
			want := File{Path: f.Path, Abs: f.Abs, Kind: f.Kind}
			if stat {
				want.Stated, want.Size, want.ModNs = true, fi.Size(), fi.ModTime().UnixNano()
			}
			if f != want {
				t.Errorf("Stat %v: %+v, want %+v", stat, f, want)
			}
		}
	}
}
