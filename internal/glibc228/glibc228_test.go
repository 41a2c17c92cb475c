//go:build linux && cgo && (amd64 || arm64)

package glibc228

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestStartup builds a program that links this package and checks that it needs no
// glibc version above 2.28, names the libraries a glibc before 2.34 defines the old
// versions in, and still runs its C constructors (the init array the wrapped
// __libc_start_main hands over), dlopen and threads on the glibc here. That the old start
// path runs the constructors at all shows only on a glibc before 2.34, which this test
// cannot reach: here it shows that csu_init runs them exactly once.
func TestStartup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a cgo program; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "startup")
	build := exec.Command("go", "build", "-o", bin, "./testdata/startup")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "constructor=true dlopen=[true true true true]"; got != want {
		t.Errorf("startup printed %q, want %q", got, want)
	}

	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if !strings.HasPrefix(s.Version, "GLIBC_") {
			continue
		}
		if newer(s.Version, "GLIBC_2.28") {
			t.Errorf("%s needs %s, above 2.28", s.Name, s.Version)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"libpthread.so.0", "libdl.so.2", "libc.so.6"} {
		if !slices.Contains(libs, want) {
			t.Errorf("NEEDED %q lacks %s", libs, want)
		}
	}
}

// newer reports whether glibc symbol version a (GLIBC_2.34) is above b.
func newer(a, b string) bool {
	pa, pb := versionParts(a), versionParts(b)
	return slices.Compare(pa, pb) > 0
}

func versionParts(v string) []int {
	var parts []int
	for _, s := range strings.Split(strings.TrimPrefix(v, "GLIBC_"), ".") {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil
		}
		parts = append(parts, n)
	}
	return parts
}

func TestNewer(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"GLIBC_2.34", "GLIBC_2.28", true},
		{"GLIBC_2.3.2", "GLIBC_2.28", false},
		{"GLIBC_2.28", "GLIBC_2.28", false},
		{"GLIBC_2.2.5", "GLIBC_2.28", false},
	} {
		if got := newer(tt.a, tt.b); got != tt.want {
			t.Errorf("newer(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
