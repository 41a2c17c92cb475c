package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"sort"
	"sync"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/parallel"
)

// The graph store keeps, beside a project's entry, what the analysis kept of each file it
// parsed (Facts.Graph: the analyzers' encoding), for the run after an edit: when the files
// that changed since the entry are all files it parsed, the analysis is given the store with
// the entry's needles and the files it parsed (driver.Kept) and takes from it what still
// holds. The entry names the store by its digest (graphDigest): a store another run wrote,
// or one damaged on disk, is not read.

// graphSuffix ends the name of each entry's graph store.
const graphSuffix = ".graph"

func (rc *resultCache) graphFile() string {
	return filepath.Join(rc.dir, rc.key[:24]+graphSuffix)
}

// editedEntry is an entry that held but for the texts of some files it parsed.
type editedEntry struct {
	a *analysed
	// graph is the entry's graph store's digest (cacheEntry.Graph), lookups its
	// cacheEntry.Lookups.
	graph, lookups []byte
	// parsed are the files the entry's analysis parsed, changed those whose text changed.
	parsed, changed []string
}

// editedFiles is the edited entry of the changed parsed files (path indexes in changed),
// nil when there are none unless always.
func editedFiles(changed *sync.Map, paths []string, stamps []fileStamp, always bool) *editedEntry {
	var e *editedEntry
	changed.Range(func(k, _ any) bool {
		if e == nil {
			e = &editedEntry{}
		}
		e.changed = append(e.changed, paths[k.(int)])
		return true
	})
	if e == nil && !always {
		return nil
	}
	if e == nil {
		e = &editedEntry{}
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
	data, err := readMapped(rc.graphFile())
	if err != nil {
		rc.graphMiss = fmt.Sprintf("its call graph's store could not be read: %v", err)
		return nil
	}
	if !bytes.Equal(graphDigest([][]byte{data}, rc.jobs), e.graph) {
		rc.graphMiss = "its call graph's store is not the one its entry wrote (changed on disk, or another run's)"
		return nil
	}
	lookups, err := decodeLookups(e.lookups)
	if err != nil {
		rc.graphMiss = fmt.Sprintf("its lookups could not be read: %v", err)
		return nil
	}
	return &driver.Kept{Graph: data, Parsed: e.parsed, Changed: e.changed, Needles: e.a.Needles,
		Rounds: e.a.Rounds, ImportsAsked: e.a.ImportsAsked, Lookups: lookups}
}

// saveGraph writes the graph store, its pieces one after another, and removes the stores of
// other entries left untouched for treeStaleAfter; a store that cannot be written is left
// out (graphDigest names it in the entry).
func (rc *resultCache) saveGraph(pieces [][]byte) {
	if err := prepareDir(rc.dir); err != nil {
		return
	}
	err := writeAtomicWith(rc.dir, rc.graphFile(), func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, digestBlock)
		for _, p := range pieces {
			if _, err := bw.Write(p); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return
	}
	removeStale(rc.dir, graphSuffix, rc.graphFile())
}

// graphDigest names a graph store's contents (the pieces put together): the CRC-32C and the
// CRC-32 (IEEE) of each block of digestBlock bytes, read on jobs goroutines, and those of
// the blocks' checksums in order; 64 bits from two polynomials, as the entry's other stores
// are checked by CRC-32C. A store's SHA-256, on one goroutine while it was written and again
// while it was read, was a quarter of an edited run's time over large installed packages
// (a store of 52 MB there; SHA-256 hashes 1.7 GB/s on this machine, the two CRCs 7 and 24
// GB/s).
func graphDigest(pieces [][]byte, jobs int) []byte {
	// Each block's parts of the pieces, in order.
	var blocks [][][]byte
	at := 0
	for _, p := range pieces {
		for len(p) > 0 {
			i := at / digestBlock
			if i == len(blocks) {
				blocks = append(blocks, nil)
			}
			n := min(len(p), (i+1)*digestBlock-at)
			blocks[i] = append(blocks[i], p[:n])
			p, at = p[n:], at+n
		}
	}
	sums := make([]byte, 8*len(blocks))
	parallel.For(len(blocks), jobs, func(_, i int) {
		var c, e uint32
		for _, b := range blocks[i] {
			c, e = crc32.Update(c, entryCRC, b), crc32.Update(e, crc32.IEEETable, b)
		}
		binary.BigEndian.PutUint32(sums[8*i:], c)
		binary.BigEndian.PutUint32(sums[8*i+4:], e)
	})
	d := binary.BigEndian.AppendUint32(nil, crc32.Checksum(sums, entryCRC))
	return binary.BigEndian.AppendUint32(d, crc32.ChecksumIEEE(sums))
}

// digestBlock is the size of graphDigest's blocks.
const digestBlock = 1 << 20
