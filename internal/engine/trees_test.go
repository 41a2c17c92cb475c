package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cachelint/cachelint/internal/engine"
)

// treeFiles lists the keys of the trees kept in a cache folder, by entry folder (every pack
// of it together), and how many packs each folder holds.
func treeFiles(t *testing.T, cacheDir string) (map[string][]string, map[string]int) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(cacheDir, "trees-*"))
	if err != nil {
		t.Fatal(err)
	}
	out, packs := map[string][]string{}, map[string]int{}
	for _, d := range dirs {
		byPack, err := engine.TreeKeys(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, keys := range byPack {
			out[filepath.Base(d)] = append(out[filepath.Base(d)], keys...)
		}
		packs[filepath.Base(d)] = len(byPack)
	}
	return out, packs
}

// TestTreesReused edits a parsed file: the run after it analyses again, takes every other
// parsed file's tree from the cache, and finds what a run without the cache finds.
func TestTreesReused(t *testing.T) {
	dir := cacheProject(t)
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	first, _ := runCached(t, cacheDir, []string{dir}, dir)
	if first.Stats.Reused != 0 || first.Stats.Parsed < 2 {
		t.Fatalf("first run: %d parsed, %d reused; want at least 2 parsed, none reused", first.Stats.Parsed, first.Stats.Reused)
	}
	trees, packs := treeFiles(t, cacheDir)
	if len(trees) != 1 {
		t.Fatalf("tree folders %v, want one", trees)
	}
	for f, names := range trees {
		if len(names) != first.Stats.Parsed || packs[f] != 1 {
			t.Fatalf("%d trees in %d packs kept for %d parsed files, want one pack", len(names), packs[f], first.Stats.Parsed)
		}
	}

	write(t, dir, "train.py", "from pkg.memory import free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        if batch % 10 == 0:\n            free_gpu()\n")
	res, got := runCached(t, cacheDir, []string{dir}, dir)
	if res.Stats.Cached {
		t.Fatal("the run after an edit came from the cache")
	}
	if res.Stats.Reused != res.Stats.Parsed-1 {
		t.Errorf("after editing one parsed file: %d of %d parsed files from kept trees, want all but one", res.Stats.Reused, res.Stats.Parsed)
	}
	_, want := runCached(t, "", []string{dir}, dir)
	if got != want {
		t.Errorf("with kept trees:\n%s\nwithout the cache:\n%s", got, want)
	}
	// The first run's pack stays (all but one of its trees are read), beside a pack of the
	// edited file's tree.
	trees, packs = treeFiles(t, cacheDir)
	for f, names := range trees {
		if len(names) != res.Stats.Parsed+1 || packs[f] != 2 {
			t.Errorf("%d trees in %d packs kept after the edit, want %d in 2", len(names), packs[f], res.Stats.Parsed+1)
		}
	}
}

// TestTreesBadEntries holds garbled and cut trees to a parse (same findings), and removes
// the tree folders of other entries left untouched for a week.
func TestTreesBadEntries(t *testing.T) {
	dir := cacheProject(t)
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	_, want := runCached(t, cacheDir, []string{dir}, dir)
	dirs, _ := filepath.Glob(filepath.Join(cacheDir, "trees-*"))
	for _, d := range dirs {
		spans, err := engine.TreeSpans(d)
		if err != nil {
			t.Fatal(err)
		}
		for pack, trees := range spans {
			data, err := os.ReadFile(pack)
			if err != nil {
				t.Fatal(err)
			}
			for i, sp := range trees {
				tree := data[sp[0] : sp[0]+sp[1]]
				switch i % 3 {
				case 0:
					clear(tree[len(tree)/2:]) // as if cut
				case 1:
					for j := len(tree) / 2; j < len(tree); j++ {
						tree[j] ^= 0x5a
					}
				default:
					copy(tree, "not a tree")
				}
			}
			if err := os.WriteFile(pack, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	stale := filepath.Join(cacheDir, "trees-0123456789abcdef01234567")
	fresh := filepath.Join(cacheDir, "trees-89abcdef0123456789abcdef")
	for _, d := range []string{stale, fresh} {
		write(t, d, "x", "old")
	}
	old := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "pkg/memory.py", "import torch\n\n\ndef free_gpu():\n    torch.cuda.empty_cache()  # edited\n")
	res, got := runCached(t, cacheDir, []string{dir}, dir)
	if res.Stats.Reused != 0 {
		t.Errorf("%d trees reused from garbled entries", res.Stats.Reused)
	}
	if strings.ReplaceAll(got, "  # edited", "") != strings.ReplaceAll(want, "  # edited", "") {
		t.Errorf("with garbled trees:\n%s\nbefore:\n%s", got, want)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a tree folder untouched for 8 days is still there (%v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a tree folder touched today was removed: %v", err)
	}
	again, _ := runCached(t, "", []string{dir}, dir)
	if res.Stats.Parsed != again.Stats.Parsed {
		t.Errorf("parsed %d with garbled trees, %d without the cache", res.Stats.Parsed, again.Stats.Parsed)
	}
	// The garbled trees were replaced: a run after another edit reuses them.
	write(t, dir, "pkg/memory.py", "import torch\n\n\ndef free_gpu():\n    torch.cuda.empty_cache()  # edited again\n")
	next, _ := runCached(t, cacheDir, []string{dir}, dir)
	if next.Stats.Reused != next.Stats.Parsed-1 {
		t.Errorf("after the garbled trees were parsed again: %d of %d reused, want all but the edited file", next.Stats.Reused, next.Stats.Parsed)
	}
}
