package engine

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/cachelint/cachelint/internal/driver"
)

// The graph store keeps, beside a project's entry, what the analysis kept of each file it
// parsed (Facts.Graph: the analyzers' encoding), for the run after an edit: when the files
// that changed since the entry are all files it parsed, the analysis is given the store with
// the entry's needles and the files it parsed (driver.Kept) and takes from it what still
// holds. The entry names the store by its SHA-256: a store another run wrote, or one
// damaged on disk, is not read.

// graphSuffix ends the name of each entry's graph store.
const graphSuffix = ".graph"

func (rc *resultCache) graphFile() string {
	return filepath.Join(rc.dir, rc.key[:24]+graphSuffix)
}

// editedEntry is an entry that held but for the texts of some files it parsed.
type editedEntry struct {
	a *analysed
	// graph is the entry's graph store's SHA-256 (cacheEntry.Graph), lookups its
	// cacheEntry.Lookups.
	graph, lookups []byte
	// parsed are the files the entry's analysis parsed, changed those whose text changed.
	parsed, changed []string
}

// editedFiles is the edited entry of the changed parsed files (path indexes in changed),
// nil when there are none.
func editedFiles(changed *sync.Map, paths []string, stamps []fileStamp) *editedEntry {
	var e *editedEntry
	changed.Range(func(k, _ any) bool {
		if e == nil {
			e = &editedEntry{}
		}
		e.changed = append(e.changed, paths[k.(int)])
		return true
	})
	if e == nil {
		return nil
	}
	sort.Strings(e.changed)
	for i, s := range stamps {
		if s.Parsed {
			e.parsed = append(e.parsed, paths[i])
		}
	}
	return e
}

// keptGraph is what the analysis is given of an edited entry, nil when its store cannot be read.
func (rc *resultCache) keptGraph() *driver.Kept {
	e := rc.edited
	if e == nil || e.graph == nil {
		return nil
	}
	data, err := os.ReadFile(rc.graphFile())
	if err != nil {
		return nil
	}
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], e.graph) {
		return nil
	}
	lookups, err := decodeLookups(e.lookups)
	if err != nil {
		return nil
	}
	return &driver.Kept{Graph: data, Parsed: e.parsed, Changed: e.changed, Needles: e.a.Needles,
		Rounds: e.a.Rounds, ImportsAsked: e.a.ImportsAsked, Lookups: lookups}
}

// saveGraph writes the graph store and returns its SHA-256 for the entry, nil when it was not
// written; and removes the stores of other entries left untouched for treeStaleAfter.
func (rc *resultCache) saveGraph(data []byte) []byte {
	if err := prepareDir(rc.dir); err != nil {
		return nil
	}
	err := writeAtomicWith(rc.dir, rc.graphFile(), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return nil
	}
	removeStale(rc.dir, graphSuffix, rc.graphFile())
	sum := sha256.Sum256(data)
	return sum[:]
}
