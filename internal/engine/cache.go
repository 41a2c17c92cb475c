package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cachelint/cachelint/internal/parallel"
	"github.com/cachelint/cachelint/internal/report"
)

// Cache says where a run's analysis is kept between runs, in the way of ruff's
// .ruff_cache: one entry per project root, working directory and configuration, replaced
// atomically, read by any number of concurrent runs.
//
// An entry records every file of the analysis scope (size, modification time, and for the
// files that were parsed a SHA-256 of their text), the needles the prefilter searched for,
// the questions the analysis asked about unparsed files' imports, and what the analyzers
// found. A later run reuses it when the same files exist and none that mattered changed: a
// parsed file's text must hash the same, and a file that was not parsed must still mention
// none of the needles and answer those questions as before (Analysis.Matcher). The analysis
// is a function of exactly those (the prefilter's rounds parse the files that mention the
// needles found in files already parsed, and the modules whose imports may bind a function
// a parsed file calls through them), so a reused entry is what the run would have found;
// any other change runs the analysis again (when only parsed files changed, the analysis is
// given what the entry's analysis kept of each parsed file, graph.go). Files whose size and
// modification time are unchanged are not read; a time within two seconds of the run that
// wrote the entry is never trusted (a file changed in the same clock tick).
type Cache struct {
	// Dir is the cache folder; "" means .cachelint_cache in the project root.
	Dir string
	// Version identifies the analysis (cachelint's version and build): an entry written
	// by another version is not read.
	Version string
}

// cacheTag marks a folder as cachelint's cache (the Cache Directory Tagging Specification's
// signature, then who wrote it): CleanCaches removes only folders that carry it.
const cacheTag = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by cachelint.\n"

// DefaultCacheDir is the cache folder's name in the project root.
const DefaultCacheDir = ".cachelint_cache"

// cacheFormat changes whenever an entry's layout does. An entry is cacheFormat, the length
// of its head (8 bytes, big-endian) and the head's CRC-32C (4 bytes), the head (a gob
// cacheEntry without the call records), the call records (gob []report.CallRecord messages
// of callsPerChunk records each) and their CRC-32C (4 bytes): `check` reads the head only,
// and the records, most of an entry (3.5 MB of unsloth's), only `calls` and `trace` decode.
// The checksums make an entry changed on disk a miss: gob reads most changed bytes as other
// values (one bit flipped in a small entry was trusted, giving other findings, one time in
// five).
const cacheFormat = "cachelint-cache-9\n"

// cacheEntry is one cache file.
type cacheEntry struct {
	Key string
	// Paths is the SHA-256 of the analysis scope's paths (pathsHash); List the paths
	// (appendList), read only when the run's differ, and Lookups what the analysis looked up
	// of them (Facts.Lookups: the paths, then the suffixes, each an appendList), for a scope
	// with files added or removed (scope.go).
	Paths, List, Lookups []byte
	// Stamps are the files' stamps in the paths' order (appendStamps). A table, not a map by
	// path: decoding a gob map of 11,800 paths was a third of a warm run's serial work.
	Stamps []byte
	A      *analysed
	// Calls is the number of call records after the head: an entry cut between two of
	// their messages is told from a whole one.
	Calls int
	// Graph is the digest of the graph store written with the entry (graphDigest), nil when
	// none was: a store of another run is not read.
	Graph []byte
}

// fileStamp is what a later run compares a file against.
type fileStamp struct {
	Size, ModNs int64
	// Parsed files carry the SHA-256 of their text as analysed (a notebook's program).
	Parsed bool
	Hash   [32]byte
}

// resultCache is the cache as one run uses it.
type resultCache struct {
	ctx    context.Context
	dir    string
	file   string // the entry's path
	key    string
	pr     *project
	paths  []string
	jobs   int
	start  time.Time
	stamps []fileStamp // of paths, taken before anything is read
	statOK []bool
	// head is the entry, read while the walk runs (openCache).
	head *entryRead
	// kept marks the paths whose signatures were read from the store, their stamps holding.
	kept []bool
	// reread is how many files load read again and found changed (or touched) in nothing
	// the entry's analysis read of them.
	reread int
	// miss says why the entry did not hold, in words ("" when there was none, or it held).
	miss string
	// added and removed count the files of the scope that the entry load took did not have,
	// and those it had that the scope has not.
	added, removed int
	// entryStamps are the stamps the entry recorded, in the paths' order (nil when load
	// read none): keptHash's.
	entryStamps []fileStamp
	// edited, when load found that only parsed files changed, is the entry and those
	// files, for a run that takes what the entry's analysis kept (keptGraph).
	edited *editedEntry
	// graphMiss says why keptGraph could not give such a run the kept graph ("" when it
	// did, or there was none to give).
	graphMiss string
	// store is the run's tree store (trees), made on first use; stopNamed, when set,
	// cancels the parses ahead of the files named (parseNamedAhead).
	store     *treeStore
	stopNamed func()
	// match is the entry's analysis's Matcher, made once for mayParse.
	matchOnce sync.Once
	match     func(src []byte, asked map[string]bool) bool
}

// openCache names the entry of this run and starts reading it (readEntryAsync); stat takes
// the files' stamps once they are walked.
func openCache(ctx context.Context, c *Cache, pr *project, jobs int, start time.Time) *resultCache {
	dir := c.Dir
	if dir == "" {
		dir = filepath.Join(pr.root, DefaultCacheDir)
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(pr.cwd, dir)
	}
	rc := &resultCache{ctx: ctx, dir: dir, pr: pr, jobs: jobs, start: start}
	rc.key = rc.keyOf(c.Version)
	rc.file = filepath.Join(dir, rc.key[:24]+".bin")
	rc.head = readEntryAsync(rc.file)
	return rc
}

// testHookReread, set by tests, runs as load reads a file again to compare it.
var testHookReread func()

// gcPauses counts the callers of pauseGC that have not resumed, across goroutines and runs.
var gcPauses struct {
	sync.Mutex
	n       int
	percent int   // the setting the first pause found
	holds   int   // the holds (holdGC) not released
	limit   int64 // the memory limit the first hold found
}

// pauseGC turns the collector off until the returned function is called (once is enough;
// more calls do nothing). Pauses nest: the setting comes back when the last one resumes, so
// that runs in one process cannot leave it off.
func pauseGC() (resume func()) {
	gcPauses.Lock()
	if gcPauses.n == 0 {
		gcPauses.percent = debug.SetGCPercent(-1)
	}
	gcPauses.n++
	gcPauses.Unlock()
	return sync.OnceFunc(func() {
		gcPauses.Lock()
		gcPauses.n--
		if gcPauses.n == 0 {
			debug.SetGCPercent(gcPauses.percent)
		}
		gcPauses.Unlock()
	})
}

// analysisPause is the pause the analysis may ask for (driver.Settings.PauseGC); tests
// count it.
var analysisPause = pauseGC

// holdHeadroom is the least memory a hold lets the process allocate before the collector
// runs: an edited run of a small project allocates some 20-40 MB after reading its trees
// back (diffusers: 22 MB after 58 MB read back; collecting it took 20 of 250 ms on 2 CPUs,
// 21 alternating runs, for 14 MB more at the peak).
const holdHeadroom = 64 << 20

// analysisHold is the hold the analysis may ask for (driver.Settings.HoldGC).
var analysisHold = holdGC

// holdGC pauses the collector (pauseGC) for the rest of an analysis that keeps most of what
// it allocates, and meanwhile limits the process's memory to what it holds now and half as
// much again (what collecting at 50% growth, the CLI's setting, would let it reach), or
// holdHeadroom more if that is more, so that an analysis that allocates more than it was
// expected to is collected still; never above the limit the process had (GOMEMLIMIT).
// Holds nest as pauses do: each raises the limit to what its own start allows, and the
// limit the first found comes back when the last is released.
func holdGC() (release func()) {
	resume := pauseGC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	held := int64(ms.Sys - ms.HeapReleased)
	limit := held + max(held/2, holdHeadroom)
	gcPauses.Lock()
	if gcPauses.holds == 0 {
		gcPauses.limit = debug.SetMemoryLimit(-1)
	}
	// Never above the limit the process had (GOMEMLIMIT): a hold only lowers it.
	if limit = min(limit, gcPauses.limit); gcPauses.holds == 0 || limit > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
	gcPauses.holds++
	gcPauses.Unlock()
	return sync.OnceFunc(func() {
		gcPauses.Lock()
		gcPauses.holds--
		if gcPauses.holds == 0 {
			debug.SetMemoryLimit(gcPauses.limit)
		}
		gcPauses.Unlock()
		resume()
	})
}

// entryRead is a cache entry's head read and decoded on a goroutine of its own, started before
// the walk: on 16 cores decoding the 15-project tree's head took 2.4 ms of a 25 ms warm run,
// serial after the walk. The file stays open for the call records (load).
type entryRead struct {
	done  chan struct{}
	f     *os.File
	e     *cacheEntry
	taken bool
}

func readEntryAsync(file string) *entryRead {
	r := &entryRead{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		f, err := os.Open(file)
		if err != nil {
			return
		}
		head, err := readHead(f)
		if err != nil {
			f.Close()
			return
		}
		// Decoding allocates memory that all stays live: Run keeps the collector off until
		// load has taken the entry (collecting while it decoded was a fifth of a warm run).
		e, err := decodeEntry(head)
		if err != nil {
			f.Close()
			return
		}
		r.f, r.e = f, e
	}()
	return r
}

// take waits for the read and hands over the open file and the entry (nil, nil: a miss).
func (r *entryRead) take() (*os.File, *cacheEntry) {
	<-r.done
	r.taken = true
	return r.f, r.e
}

// release closes the entry when nobody took it; once is enough, more calls do nothing.
func (r *entryRead) release() {
	<-r.done
	if !r.taken && r.f != nil {
		r.f.Close()
	}
	r.taken = true
}

// stat takes the stamps of the run's files (pr.paths, pr.walked), before anything is read.
func (rc *resultCache) stat() {
	pr := rc.pr
	rc.paths = pr.paths
	rc.stamps = make([]fileStamp, len(rc.paths))
	rc.statOK = make([]bool, len(rc.paths))
	rc.each(func(i int) {
		f := &pr.walked[i]
		if f.Stated {
			// Stated while the walk listed its directory, after start: a time too close
			// to that is not trusted (settle), as for a stat here.
			rc.stamps[i] = fileStamp{Size: f.Size, ModNs: f.ModNs}
			rc.statOK[i] = true
			return
		}
		if fi, err := os.Stat(f.Abs); err == nil {
			rc.stamps[i] = fileStamp{Size: fi.Size(), ModNs: fi.ModTime().UnixNano()}
			rc.statOK[i] = true
		}
	})
}

// keyOf hashes what the analysis depends on besides the files: the version, the project
// root and working directory (paths are kept as shown), and the configuration.
func (rc *resultCache) keyOf(version string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s%s\x00%s\x00%s\x00", cacheFormat, version, rc.pr.root, rc.pr.cwd)
	if cfg, err := json.Marshal(rc.pr.cfg); err == nil {
		h.Write(cfg)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// each runs fn for every path index on the run's workers.
func (rc *resultCache) each(fn func(i int)) {
	parallel.For(len(rc.paths), rc.jobs, func(_, i int) { fn(i) })
}

// load returns the cached analysis when it still holds, nil otherwise. A missing,
// unreadable, corrupt or foreign entry is a miss, never an error. resume turns the
// collector back on (pauseGC) once the entry is decoded: the files read below to compare
// them are garbage at once (a checkout that touched every file has them all read).
func (rc *resultCache) load(wantCalls bool, resume func()) (held *analysed) {
	defer func() {
		if held == nil && rc.edited == nil {
			rc.added, rc.removed = 0, 0 // counted for an entry that held, not for a miss
		}
	}()
	// The entry stays open until its records are read: an entry another run renames over
	// this one meanwhile leaves this file's contents as they were.
	f, e := rc.head.take()
	resume()
	if f == nil {
		return nil
	}
	defer f.Close()
	if e.Key != rc.key || e.A == nil {
		return nil
	}
	var stamps []fileStamp
	pathsHash := rc.pathsHash()
	rescoped := !bytes.Equal(e.Paths, pathsHash)
	if rescoped {
		sc, why := rc.rescope(e)
		if why != "" {
			rc.miss = why
			return nil
		}
		stamps, rc.added, rc.removed = sc.stamps, sc.added, sc.removed
	} else {
		var err error
		if stamps, err = decodeStamps(e.Stamps, len(rc.paths)); err != nil {
			return nil
		}
	}
	rc.entryStamps = stamps
	// The call records are read only for a run that shows them (`calls`) or rewrites the
	// entry; a rewrite copies them as read, without decoding and encoding them again.
	var records []byte
	readRecords := func() bool {
		if records == nil {
			b, err := io.ReadAll(f)
			if err != nil || len(b) < 4 {
				return false
			}
			body, sum := b[:len(b)-4], b[len(b)-4:]
			if crc32.Checksum(body, entryCRC) != binary.BigEndian.Uint32(sum) {
				return false
			}
			records = body
		}
		return true
	}
	calls := func() bool {
		if !readRecords() {
			return false
		}
		defer pauseGC()()
		c, err := decodeCalls(bytes.NewReader(records), e.Calls)
		if err != nil {
			return false
		}
		e.A.Calls = c
		return true
	}
	if wantCalls && !calls() {
		return nil
	}
	match := rc.pr.an.Matcher(e.A.Needles)
	var stale sync.Map                // path index -> refreshed stamp
	var missed atomic.Pointer[string] // why, in words
	miss := func(why string) { missed.CompareAndSwap(nil, &why) }
	var changed sync.Map // path index of a parsed file whose text changed
	rc.each(func(i int) {
		if missed.Load() != nil || rc.ctx.Err() != nil {
			return
		}
		p, now := rc.paths[i], rc.stamps[i]
		old := stamps[i]
		if !rc.statOK[i] {
			miss(p + " could not be read")
			return
		}
		if now.Size == old.Size && now.ModNs == old.ModNs && old.ModNs != 0 {
			return
		}
		if testHookReread != nil {
			testHookReread()
		}
		src, err := rc.pr.readFile(p)
		if err != nil {
			miss(p + " could not be read")
			return
		}
		if old.Parsed {
			if sha256.Sum256(src) != old.Hash {
				changed.Store(i, true)
				return
			}
			now.Parsed, now.Hash = true, old.Hash
		} else if match(src, e.A.ImportsAsked[p]) {
			if old.Size < 0 {
				miss(p + " was added and names a name searched for")
			} else {
				miss(p + ", which was not parsed, now names a name searched for or imports otherwise")
			}
			return
		}
		stale.Store(i, now)
	})
	if why := missed.Load(); why != nil || rc.ctx.Err() != nil {
		if why != nil {
			rc.miss = *why
		}
		return nil
	}
	// An analysis that reported other files is taken up as one after an edit, with no file
	// edited: its kept graph holds, and what it left out is found.
	narrow := !rc.pr.within(e.A.Scope)
	if edited := editedFiles(&changed, rc.paths, stamps, narrow); edited != nil {
		edited.a, edited.graph, edited.lookups = e.A, e.Graph, e.Lookups
		rc.edited = edited
		if narrow && e.Graph == nil {
			rc.miss = "it was written by a run that reported other files"
		}
		return nil
	}
	// Files touched but unchanged: record their new times, so that the next run need not
	// read them again, when that saves more than writing the entry costs: reading them
	// again is cheap next to rewriting a large entry for one file edited (unsloth's entry is
	// 3.7 MB: 35 ms of a 90 ms run), and a time too recent to trust is not recorded anyway.
	var settled int64
	stale.Range(func(k, v any) bool {
		s := rc.settle(v.(fileStamp))
		stamps[k.(int)] = s
		rc.reread++
		if s.ModNs != 0 {
			settled += s.Size
		}
		return true
	})
	if rescoped {
		rc.reread -= rc.added // read for the first time, not again
		// Written for the run's scope whatever it costs: the next run would otherwise read
		// the added files again, and align the lists again.
		e.A.Indexed = len(rc.paths)
		if readRecords() {
			e.Paths, e.List, e.Stamps = pathsHash, appendList(nil, rc.paths), appendStamps(nil, stamps)
			_ = rc.write(e, records)
		}
	} else if fi, err := f.Stat(); err == nil && settled*rewriteRatio >= fi.Size() && readRecords() {
		e.Stamps = appendStamps(nil, stamps)
		_ = rc.write(e, records)
	}
	return e.A
}

// keptHash is the SHA-256 of path's text as the entry's analysis parsed it, when it parsed
// the file and the file's stamp is the one the entry recorded: trusted as the entry's
// stamps are (a time too recent when it was written was not recorded). Not for a notebook:
// its text as analysed is its program, and reading it says which cells are malformed. (A
// run of a file read from standard input uses no cache.)
func (rc *resultCache) keptHash(path string) (hash [32]byte, ok bool) {
	i, found := slices.BinarySearch(rc.paths, path)
	if !found || rc.entryStamps == nil || !rc.statOK[i] || rc.pr.isNotebook(path) {
		return hash, false
	}
	old, now := rc.entryStamps[i], rc.stamps[i]
	if !old.Parsed || old.ModNs == 0 || now.Size != old.Size || now.ModNs != old.ModNs {
		return hash, false
	}
	return old.Hash, true
}

// pathsHash is the SHA-256 of the run's paths, each ended by a NUL (no path holds one).
func (rc *resultCache) pathsHash() []byte {
	h := sha256.New()
	buf := make([]byte, 0, 4096)
	for _, p := range rc.paths {
		if len(buf)+len(p)+1 > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		buf = append(append(buf, p...), 0)
	}
	h.Write(buf)
	return h.Sum(nil)
}

// appendStamps appends the table of stamps: for each, its size (uvarint), its time
// (varint: a file can predate 1970), and a byte that is 1 when the file was parsed, then
// followed by its hash.
func appendStamps(out []byte, stamps []fileStamp) []byte {
	for _, s := range stamps {
		out = binary.AppendUvarint(out, uint64(s.Size))
		out = binary.AppendVarint(out, s.ModNs)
		if s.Parsed {
			out = append(append(out, 1), s.Hash[:]...)
		} else {
			out = append(out, 0)
		}
	}
	return out
}

// decodeStamps reads a table of n stamps; anything else is an error.
func decodeStamps(data []byte, n int) ([]fileStamp, error) {
	bad := errors.New("corrupt cache entry: its table of file stamps does not read")
	stamps := make([]fileStamp, n)
	for i := range stamps {
		size, k := binary.Uvarint(data)
		if k <= 0 || size > math.MaxInt64 {
			return nil, bad
		}
		data = data[k:]
		mod, k := binary.Varint(data)
		if k <= 0 || len(data) == k {
			return nil, bad
		}
		data = data[k:]
		s := fileStamp{Size: int64(size), ModNs: mod}
		switch data[0] {
		case 0:
			data = data[1:]
		case 1:
			if len(data) < 1+len(s.Hash) {
				return nil, bad
			}
			s.Parsed = true
			copy(s.Hash[:], data[1:])
			data = data[1+len(s.Hash):]
		default:
			return nil, bad
		}
		stamps[i] = s
	}
	if len(data) != 0 {
		return nil, bad
	}
	return stamps, nil
}

// rewriteRatio: an entry is rewritten for new file times when the files it would spare the
// next run reading again are at least 1/rewriteRatio of its size.
const rewriteRatio = 8

// readHead reads an entry's format line and head, leaving f at its call records.
func readHead(f *os.File) ([]byte, error) {
	r := io.Reader(f)
	var prefix [len(cacheFormat) + 12]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil || string(prefix[:len(cacheFormat)]) != cacheFormat {
		return nil, errors.New("not a cache entry of this format")
	}
	n := binary.BigEndian.Uint64(prefix[len(cacheFormat):])
	if fi, err := f.Stat(); err != nil || n > uint64(fi.Size()) {
		return nil, errors.New("corrupt cache entry: head longer than the file")
	}
	head := make([]byte, n)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	if crc32.Checksum(head, entryCRC) != binary.BigEndian.Uint32(prefix[len(cacheFormat)+8:]) {
		return nil, errors.New("corrupt cache entry: the head's checksum does not match")
	}
	return head, nil
}

// entryCRC is the CRC-32C table of an entry's checksums.
var entryCRC = crc32.MakeTable(crc32.Castagnoli)

// decodeCalls reads an entry's n call records; a corrupt list, or one of another length,
// is an error, never a panic.
func decodeCalls(r io.Reader, n int) (calls []report.CallRecord, err error) {
	defer func() {
		if v := recover(); v != nil {
			calls, err = nil, fmt.Errorf("corrupt cache entry: %v", v)
		}
	}()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := gob.NewDecoder(bytes.NewReader(data))
	calls = []report.CallRecord{}
	for {
		var chunk []report.CallRecord
		if err := dec.Decode(&chunk); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		calls = append(calls, chunk...)
	}
	if len(calls) != n {
		return nil, fmt.Errorf("corrupt cache entry: %d call records, the head says %d", len(calls), n)
	}
	return calls, nil
}

// encodeCalls writes call records as an entry holds them.
func encodeCalls(w io.Writer, calls []report.CallRecord) error {
	// In chunks: gob builds each message whole before it writes it, and one message of
	// thousands of records (7,407 for unsloth, 3.5 MB) is copied again and again as it grows.
	enc := gob.NewEncoder(w)
	for i := 0; i < len(calls); i += callsPerChunk {
		if err := enc.Encode(calls[i:min(i+callsPerChunk, len(calls))]); err != nil {
			return err
		}
	}
	return nil
}

// settle keeps a stamp's time only when it is safely older than this run.
func (rc *resultCache) settle(s fileStamp) fileStamp {
	if s.ModNs >= rc.start.Add(-2*time.Second).UnixNano() {
		s.ModNs = 0
	}
	return s
}

// save writes the run's analysis. Nothing is written for a run that was cut short or hit
// an internal error, whose result another run would not reproduce.
func (rc *resultCache) save(a *analysed, facts *Facts) error {
	if rc.ctx.Err() != nil || len(a.Errors) > 0 || len(a.Failures) > 0 {
		return nil
	}
	if slices.Contains(rc.statOK, false) {
		return nil
	}
	// The graph store is written while the entry is made and written (4 ms of an edited
	// run's one goroutine on diffusers, a 2.7 MB store): the entry names its digest, taken
	// first, so a store that then fails to be written is one the next run finds missing or
	// not the one named, and runs in full.
	var graph []byte
	if facts.Graph != nil {
		graph = graphDigest(facts.Graph, rc.jobs)
		written := make(chan struct{})
		go func() {
			defer close(written)
			rc.saveGraph(facts.Graph)
		}()
		defer func() { <-written }()
	}
	// The parsed files' texts hashed on every CPU (8 ms of an edited run's one goroutine on
	// unsloth, 155 files, 10 MB), those the parse hashed for their kept trees not again.
	stamps := make([]fileStamp, len(rc.paths))
	rc.each(func(i int) {
		s := rc.stamps[i]
		if f := facts.Files[rc.paths[i]]; f != nil {
			s.Parsed, s.Hash = true, f.Hash
			if f.Hash == ([32]byte{}) {
				s.Hash = sha256.Sum256(f.Src)
			}
		}
		stamps[i] = rc.settle(s)
	})
	e := &cacheEntry{Key: rc.key, Paths: rc.pathsHash(), List: appendList(nil, rc.paths), Lookups: appendLookups(nil, facts.Lookups),
		Stamps: appendStamps(nil, stamps), A: a, Graph: graph}
	if err := rc.write(e, nil); err != nil {
		return err
	}
	if facts.Signatures != nil {
		// A store not written only makes the next analysis read more files.
		_ = rc.saveSignatures(facts.Signatures, facts.Files)
	}
	return nil
}

// write replaces the entry atomically: a concurrent run reads the old entry or the new
// one, never half of one. The folder gets a .gitignore and a CACHEDIR.TAG, as ruff's does.
// The call records are e.A.Calls, or when records is not nil e.Calls records encoded as an
// entry holds them (those of the entry e was read from).
func (rc *resultCache) write(e *cacheEntry, records []byte) error {
	if err := prepareDir(rc.dir); err != nil {
		return err
	}
	removeStaleTemps(rc.dir)
	head := *e
	a := *e.A
	a.Calls = nil
	head.A = &a
	if records == nil {
		head.Calls = len(e.A.Calls)
	}
	var h bytes.Buffer
	if err := gob.NewEncoder(&h).Encode(&head); err != nil {
		return err
	}
	return writeAtomicWith(rc.dir, rc.file, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<16)
		prefix := binary.BigEndian.AppendUint64([]byte(cacheFormat), uint64(h.Len()))
		prefix = binary.BigEndian.AppendUint32(prefix, crc32.Checksum(h.Bytes(), entryCRC))
		if _, err := w.Write(append(prefix, h.Bytes()...)); err != nil {
			return err
		}
		sum := crc32.New(entryCRC)
		body := io.MultiWriter(w, sum)
		if records != nil {
			if _, err := body.Write(records); err != nil {
				return err
			}
		} else if err := encodeCalls(body, e.A.Calls); err != nil {
			return err
		}
		if _, err := w.Write(sum.Sum(nil)); err != nil {
			return err
		}
		return w.Flush()
	})
}

// callsPerChunk is how many call records one gob message of an entry holds.
const callsPerChunk = 256

// prepareDir makes the cache folder, with a .gitignore and a CACHEDIR.TAG as ruff's has.
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range map[string]string{
		".gitignore":   "# Automatically created by cachelint.\n*\n",
		"CACHEDIR.TAG": cacheTag,
	} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			_ = os.WriteFile(p, []byte(text), 0o644)
		}
	}
	return nil
}

// removeStaleTemps removes the temporary files a run killed while writing left in dir, an
// hour old (a concurrent run's is seconds old).
func removeStaleTemps(dir string) {
	if stale, err := filepath.Glob(filepath.Join(dir, ".tmp-*")); err == nil {
		for _, t := range stale {
			if fi, err := os.Stat(t); err == nil && time.Since(fi.ModTime()) > time.Hour {
				_ = os.Remove(t)
			}
		}
	}
}

// writeAtomicWith replaces file (in dir) with what write writes: a concurrent reader sees
// the old file or the new one, never half of one.
func writeAtomicWith(dir, file string, write func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// decodeEntry reads an entry; a corrupt one is an error, never a panic.
func decodeEntry(data []byte) (e *cacheEntry, err error) {
	defer func() {
		if v := recover(); v != nil {
			e, err = nil, fmt.Errorf("corrupt cache entry: %v", v)
		}
	}()
	e = &cacheEntry{}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(e); err != nil {
		return nil, err
	}
	return e, nil
}

// CleanCaches removes cachelint's cache folders, as `ruff clean` does ruff's: every folder
// named DefaultCacheDir under the given roots (`.git` is not entered), and the extra folders
// named (a configured cache-dir). Only a folder whose CACHEDIR.TAG cachelint wrote is removed,
// so a user's own folder of that name is left alone. It returns the folders removed.
func CleanCaches(roots, extra []string) ([]string, error) {
	var removed []string
	remove := func(dir string) error {
		tag, err := os.ReadFile(filepath.Join(dir, "CACHEDIR.TAG"))
		if err != nil || string(tag) != cacheTag {
			return nil
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		removed = append(removed, dir)
		return nil
	}
	for _, d := range extra {
		if err := remove(d); err != nil {
			return removed, err
		}
	}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				if p == root {
					return err
				}
				return nil // an unreadable folder below: nothing of ours to find there
			}
			if !d.IsDir() {
				return nil
			}
			switch d.Name() {
			case ".git":
				return filepath.SkipDir
			case DefaultCacheDir:
				if err := remove(p); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			return nil
		})
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}
