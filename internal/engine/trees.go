package engine

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// treeStore keeps the parsed trees of one project's files between runs, by their key
// (pyparse.TreeKey: the hash of the text, the tree encoding and the grammar), in a folder of
// the cache beside the project's entry. When the entry no longer holds (a file that mattered
// changed), the analysis runs again, but tree-sitter parses only the files whose text the
// store has not seen: a commit that edits one of the hundreds of files a run parses re-parses
// that one. Trees are facts of the text alone, so a tree written by any run is right for any
// other; a missing, cut or garbled one is parsed again (pyparse.DecodeTree checks it against
// the text).
//
// The trees sit in pack files, not one file each: creating a file cost 0.3 ms on a virtual
// disk, 0.6 s of a first run that kept 1,808 trees. A run writes the trees it parsed into
// one new pack, renamed into place once whole (see treePack for the layout), and reads the
// others' trees by offset; a key in several packs is read from the newest. Once a run ends
// well, packs it read nothing from are removed, and when packs multiply the smaller ones'
// trees still in use are merged into one.
type treeStore struct {
	dir string

	mu      sync.Mutex
	made    bool // dir exists
	loaded  bool
	index   map[string]treeRef // key -> where the newest pack keeps it
	packs   []*treePack        // the packs found when the run started, oldest first
	used    map[treeRef]bool   // trees of those packs read this run
	out     *treePack          // the pack this run writes, nil until its first tree
	outFile *os.File
	outBuf  *bufio.Writer
	done    bool // out is written and renamed into place (or given up)
	// ahead are the trees parsed ahead of the run's parse (parseAhead) by key, each handed
	// out once; pending are those still being parsed, each closed when its parse is over.
	ahead   map[string][]byte
	pending map[string]chan struct{}
	// aheadTaken counts the trees parsed ahead that Get handed out: the run decodes them,
	// but they were parsed, not kept.
	aheadTaken int
	// parsing are the goroutines parsing ahead (parseAhead, parseNamedAhead): close waits
	// for them.
	parsing sync.WaitGroup
}

// treeRef is where a pack keeps one tree.
type treeRef struct {
	pack   *treePack
	off, n int64
}

// treePack is one pack file: its trees back to back, then its index (for each tree, in
// order: the key's length and the key, the tree's offset and its length, each a uvarint),
// then the index's length (8 bytes, big-endian), the index's CRC-32C (4 bytes) and packMagic.
// Each tree carries its own checksum (pyparse.EncodeTree).
//
// A pack read is mapped into memory whole where the system can (mapPack), and Get hands out
// its trees there: reading the trees into buffers of their own cost an edited run a page
// fault for every 4 KB of them (diffusers: 45 MB of trees, a third of the run's faults,
// which were a fifth of its CPU time) and a copy. Each tree starts at a multiple of
// treeAlign in the pack, so that it can be taken where it lies.
type treePack struct {
	path string
	f    *os.File
	data []byte // the pack's mapping, nil when not mapped
	keys []string
	refs []treeRef
}

// treeAlign is the alignment of each tree in a pack (a tree's array of nodes, inside it, is
// aligned as much: pyparse.EncodeTree).
const treeAlign = 8

const packMagic = "cachelint-treepack-1\n"

// packPrefix and packSuffix frame a pack's name; between them its creation time in
// nanoseconds (20 digits, so that names sort by age) and a random part.
const (
	packPrefix = "pack-"
	packSuffix = ".pack"
)

// maxPacks is how many packs a folder holds before the smaller ones are merged.
const maxPacks = 8

// treeStaleAfter is how long the tree folder of another entry (another version or
// configuration) is kept untouched before a run removes it.
const treeStaleAfter = 7 * 24 * time.Hour

// treePrefix starts the name of each entry's tree folder.
const treePrefix = "trees-"

func (rc *resultCache) trees() *treeStore {
	if rc.store == nil {
		rc.store = &treeStore{dir: filepath.Join(rc.dir, treePrefix+rc.key[:24]), index: map[string]treeRef{}, used: map[treeRef]bool{}}
	}
	return rc.store
}

// load reads the index of every pack in the folder, once; a pack that does not read is
// left out (and removed by prune).
func (s *treeStore) load() {
	if s.loaded {
		return
	}
	s.loaded = true
	names, _ := filepath.Glob(filepath.Join(s.dir, packPrefix+"*"+packSuffix))
	slices.Sort(names)
	for _, name := range names {
		p, err := openPack(name)
		if err != nil {
			s.packs = append(s.packs, &treePack{path: name})
			continue
		}
		s.packs = append(s.packs, p)
		for i, k := range p.keys {
			s.index[k] = p.refs[i]
		}
	}
}

// openPack opens a pack and reads its index.
func openPack(path string) (p *treePack, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	tail := int64(8 + 4 + len(packMagic))
	if size < tail {
		return nil, errCorruptPack
	}
	trailer := make([]byte, tail)
	if _, err := f.ReadAt(trailer, size-tail); err != nil {
		return nil, err
	}
	if string(trailer[12:]) != packMagic {
		return nil, errCorruptPack
	}
	n := binary.BigEndian.Uint64(trailer)
	if n > uint64(size-tail) {
		return nil, errCorruptPack
	}
	index := make([]byte, n)
	start := size - tail - int64(n)
	if _, err := f.ReadAt(index, start); err != nil {
		return nil, err
	}
	if crc32.Checksum(index, entryCRC) != binary.BigEndian.Uint32(trailer[8:]) {
		return nil, errCorruptPack
	}
	p = &treePack{path: path, f: f}
	if data, err := mapPack(f, size); err == nil {
		p.data = data
	}
	for len(index) > 0 {
		klen, k := binary.Uvarint(index)
		if k <= 0 || klen > uint64(len(index)-k) {
			return nil, errCorruptPack
		}
		key := string(index[k : k+int(klen)])
		index = index[k+int(klen):]
		off, k1 := binary.Uvarint(index)
		if k1 <= 0 {
			return nil, errCorruptPack
		}
		index = index[k1:]
		length, k2 := binary.Uvarint(index)
		if k2 <= 0 || off > uint64(start) || length > uint64(start)-off {
			return nil, errCorruptPack
		}
		index = index[k2:]
		p.keys = append(p.keys, key)
		p.refs = append(p.refs, treeRef{pack: p, off: int64(off), n: int64(length)})
	}
	return p, nil
}

// readMapped is the whole of a store the cache replaces whole, never changes in place (it
// writes a new one and renames it there: the graph and signature stores), mapped into
// memory where the system can (mapPack), read otherwise: a store read into a fresh buffer
// is that many pages to fault in and fill (an edited run of diffusers read 6 MB of them).
// The mapping stays for the rest of the process, as a pack's does.
func readMapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if size := fi.Size(); size > 0 && size == int64(int(size)) {
		if data, err := mapPack(f, size); err == nil {
			return data, nil
		}
	}
	return io.ReadAll(f)
}

var errCorruptPack = errors.New("corrupt tree pack")

// Get returns the tree stored under key, nil when there is none. A tree being parsed ahead
// (parseAhead) is waited for.
func (s *treeStore) Get(key string) []byte {
	s.mu.Lock()
	if done, ok := s.pending[key]; ok {
		s.mu.Unlock()
		<-done
		s.mu.Lock()
	}
	if tree, ok := s.ahead[key]; ok {
		delete(s.ahead, key)
		s.aheadTaken++
		s.mu.Unlock()
		return tree
	}
	s.load()
	ref, ok := s.index[key]
	again := s.used[ref]
	if ok && ref.pack.data != nil {
		s.used[ref] = true // a read of the mapping cannot fail
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	var data []byte
	if m := ref.pack.data; m != nil && !again {
		data = m[ref.off : ref.off+ref.n : ref.off+ref.n]
	} else {
		// A tree handed out before is another file's (the same text at two paths): the
		// File decoded from it owns its nodes, so this one is a copy.
		data = make([]byte, ref.n)
		if m != nil {
			copy(data, m[ref.off:])
		} else if _, err := ref.pack.f.ReadAt(data, ref.off); err != nil {
			return nil
		}
	}
	s.mu.Lock()
	s.used[ref] = true
	s.mu.Unlock()
	return data
}

// Holds reports whether the store holds a tree under key (a parse asks, to parse the files
// whose tree it does not hold first).
func (s *treeStore) Holds(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	_, ok := s.index[key]
	_, pending := s.pending[key]
	_, ahead := s.ahead[key]
	return ok || pending || ahead
}

// parseAhead parses the files of paths (those an edit changed), each on a goroutine of its
// own, while the run gets to its parse, and hands their trees to it through s (Get waits
// for a tree still being parsed) and keeps them in this run's pack: on 16 cores, unsloth's
// edited llama.py (130 KB) was parsed by one goroutine for 38 ms while the others had no
// kept tree left to decode. A file that cannot be read or parsed is left to the run's
// parse, one whose text s holds a tree of (kept, or parsed ahead already) is not parsed.
// wait returns once every parse is over.
func parseAhead(ctx context.Context, s *treeStore, an Analysis, read func(path string) ([]byte, error), paths []string) (wait func()) {
	var wg sync.WaitGroup
	for _, path := range paths {
		if src, err := read(path); err == nil {
			s.parseAheadOf(ctx, an, &wg, path, src)
		}
	}
	return wg.Wait
}

// parseNamedAhead is parseAhead of the files named on the command line, started before the
// walk that tells which files changed: pre-commit names the files a commit changed, and
// their parse (unsloth's llama.py: 22-29 ms of one goroutine, the longest of an edited run)
// can run alongside the walk, the entry's load and the kept trees' reading rather than
// start after the first two. Everything, reading the files and the store's index included,
// is done on goroutines. A file is parsed only when want says the run may parse it (nil:
// always), and a named file whose text has a kept tree costs a read and a hash. The store's
// close waits for the parses; parseAhead skips what they parse. stop cancels them: a run
// that needs no parse (its entry holds: the files named matter to nothing) need not wait.
func parseNamedAhead(ctx context.Context, s *treeStore, an Analysis, paths []string, want func(src []byte) bool) (stop func()) {
	if testHookParseNamed != nil {
		testHookParseNamed(paths)
	}
	ctx, stop = context.WithCancel(ctx)
	s.parsing.Go(func() {
		var wg sync.WaitGroup
		for _, path := range paths {
			if ctx.Err() != nil {
				break
			}
			if src, err := os.ReadFile(path); err == nil && (want == nil || want(src)) {
				s.parseAheadOf(ctx, an, &wg, path, src)
			}
		}
		wg.Wait()
	})
	return stop
}

// parseAheadOf parses src, path's text, on a goroutine of wg unless s holds its tree
// already or it is being parsed; Get hands its tree out once, and it is kept in this run's
// pack unless the pack was finished before the parse ended (a tree the run did not ask for:
// a run that ends well finishes its pack without waiting for such a parse).
func (s *treeStore) parseAheadOf(ctx context.Context, an Analysis, wg *sync.WaitGroup, path string, src []byte) {
	key := an.TreeKey(src)
	s.mu.Lock()
	s.load()
	_, kept := s.index[key]
	_, pending := s.pending[key]
	_, ahead := s.ahead[key]
	if kept || pending || ahead || s.done {
		s.mu.Unlock()
		return // the same text at another path, or parsed before
	}
	if s.pending == nil {
		s.pending, s.ahead = map[string]chan struct{}{}, map[string][]byte{}
	}
	done := make(chan struct{})
	s.pending[key] = done
	s.mu.Unlock()
	if testHookParsedAhead != nil {
		testHookParsedAhead(path)
	}
	s.parsing.Add(1)
	wg.Go(func() {
		defer s.parsing.Done()
		var tree []byte
		defer func() {
			s.mu.Lock()
			if tree != nil {
				s.ahead[key] = tree
			}
			delete(s.pending, key)
			s.mu.Unlock()
			close(done)
			if tree != nil {
				s.Put(key, tree)
			}
		}()
		tree, _ = an.Tree(ctx, path, src)
	})
}

// testHookParsedAhead, set by tests, sees each file whose parse ahead starts.
var testHookParsedAhead func(path string)

// Put stores a tree in this run's pack; a tree that cannot be written is left out (the
// next run parses again).
func (s *treeStore) Put(key string, tree []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	if old, ok := s.index[key]; ok {
		delete(s.used, old) // what it held did not decode: this tree replaces it
	}
	if s.done {
		return
	}
	if s.out == nil {
		if !s.made {
			if prepareDir(filepath.Dir(s.dir)) != nil || os.MkdirAll(s.dir, 0o755) != nil {
				s.done = true
				return
			}
			s.made = true
		}
		f, err := os.CreateTemp(s.dir, ".tmp-*")
		if err != nil {
			s.done = true
			return
		}
		s.out, s.outFile, s.outBuf = &treePack{}, f, bufio.NewWriterSize(f, 1<<16)
	}
	end := int64(0)
	if n := len(s.out.refs); n > 0 {
		end = s.out.refs[n-1].off + s.out.refs[n-1].n
	}
	off, err := writeAligned(s.outBuf, end, tree)
	if err != nil {
		s.abandon()
		return
	}
	s.out.keys = append(s.out.keys, key)
	s.out.refs = append(s.out.refs, treeRef{pack: s.out, off: off, n: int64(len(tree))})
}

// abandon gives up this run's pack (with the lock held).
func (s *treeStore) abandon() {
	if s.outFile != nil {
		s.outFile.Close()
		os.Remove(s.outFile.Name())
	}
	s.out, s.outFile, s.outBuf, s.done = nil, nil, nil, true
}

// finish writes this run's pack's index and puts the pack in place; it is called once the
// run has parsed all it will (again: a no-op).
func (s *treeStore) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	s.done = true
	if s.out == nil {
		return
	}
	err := writePackEnd(s.outBuf, s.out)
	if err == nil {
		err = s.outFile.Close()
	} else {
		s.outFile.Close()
	}
	name := filepath.Join(s.dir, packName())
	if err == nil {
		err = os.Rename(s.outFile.Name(), name)
	}
	if err != nil {
		os.Remove(s.outFile.Name())
		s.out = nil
		return
	}
	s.out.path = name
	s.outFile, s.outBuf = nil, nil
}

// writeAligned writes tree to w, which has end bytes so far, after the zeros that start it at
// a multiple of treeAlign, and returns where it starts.
func writeAligned(w io.Writer, end int64, tree []byte) (int64, error) {
	var zeros [treeAlign]byte
	pad := -end & (treeAlign - 1)
	if _, err := w.Write(zeros[:pad]); err != nil {
		return 0, err
	}
	_, err := w.Write(tree)
	return end + pad, err
}

// writePackEnd writes p's index and the pack's trailer to w and flushes it.
func writePackEnd(w *bufio.Writer, p *treePack) error {
	var index []byte
	for i, k := range p.keys {
		index = binary.AppendUvarint(index, uint64(len(k)))
		index = append(index, k...)
		index = binary.AppendUvarint(index, uint64(p.refs[i].off))
		index = binary.AppendUvarint(index, uint64(p.refs[i].n))
	}
	if _, err := w.Write(index); err != nil {
		return err
	}
	trailer := binary.BigEndian.AppendUint64(nil, uint64(len(index)))
	trailer = binary.BigEndian.AppendUint32(trailer, crc32.Checksum(index, entryCRC))
	if _, err := w.Write(append(trailer, packMagic...)); err != nil {
		return err
	}
	return w.Flush()
}

// packName names a new pack: its creation time, so that names sort by age, and a random
// part for runs at the same instant.
func packName() string {
	return fmt.Sprintf("%s%020d-%08x%s", packPrefix, time.Now().UnixNano(), rand.Uint32(), packSuffix)
}

// prune, once a run has ended well (after finish), removes the packs it read no tree from
// (files changed or gone since: the folder holds what the next run can reuse), merges the
// smaller packs' trees this run used into one when the folder holds more than maxPacks
// (each edited run adds a small pack), and removes the tree folders of other entries left
// untouched for treeStaleAfter.
func (s *treeStore) prune() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	var kept []*treePack
	for _, p := range s.packs {
		live := slices.ContainsFunc(p.refs, func(r treeRef) bool { return s.used[r] })
		if !live {
			s.closePack(p)
			_ = os.Remove(p.path)
			continue
		}
		kept = append(kept, p)
	}
	if s.out != nil && s.out.path != "" {
		kept = append(kept, s.out)
	}
	if len(kept) > 0 {
		// The largest pack (the first run's, usually) stays as it is while most of its
		// trees are still read; the others are merged once they multiply.
		largest := kept[0]
		for _, p := range kept {
			if len(p.refs) > len(largest.refs) {
				largest = p
			}
		}
		live := 0
		for _, r := range largest.refs {
			if largest == s.out || s.used[r] {
				live++
			}
		}
		switch {
		case 2*live < len(largest.refs):
			s.merge(kept, nil)
		case len(kept) > maxPacks:
			s.merge(kept, largest)
		}
	}
	removeStaleTemps(s.dir)
	others, _ := filepath.Glob(filepath.Join(filepath.Dir(s.dir), treePrefix+"*"))
	for _, o := range others {
		if fi, err := os.Stat(o); err == nil && o != s.dir && fi.IsDir() && time.Since(fi.ModTime()) > treeStaleAfter {
			_ = os.RemoveAll(o)
		}
	}
}

// merge writes the trees this run used from every pack of packs but keep (nil: every one)
// into one new pack and removes those packs (with the lock held). A pack that cannot be
// read or written leaves the folder as it was.
func (s *treeStore) merge(packs []*treePack, keep *treePack) {
	f, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return
	}
	w := bufio.NewWriterSize(f, 1<<16)
	merged := &treePack{}
	off := int64(0)
	var from []*treePack
	for _, p := range packs {
		if p == keep {
			continue
		}
		from = append(from, p)
		for i, r := range p.refs {
			if p != s.out && !s.used[r] {
				continue
			}
			data, err := s.read(r)
			at := off
			if err == nil {
				at, err = writeAligned(w, off, data)
			}
			if err != nil {
				f.Close()
				os.Remove(f.Name())
				return
			}
			merged.keys = append(merged.keys, p.keys[i])
			merged.refs = append(merged.refs, treeRef{pack: merged, off: at, n: r.n})
			off = at + r.n
		}
	}
	err = writePackEnd(w, merged)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(s.dir, packName()))
	}
	if err != nil {
		os.Remove(f.Name())
		return
	}
	for _, p := range from {
		s.closePack(p)
		_ = os.Remove(p.path)
	}
}

// read returns the bytes of r, from its pack's mapping or file (this run's own pack is read
// by name: its writer is closed).
func (s *treeStore) read(r treeRef) ([]byte, error) {
	if r.pack.data != nil {
		return r.pack.data[r.off : r.off+r.n], nil
	}
	f := r.pack.f
	if f == nil {
		var err error
		if f, err = os.Open(r.pack.path); err != nil {
			return nil, err
		}
		defer f.Close()
	}
	data := make([]byte, r.n)
	_, err := f.ReadAt(data, r.off)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return data, err
}

func (s *treeStore) closePack(p *treePack) {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}

// close finishes this run's pack if that is not done yet and closes every pack the run
// opened.
func (s *treeStore) close() {
	s.parsing.Wait()
	s.finish()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.packs {
		s.closePack(p)
	}
}
