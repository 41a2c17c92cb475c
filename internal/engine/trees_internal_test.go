package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cachelint/cachelint/pyparse"
)

// storeRun is one run's use of a tree store: the trees it reads (and finds), then those it
// writes, then its end; it returns the keys it found.
func storeRun(t *testing.T, dir string, read []string, write map[string]string) []string {
	t.Helper()
	s := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	defer s.close()
	var found []string
	for _, k := range read {
		if data := s.Get(k); data != nil {
			if want, _ := treeText(k); string(data) != want {
				t.Fatalf("tree %s read back as %q", k, data)
			}
			found = append(found, k)
		}
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range write {
			if !yield(k) {
				return
			}
		}
	}) {
		s.Put(k, []byte(write[k]))
	}
	s.finish()
	s.prune()
	after := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	defer after.close()
	after.load()
	for k, ref := range after.index {
		if ref.off%treeAlign != 0 {
			t.Fatalf("tree %s starts at %d in %s", k, ref.off, filepath.Base(ref.pack.path))
		}
	}
	return found
}

// indexOf is where the store finds key's tree.
func (s *treeStore) indexOf(key string) treeRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	return s.index[key]
}

// treeText is the text the tests store under key k.
func treeText(k string) (string, bool) { return "tree of " + k, true }

func trees(keys ...string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		out[k], _ = treeText(k)
	}
	return out
}

func packCount(t *testing.T, dir string) (packs, keys int) {
	t.Helper()
	byPack, err := TreeKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range byPack {
		keys += len(ks)
	}
	return len(byPack), keys
}

// TestTreePacks: a run's trees go into one pack, read back by later runs; a pack no run read
// from is removed; packs are merged when they multiply, the largest kept while most of its
// trees are read, merged too once most are not; a key written again is read from the
// newest pack; a pack that does not read is ignored and removed.
func TestTreePacks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "trees-x")
	var first []string
	for i := range 20 {
		first = append(first, fmt.Sprintf("k%02d", i))
	}
	storeRun(t, dir, first, trees(first...))
	if packs, keys := packCount(t, dir); packs != 1 || keys != 20 {
		t.Fatalf("after the first run: %d packs, %d trees; want 1 and 20", packs, keys)
	}
	if got := storeRun(t, dir, first, nil); len(got) != 20 {
		t.Fatalf("a second run found %d of the 20 trees", len(got))
	}
	// Edited runs: each reads all but one tree and writes that one anew.
	for i := range maxPacks {
		k := first[i]
		read := slices.DeleteFunc(slices.Clone(first), func(x string) bool { return x == k })
		storeRun(t, dir, read, map[string]string{k: "tree of " + k})
		packs, _ := packCount(t, dir)
		if i+2 <= maxPacks && packs != i+2 {
			t.Fatalf("after %d edited runs: %d packs, want %d", i+1, packs, i+2)
		}
		if packs > maxPacks {
			t.Fatalf("after %d edited runs: %d packs, more than %d", i+1, packs, maxPacks)
		}
	}
	if got := storeRun(t, dir, first, nil); len(got) != 20 {
		t.Fatalf("after the merge, %d of the 20 trees found", len(got))
	}
	// A run that reads only 3 trees: the first pack holds none of them (they were written
	// again) and goes; the merged pack holds 8, most no longer read: all is merged.
	storeRun(t, dir, first[:3], nil)
	if packs, keys := packCount(t, dir); packs != 1 || keys != 3 {
		t.Errorf("after a run that read 3 trees: %d packs, %d trees; want 1 and 3", packs, keys)
	}
	// A key written again (its tree did not decode) is read from the newest pack.
	storeRun(t, dir, first[1:3], map[string]string{"k00": "new tree of k00"})
	s := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	if got := string(s.Get("k00")); got != "new tree of k00" {
		t.Errorf("k00 written again reads %q", got)
	}
	s.close()
	storeRun(t, dir, first[1:3], map[string]string{"k00": "tree of k00"})
	// A garbled pack is ignored, then removed.
	bad := filepath.Join(dir, packPrefix+"00000000000000000001-00000000"+packSuffix)
	if err := os.WriteFile(bad, bytes.Repeat([]byte("x"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := storeRun(t, dir, first[:3], nil); len(got) != 3 {
		t.Errorf("beside a garbled pack, found %d of 3 trees", len(got))
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("the garbled pack is still there (%v)", err)
	}
	// A tree read, then written again (it did not decode), is no longer read from its old
	// pack: a pack that held only trees written again goes.
	storeRun(t, dir, []string{"k00"}, trees("k00"))
	if packs, keys := packCount(t, dir); packs != 1 || keys != 1 {
		t.Errorf("after k00 was read and written again: %d packs, %d trees; want 1 and 1", packs, keys)
	}
	// A run that reads nothing removes every pack.
	storeRun(t, dir, nil, nil)
	if packs, _ := packCount(t, dir); packs != 0 {
		t.Errorf("%d packs left by a run that read none", packs)
	}
}

// TestTreeHandedOutOnce: a tree is handed out where it lies in its pack once per run; the
// same key asked again (the same text at another path) gets bytes of its own, as a tree
// decoded in place owns its nodes. Every tree starts at a multiple of treeAlign in its pack
// (storeRun checks it after every run, TestTreePacks' merges too).
func TestTreeHandedOutOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "trees-x")
	// Trees of odd lengths, so that each after the first needs padding to start aligned.
	write := map[string]string{"a": "tree of a", "b": "tree of bb", "c": "tree of ccc"}
	storeRun(t, dir, nil, write)
	s := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	defer s.close()
	for k, want := range write {
		ref := s.indexOf(k)
		if ref.off%treeAlign != 0 {
			t.Errorf("tree %s starts at %d in its pack", k, ref.off)
		}
		first, second := s.Get(k), s.Get(k)
		if string(first) != want || string(second) != want {
			t.Fatalf("tree %s read back as %q and %q", k, first, second)
		}
		if &first[0] == &second[0] {
			t.Errorf("tree %s handed out twice in the same bytes", k)
		}
		if m := ref.pack.data; m != nil && &first[0] != &m[ref.off] {
			t.Errorf("tree %s not handed out where its pack's mapping holds it", k)
		}
	}
}

// TestParseAhead: a file parsed ahead of the run's parse is handed to it by key, waited for
// while its parse is under way, once; the store says it holds the key meanwhile; the tree
// goes into the run's pack, for the next run. A file that cannot be read is left to the run.
func TestParseAhead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "trees-x")
	src := []byte(strings.Repeat("def f(x):\n    for b in x:\n        torch.cuda.empty_cache()\n", 3000))
	key := pyparse.TreeKey(src)
	read := func(path string) ([]byte, error) {
		if path == "gone.py" {
			return nil, os.ErrNotExist
		}
		return src, nil
	}
	s := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	wait := parseAhead(context.Background(), s, parsing{}, read, []string{"train.py", "gone.py", "copy.py"})
	if !s.Holds(key) {
		t.Error("the store does not hold a tree being parsed ahead")
	}
	tree := s.Get(key) // at once: the parse of 9,000 lines is still under way
	if tree == nil {
		t.Fatal("the tree parsed ahead was not handed out")
	}
	if f, err := pyparse.DecodeTree("train.py", src, tree); err != nil || len(f.Calls) != 3000 {
		t.Fatalf("the tree parsed ahead does not decode as the file's: %v", err)
	}
	if again := s.Get(key); again != nil {
		t.Error("a tree parsed ahead handed out twice")
	}
	wait()
	if s.aheadTaken != 1 {
		t.Errorf("%d trees parsed ahead taken, want 1", s.aheadTaken)
	}
	s.finish()
	s.close()
	next := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	defer next.close()
	if kept := next.Get(key); !bytes.Equal(kept, tree) {
		t.Errorf("the tree parsed ahead was not kept for the next run (%d bytes of %d)", len(kept), len(tree))
	}
}

// parsing is an Analysis that parses with pyparse (the analyzers' own, which this package's
// tests cannot import), for parseAhead; it has nothing else.
type parsing struct{ Analysis }

func (parsing) TreeKey(src []byte) string { return pyparse.TreeKey(src) }

func (parsing) Tree(ctx context.Context, path string, src []byte) ([]byte, error) {
	f, err := pyparse.ParseAlone(ctx, path, src)
	if err != nil {
		return nil, err
	}
	return pyparse.EncodeTree(f), nil
}

// TestParseNamedAheadStore: parseNamedAhead reads and parses the files named on goroutines
// of its own and hands their trees out as parseAhead does; a text the store keeps a tree of
// is not parsed, nor one parsed ahead already (parseAhead after it), nor one named twice.
func TestParseNamedAheadStore(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "cache", "trees-x")
	kept, edited := []byte("def f():\n    pass\n"), []byte(strings.Repeat("def g(x):\n    for b in x:\n        torch.cuda.empty_cache()\n", 2000))
	for name, src := range map[string][]byte{"kept.py": kept, "train.py": edited, "copy.py": edited} {
		if err := os.WriteFile(filepath.Join(root, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	tree, err := parsing{}.Tree(context.Background(), "kept.py", kept)
	if err != nil {
		t.Fatal(err)
	}
	first.Put(pyparse.TreeKey(kept), tree)
	first.close()
	var mu sync.Mutex
	var started []string
	testHookParsedAhead = func(path string) {
		mu.Lock()
		started = append(started, filepath.Base(path))
		mu.Unlock()
	}
	t.Cleanup(func() { testHookParsedAhead = nil })
	s := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	named := []string{filepath.Join(root, "kept.py"), filepath.Join(root, "train.py"), filepath.Join(root, "copy.py"), filepath.Join(root, "gone.py")}
	parseNamedAhead(context.Background(), s, parsing{}, named, nil)
	key := pyparse.TreeKey(edited)
	for deadline := time.Now().Add(time.Minute); !s.Holds(key); runtime.Gosched() { // read on a goroutine
		if time.Now().After(deadline) {
			t.Fatal("the named file's parse never started")
		}
	}
	// The edit's own parse ahead comes next, before the run's parse asks for the tree.
	parseAhead(context.Background(), s, parsing{}, os.ReadFile, named[1:2])()
	got := s.Get(key)
	if f, err := pyparse.DecodeTree("train.py", edited, got); err != nil || len(f.Calls) != 2000 {
		t.Fatalf("the tree parsed ahead does not decode as the file's: %v", err)
	}
	s.close()
	if !slices.Equal(started, []string{"train.py"}) {
		t.Errorf("parses started %q, want train.py's alone", started)
	}
	if s.aheadTaken != 1 {
		t.Errorf("%d trees parsed ahead taken, want 1", s.aheadTaken)
	}
	next := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	defer next.close()
	if !bytes.Equal(next.Get(key), got) {
		t.Error("the tree parsed ahead was not kept for the next run")
	}
}

// TestParseNamedAheadStopped: a parse ahead of a file named is cancelled by stop: it ends
// without a tree (the store's close waits for it), and no tree is kept for the next run.
func TestParseNamedAheadStopped(t *testing.T) {
	root := t.TempDir()
	src := []byte(strings.Repeat("def g(x):\n    for b in x:\n        torch.cuda.empty_cache()\n", 2000))
	path := filepath.Join(root, "train.py")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	testHookParsedAhead = func(string) { <-release }
	t.Cleanup(func() { testHookParsedAhead = nil })
	dir := filepath.Join(root, "cache", "trees-x")
	s := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	stop := parseNamedAhead(context.Background(), s, parsing{}, []string{path}, nil)
	stop()
	close(release)
	s.close()
	next := &treeStore{dir: dir, index: map[string]treeRef{}, used: map[treeRef]bool{}}
	defer next.close()
	if next.Holds(pyparse.TreeKey(src)) {
		t.Error("a parse ahead cancelled kept its tree")
	}
}
