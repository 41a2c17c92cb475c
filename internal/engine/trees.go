package engine

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// treeStore keeps the parsed trees of one project's files between runs, one file per tree
// named by its key (pyparse.TreeKey: the hash of the text, the tree encoding and the
// grammar), in a folder of the cache beside the project's entry. When the entry no longer
// holds (a file that mattered changed), the analysis runs again, but tree-sitter parses only
// the files whose text the store has not seen: a commit that edits one of the hundreds of
// files a run parses re-parses that one. Trees are facts of the text alone, so an entry
// written by any run is right for any other; a missing, cut or garbled one is parsed again
// (pyparse.DecodeTree checks it against the text).
type treeStore struct {
	dir string

	mu   sync.Mutex
	made bool            // dir exists
	used map[string]bool // keys read or written this run
}

// treeStaleAfter is how long the tree folder of another entry (another version or
// configuration) is kept untouched before a run removes it.
const treeStaleAfter = 7 * 24 * time.Hour

// treePrefix starts the name of each entry's tree folder.
const treePrefix = "trees-"

func (rc *resultCache) trees() *treeStore {
	return &treeStore{dir: filepath.Join(rc.dir, treePrefix+rc.key[:24]), used: map[string]bool{}}
}

func (s *treeStore) mark(key string) {
	s.mu.Lock()
	s.used[key] = true
	s.mu.Unlock()
}

// Get returns the tree stored under key, nil when there is none.
func (s *treeStore) Get(key string) []byte {
	data, err := os.ReadFile(filepath.Join(s.dir, key))
	if err != nil {
		return nil
	}
	s.mark(key)
	return data
}

// Put stores a tree; a tree that cannot be written is left out (the next run parses again).
func (s *treeStore) Put(key string, tree []byte) {
	s.mu.Lock()
	if !s.made {
		if prepareDir(filepath.Dir(s.dir)) == nil && os.MkdirAll(s.dir, 0o755) == nil {
			s.made = true
		}
	}
	made := s.made
	s.mu.Unlock()
	if made && writeAtomic(s.dir, filepath.Join(s.dir, key), tree) == nil {
		s.mark(key)
	}
}

// prune removes the trees this run neither read nor wrote (files changed or gone since:
// the folder holds what the next run can reuse, and no more), and the tree folders of other
// entries left untouched for treeStaleAfter.
func (s *treeStore) prune() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if entries, err := os.ReadDir(s.dir); err == nil {
		for _, e := range entries {
			if name := e.Name(); !s.used[name] && !strings.HasPrefix(name, ".tmp-") {
				_ = os.Remove(filepath.Join(s.dir, name))
			}
		}
		removeStaleTemps(s.dir)
	}
	others, _ := filepath.Glob(filepath.Join(filepath.Dir(s.dir), treePrefix+"*"))
	for _, o := range others {
		if fi, err := os.Stat(o); err == nil && o != s.dir && fi.IsDir() && time.Since(fi.ModTime()) > treeStaleAfter {
			_ = os.RemoveAll(o)
		}
	}
}
