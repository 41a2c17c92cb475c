package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSignaturesKept: after a file that matters is edited, the analysis runs again without
// reading the unchanged files whose kept signatures mention no needle, and finds what a run
// without the cache finds: also when the edit makes a helper of a name such a file
// mentions, when one of them changes, and when the store is garbled.
func TestSignaturesKept(t *testing.T) {
	dir := cacheProject(t)
	write(t, dir, "later.py", "from pkg.memory import free_all\n\n\ndef fit(loader, opt):\n    for b in loader:\n        opt.step()\n        free_all()\n")
	write(t, dir, "notes.py", "NOTES = 1\n")
	write(t, dir, "units.py", "MB = 1 << 20\n")
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	first, _ := runCached(t, cacheDir, []string{dir}, dir)
	if first.Stats.Unread != 0 {
		t.Fatalf("first run: %d files unread, want none", first.Stats.Unread)
	}
	stores, err := filepath.Glob(filepath.Join(cacheDir, "*.signatures"))
	if err != nil || len(stores) != 1 {
		t.Fatalf("signature stores %v (%v), want one", stores, err)
	}
	// Parsed files are kept too (pkg/memory.py and train.py name the cache), so that an
	// edited run reads them only in the round that parses them.
	if store, err := os.ReadFile(stores[0]); err != nil || !bytes.Contains(store, []byte(filepath.Join(dir, "train.py"))) ||
		!bytes.Contains(store, []byte(filepath.Join(dir, "pkg", "memory.py"))) {
		t.Errorf("the store does not hold the parsed files' signatures (%v)", err)
	}
	// old gives an edited file a time the next run trusts, and a stamp of its own.
	old := func(name string, ago time.Duration) {
		t.Helper()
		at := time.Now().Add(-ago)
		if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		what     string
		change   func()
		unread   int // at least
		findings int
	}{
		{"a parsed file edited", func() {
			write(t, dir, "train.py", "from pkg.memory import free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        if batch % 10 == 0:\n            free_gpu()\n")
			old("train.py", 20*time.Minute)
		}, 3, 1},
		{"a helper named as an unread file's call", func() {
			write(t, dir, "pkg/memory.py", "import torch\n\n\ndef free_gpu():\n    torch.cuda.empty_cache()\n\n\ndef free_all():\n    free_gpu()\n")
			old("pkg/memory.py", 19*time.Minute)
		}, 2, 2},
		{"an unread file edited", func() {
			write(t, dir, "notes.py", "from pkg.memory import free_gpu\n\n\ndef loop(loader, opt):\n    for b in loader:\n        opt.step()\n        free_gpu()\n")
			old("notes.py", 18*time.Minute)
		}, 1, 3},
		// The store is written again for a file read and not parsed that it does not hold
		// as it stands (the edits above leave it as it was: each stale record is of a file
		// now parsed, and a parsed file's record is not worth writing the store for). The
		// parsed file gets a helper of its own, so that the prefilter's rounds run again
		// and read the unparsed files (a run that keeps the call graph reads none).
		{"an unread file edited with a parsed one", func() {
			write(t, dir, "units.py", "MB = 1 << 20\nGB = 1 << 30\n")
			old("units.py", 17*time.Minute+30*time.Second)
			write(t, dir, "train.py", "from pkg.memory import free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        if batch % 5 == 0:\n            free_gpu()\n\n\ndef cleanup():\n    free_gpu()\n")
			old("train.py", 17*time.Minute+20*time.Second)
		}, 1, 3},
	}
	stale := filepath.Join(cacheDir, "0123456789abcdef01234567.signatures")
	fresh := filepath.Join(cacheDir, "89abcdef0123456789abcdef.signatures")
	for _, p := range []string{stale, fresh} {
		write(t, filepath.Dir(p), filepath.Base(p), "old")
	}
	eightDays := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(stale, eightDays, eightDays); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		s.change()
		res, got := runCached(t, cacheDir, []string{dir}, dir)
		_, want := runCached(t, "", []string{dir}, dir)
		if res.Stats.Cached || res.Stats.Unread < s.unread || len(res.Report.Findings) != s.findings || got != want {
			t.Errorf("%s: cached %v, %d unread (want at least %d), %d findings (want %d), same as without a cache %v",
				s.what, res.Stats.Cached, res.Stats.Unread, s.unread, len(res.Report.Findings), s.findings, got == want)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("another entry's store untouched for 8 days is still there (%v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("another entry's store touched today was removed: %v", err)
	}
	// Another edit of a parsed file leaves the store as it is: it holds every signature.
	before, err := os.Stat(stores[0])
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "train.py", "from pkg.memory import free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        opt.step()\n        free_gpu()\n")
	old("train.py", 17*time.Minute)
	if res, _ := runCached(t, cacheDir, []string{dir}, dir); res.Stats.Cached || res.Stats.Unread == 0 {
		t.Errorf("after another edit: cached %v, %d unread", res.Stats.Cached, res.Stats.Unread)
	}
	if after, err := os.Stat(stores[0]); err != nil || !os.SameFile(before, after) {
		t.Errorf("the store was written again although it held every signature (%v)", err)
	}
	if err := os.WriteFile(stores[0], []byte("cachelint-signatures-1\n\xff\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "train.py", "from pkg.memory import free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        free_gpu()\n")
	res, got := runCached(t, cacheDir, []string{dir}, dir)
	_, want := runCached(t, "", []string{dir}, dir)
	if res.Stats.Unread != 0 || got != want {
		t.Errorf("with a garbled store: %d unread (want none), same as without a cache %v", res.Stats.Unread, got == want)
	}
}
