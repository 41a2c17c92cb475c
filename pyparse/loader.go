package pyparse

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/token"
	"maps"
	"runtime"
	"runtime/trace"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/cachelint/cachelint/internal/parallel"
)

// Result is the parsed project: the files in scope, parsed as far as the prefilter lets
// them. Files are prefiltered by bytes: only a file mentioning one of the needles (whole
// identifiers, see ParseMatching) is parsed. The analysis that owns a Result may call
// ParseMatching again to pull in the files that mention names it learnt (helpers defined in
// parsed files); once it hands the Result on, nobody parses into it any more.
// Result is the parsed project.
type Result struct {
	// Files are the parsed files, sorted by path.
	Files  []*File
	ByPath map[string]*File
	// Failures are files that could not be read or parsed at all.
	Failures []Failure
	// Seen is the number of files in scope; Parsed how many were parsed.
	Seen, Parsed int
	// Counter, when set, is incremented as each file is parsed, for a progress line read
	// while the parse runs.
	Counter *atomic.Int64
	// Trees, when set, keeps parsed trees between runs: a file whose tree it holds is not
	// parsed again. Reused counts the files whose tree came from it.
	Trees  TreeCache
	Reused atomic.Int64
	// SignParsed keeps the signature of each file parsed too (Signed), scanned whole: a
	// later run that Knows it reads the file only in the round that parses it, not in every
	// round before.
	SignParsed bool

	read     func(path string) ([]byte, error)
	fset     *token.FileSet
	jobs     int
	pending  []string              // not yet parsed
	scope    map[string]struct{}   // every file given
	sigs     map[string]*signature // identifiers of pending files already read once
	known    map[string]*signature // signatures taken from an earlier run (Know)
	parsed   map[string]*signature // signatures of parsed files (SignParsed)
	fsetLock sync.Mutex
	askLock  sync.Mutex
	// sigLock guards sigs while the analysis asks MayImport from several goroutines.
	sigLock sync.Mutex
	asked   map[string]map[string]bool // MayImport's questions: path -> name -> answer
	reuse   map[string]*File           // files another Result parsed (Reuse)
	// texts gives the hash of an unchanged file's text as an earlier run read it (KnowTexts);
	// entries are the kept trees taken for their texts, by path (keptText).
	texts     func(path string) (hash [32]byte, ok bool)
	entryLock sync.Mutex
	entries   map[string][]byte
}

// ErrInternal marks a panic caught while parsing one file: a bug in cachelint, not in the file.
var ErrInternal = errors.New("internal error")

// Failure is a file that could not be read or parsed.
type Failure struct {
	Path string
	Err  error
}

// NewResult prepares the files in scope for parsing; nothing is read yet. read gives a
// file's Python text, fset positions the parsed files, jobs is the number of parallel
// parsers (0: GOMAXPROCS).
func NewResult(files []string, read func(path string) ([]byte, error), fset *token.FileSet, jobs int) *Result {
	scope := make(map[string]struct{}, len(files))
	for _, f := range files {
		scope[f] = struct{}{}
	}
	return &Result{ByPath: map[string]*File{}, sigs: map[string]*signature{}, read: read, fset: fset, jobs: jobs,
		pending: append([]string(nil), files...), Seen: len(files), scope: scope}
}

// ParseMatching parses the not-yet-parsed files that mention any of the needles (identifier
// names, matched as whole tokens; "a.b" needs both a and b; "" matches every file), in
// parallel with one parser per worker. Files already parsed are skipped. A cancelled ctx
// stops it: the files not reached stay pending and ctx's error is returned.
//
// Every pending file is read and scanned first, then those that mention a needle are
// parsed, the largest first: a large file handed out last (torch has files of 1-2 MB, a
// parse of a second or more) would keep one worker busy long after the others ran out.
func (r *Result) ParseMatching(ctx context.Context, needles []string) error {
	return r.ParseMatchingAnd(ctx, needles, nil)
}

// ParseMatchingAnd is ParseMatching that also parses the pending files named in paths,
// whatever they mention (ParseFiles), in the same pass: a round's files to parse are read,
// scanned and shared out among the workers once, the largest first, not in two passes each
// ending on its largest file (and the named files read a second time).
func (r *Result) ParseMatchingAnd(ctx context.Context, needles, paths []string) error {
	if len(r.pending) == 0 || len(needles) == 0 && len(paths) == 0 {
		return nil
	}
	set := newIdentSet(needles)
	var named map[string]bool
	var all *identSet
	if len(paths) > 0 {
		named = make(map[string]bool, len(paths))
		for _, p := range paths {
			named[p] = true
		}
		all = newIdentSet([]string{""})
	}
	jobs := r.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	region := trace.StartRegion(ctx, "scan")
	pending := r.pending
	results := make([]scanned, len(pending))
	parallel.For(len(pending), jobs, func(_, i int) {
		path := pending[i]
		if ctx.Err() != nil {
			results[i] = scanned{path: path, sig: r.sigs[path]}
			return
		}
		if named[path] {
			results[i] = r.scanOne(path, all)
			return
		}
		if sig := r.sigs[path]; len(needles) == 0 || sig != nil && !set.mayMention(sig) {
			results[i] = scanned{path: path, sig: sig}
			return
		}
		results[i] = r.scanOne(path, set)
	})
	region.End()
	region = trace.StartRegion(ctx, "parse")
	defer region.End()
	var matched []int
	for i := range results {
		if results[i].src != nil {
			matched = append(matched, i)
		}
	}
	// The largest first, so that no large file is left for the end while the other workers
	// wait; a file parsed costs some fifteen times what one whose tree is kept costs to
	// decode (BenchmarkParse, BenchmarkDecodeTree), so those whose tree the cache does not
	// hold go first (an edited run: the changed files, unsloth's llama.py 130 KB parsed after
	// most kept trees were decoded left one worker at it for 7 ms alone).
	cost := func(i int) int { return len(results[i].src) }
	if r.Trees != nil {
		parsed := make(map[int]bool, len(matched))
		for _, i := range matched {
			parsed[i] = results[i].key != "" && !r.Trees.Holds(results[i].key)
		}
		cost = func(i int) int {
			if parsed[i] {
				return 16 * len(results[i].src)
			}
			return len(results[i].src)
		}
	}
	slices.SortStableFunc(matched, func(a, b int) int { return cost(b) - cost(a) })
	var initErr error
	var initOnce sync.Once
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs && w < len(matched); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := NewParser()
			if err != nil {
				initOnce.Do(func() { initErr = err })
				for range work {
				}
				return
			}
			defer p.Close()
			for i := range work {
				if ctx.Err() != nil {
					// Not parsed: pending still, read again by the next call.
					results[i].src = nil
					continue
				}
				r.parseScanned(ctx, p, &results[i])
			}
		}()
	}
	for _, i := range matched {
		work <- i
	}
	close(work)
	wg.Wait()
	releaseFreed()
	if initErr != nil {
		return initErr
	}
	r.pending = r.pending[:0:0]
	for _, o := range results {
		switch {
		case o.file != nil:
			r.Files = append(r.Files, o.file)
			r.ByPath[o.file.Path] = o.file
			r.Parsed++
			if o.sig != nil {
				if r.parsed == nil {
					r.parsed = map[string]*signature{}
				}
				r.parsed[o.path] = o.sig
			}
		case o.fail != nil:
			r.Failures = append(r.Failures, *o.fail)
		default:
			r.pending = append(r.pending, o.path)
			if o.sig != nil {
				r.sigs[o.path] = o.sig
			}
		}
		if o.file != nil || o.fail != nil {
			delete(r.sigs, o.path)
		}
	}
	sort.Slice(r.Files, func(i, j int) bool { return r.Files[i].Path < r.Files[j].Path })
	return ctx.Err()
}

// scanned is one pending file as ParseMatching saw it: path is set for every file; sig when
// it was scanned (or known); src when it mentions a needle and is to be parsed; file or fail
// once parsed. A file with neither file nor fail stays pending.
type scanned struct {
	path string
	sig  *signature
	src  []byte
	text [32]byte // src's SHA-256, when r.Trees is set and src is to be parsed
	key  string   // its tree's key (treeKeyOf(text)), then
	// entry is the kept tree src was taken from (keptText), nil when src was read.
	entry []byte
	file  *File
	fail  *Failure
}

// ParseFiles parses the named files that are still pending, whatever they mention: a module
// the analysis has to read to follow a binding (a function returning a device module, a
// package re-exporting a helper through `from .mod import *`). Paths not pending are skipped.
func (r *Result) ParseFiles(ctx context.Context, paths []string) error {
	return r.ParseMatchingAnd(ctx, nil, paths)
}

// scanOne reads path and scans it for the needles: its signature, and its text when it
// mentions one (a file that cannot be read fails).
func (r *Result) scanOne(path string, needles *identSet) (o scanned) {
	o.path = path
	defer func() {
		if v := recover(); v != nil {
			o = scanned{path: path, fail: &Failure{Path: path, Err: fmt.Errorf("%w while parsing %s: %v", ErrInternal, path, v)}}
		}
	}()
	src, entry, text := r.keptText(path)
	if src == nil {
		var err error
		if src, err = r.read(path); err != nil {
			o.fail = &Failure{Path: path, Err: fmt.Errorf("read %s: %w", path, err)}
			return o
		}
	}
	// A file whose signature an earlier run kept (Know: its text is unchanged) is scanned
	// for the needles only, not whole: the kept signature is what the scan would give.
	known := r.known[path]
	sig := new(signature)
	if !needles.scan(src, sig, r.SignParsed && known == nil) {
		o.sig = sig // scanned to the end
		return o
	}
	if r.SignParsed {
		o.sig = cmp.Or(known, sig)
	}
	o.src = src
	if r.Trees != nil {
		if f := r.reuse[path]; f == nil || !bytes.Equal(f.Src, src) { // to be parsed or decoded
			if entry != nil {
				o.entry, o.text = entry, text
			} else {
				o.text = sha256.Sum256(src)
			}
			o.key = treeKeyOf(o.text)
		}
	}
	return o
}

// KnowTexts takes, before the first ParseMatching, the hashes of the texts an earlier run
// parsed of files that have not changed since (hash gives one by path; ok false for a file
// it cannot vouch for): such a file's text is taken from its kept tree (Trees: an entry
// holds its text), neither read nor hashed again, when the tree is there and whole;
// otherwise it is read. The hash must be of the text as read would give it.
func (r *Result) KnowTexts(hash func(path string) ([32]byte, bool)) { r.texts = hash }

// keptText is path's text from its kept tree (KnowTexts), the tree's entry and the text's
// hash; nil when there is none to take. A path's entry is taken from Trees once (a file
// scanned in one round is scanned again in the next) and handed to the parse with the text,
// which it came from.
func (r *Result) keptText(path string) (src, entry []byte, hash [32]byte) {
	if r.texts == nil || r.Trees == nil {
		return nil, nil, hash
	}
	hash, ok := r.texts(path)
	if !ok {
		return nil, nil, hash
	}
	if f := r.reuse[path]; f != nil && f.TextHash == hash {
		return f.Src, nil, hash // parsed by the Result it reuses: taken from there
	}
	r.entryLock.Lock()
	entry, seen := r.entries[path]
	r.entryLock.Unlock()
	if !seen {
		entry = r.Trees.Get(treeKeyOf(hash))
		if entry != nil && !wholeEntry(entry) {
			entry = nil // not whole: the text is read, the tree parsed again
		}
		r.entryLock.Lock()
		if r.entries == nil {
			r.entries = map[string][]byte{}
		}
		r.entries[path] = entry
		r.entryLock.Unlock()
	}
	if entry == nil {
		return nil, nil, hash
	}
	if _, src = readHeader(entry); src == nil {
		return nil, nil, hash // another format
	}
	return src, entry, hash
}

// testHookParsing, set by tests, sees each file as its parse starts.
var testHookParsing func(path string)

// parseScanned parses a file scanOne found mentioning a needle.
func (r *Result) parseScanned(ctx context.Context, p *Parser, o *scanned) {
	defer func() {
		if v := recover(); v != nil {
			o.file = nil
			o.fail = &Failure{Path: o.path, Err: fmt.Errorf("%w while parsing %s: %v", ErrInternal, o.path, v)}
		}
	}()
	if testHookParsing != nil {
		testHookParsing(o.path)
	}
	if f := r.reuse[o.path]; f != nil && bytes.Equal(f.Src, o.src) {
		// Positioned in the same FileSet already.
		if f.fromTree {
			r.Reused.Add(1)
		}
		if r.Counter != nil {
			r.Counter.Add(1)
		}
		o.file = f
		return
	}
	f, err := r.parseOrReuse(ctx, p, o)
	if err != nil {
		o.fail = &Failure{Path: o.path, Err: err}
		return
	}
	// The token.File gives offsets only: lines and columns come from Position, which counts
	// them as Python does (a lone '\r' ends a line) from the tree's own line starts, so the
	// token.File keeps no second copy of them.
	r.fsetLock.Lock()
	f.TokenFile = r.fset.AddFile(o.path, -1, len(o.src))
	r.fsetLock.Unlock()
	if r.Counter != nil {
		r.Counter.Add(1)
	}
	o.file = f
}

// parseOrReuse parses o's text, or decodes its tree from r.Trees when it holds one (a tree
// that does not decode is parsed again and replaced).
func (r *Result) parseOrReuse(ctx context.Context, p *Parser, o *scanned) (*File, error) {
	path, src, text, key := o.path, o.src, o.text, o.key
	if r.Trees == nil {
		return p.Parse(ctx, path, src)
	}
	var f *File
	err := errCorruptTree
	if o.entry != nil {
		// Its checksum held when the scan took the text from it: the text is its own.
		f, err = decodeWhole(path, nil, o.entry, p.sc)
	} else if data := r.Trees.Get(key); data != nil {
		f, err = decodeTree(path, src, data, p.sc)
	}
	if err == nil {
		r.Reused.Add(1)
		f.fromTree, f.TextHash = true, text
		return f, nil
	}
	f, err = p.Parse(ctx, path, src)
	if err == nil {
		f.TextHash = text
		r.Trees.Put(key, EncodeTree(f))
	}
	return f, err
}

// Reuse hands r the files from parsed, which must have parsed with r's FileSet: a file r
// comes to parse whose text is the one parsed parsed is taken as it is, not parsed or
// decoded again (an analysis that parsed a set of files to try something, and starts again
// on a Result of its own).
func (r *Result) Reuse(parsed *Result) { r.reuse = parsed.ByPath }

// Mentions estimates how many not-yet-parsed files mention name (from the identifier
// signatures kept since their first read; an over-estimate, never an under-estimate).
func (r *Result) Mentions(name string) int {
	set := newIdentSet([]string{name})
	n := 0
	for _, sig := range r.sigs {
		if set.mayMention(sig) {
			n++
		}
	}
	return n
}

// MayImport reports whether the not-yet-parsed file path may bind name in an import
// statement (`from .memory import cleanup`, `import pkg.cleanup as cleanup`) or import every
// name of a module (`from .memory import *`), as a package does to re-export a function
// (from the signature kept since the file's first read: it errs only toward true). True for
// a file not read yet.
func (r *Result) MayImport(path, name string) bool {
	sig := r.signatureOf(path)
	return r.ask(path, name, sig == nil || sig.star || sig.hasImport(sigBits(name)))
}

// ask keeps a question asked about the unparsed file path and its answer (ImportsAsked),
// and returns the answer.
func (r *Result) ask(path, question string, yes bool) bool {
	r.askLock.Lock()
	defer r.askLock.Unlock()
	if r.asked == nil {
		r.asked = map[string]map[string]bool{}
	}
	if r.asked[path] == nil {
		r.asked[path] = map[string]bool{}
	}
	r.asked[path][question] = yes
	return yes
}

// MayBind reports whether the not-yet-parsed file path may bind name at module level: its
// code names it (defining, importing or assigning the name all do; so does a string that is
// the name alone, as in `__all__`), not only a docstring or a comment, or an import
// statement imports every name of a module (`from .models import *`). From the signature
// kept since the file's first read, it errs only toward true; true for a file not read yet.
// The question and its answer are kept with MayImport's (ImportsAsked, as BindQuestion of
// name), for a later run to ask again of a changed text (Matcher).
func (r *Result) MayBind(path, name string) bool {
	sig := r.signatureOf(path)
	return r.ask(path, BindQuestion(name), sig == nil || sig.star || sig.has(sigBits(name)))
}

// BindQuestion is how ImportsAsked spells MayBind's question about name: no identifier
// starts with "=", so it is told from MayImport's.
func BindQuestion(name string) string { return "=" + name }

// signatureOf is the signature of a file left unparsed, read and scanned now when no round
// read it (a run that takes its call graph from an earlier run reads no file it does not
// parse): nil for a file that could not be read. Safe for concurrent use while no round runs.
func (r *Result) signatureOf(path string) *signature {
	r.sigLock.Lock()
	sig := r.sigs[path]
	r.sigLock.Unlock()
	if _, ok := r.scope[path]; sig != nil || !ok || r.ByPath[path] != nil || r.failed(path) {
		return sig
	}
	src, err := r.read(path)
	if err != nil {
		return nil
	}
	sig = new(signature)
	noNeedles.scan(src, sig, false) // mentions none: scanned to the end
	r.sigLock.Lock()
	defer r.sigLock.Unlock()
	if known := r.sigs[path]; known != nil {
		return known // read by another goroutine meanwhile
	}
	r.sigs[path] = sig
	return sig
}

// noNeedles is the set of no names: its scan of a text reads all of it.
var noNeedles = newIdentSet(nil)

// ImportsAsked are the questions MayImport was asked about files the run left unparsed:
// path -> name -> the answer. Such a file mattered to the run through its import statements
// as well as through the needles it does not mention: a later run may take the run's result
// for a changed text of it only if Matcher finds that text answering them alike.
func (r *Result) ImportsAsked() map[string]map[string]bool {
	r.askLock.Lock()
	defer r.askLock.Unlock()
	var out map[string]map[string]bool
	for path, names := range r.asked {
		if r.ByPath[path] != nil || r.failed(path) {
			continue
		}
		if out == nil {
			out = map[string]map[string]bool{}
		}
		out[path] = maps.Clone(names)
	}
	return out
}

// failed reports whether path could not be read or parsed.
func (r *Result) failed(path string) bool {
	return slices.ContainsFunc(r.Failures, func(f Failure) bool { return f.Path == path })
}

// Signed reports whether the run holds path's signature (a file read but not parsed, or
// parsed while SignParsed): a fact of its text alone, which a later run hands back (Know)
// when the file has not changed.
func (r *Result) Signed(path string) bool { return r.signature(path) != nil }

// AppendSignature appends path's signature (Signed), encoded, to buf (nothing for a file
// without one).
func (r *Result) AppendSignature(buf []byte, path string) []byte {
	if sig := r.signature(path); sig != nil {
		return appendSignature(buf, sig)
	}
	return buf
}

func (r *Result) signature(path string) *signature {
	if sig := r.sigs[path]; sig != nil {
		return sig
	}
	return r.parsed[path]
}

// Know takes, before the first ParseMatching, the signatures an earlier run kept of files
// whose text has not changed since (sig gives one by path, nil for none): such a file is
// read only when a round's needles may be in it, and the signature answers Mentions and
// MayImport as if it had been read, so the run parses exactly the files it would parse
// otherwise. What does not decode as a signature is ignored.
func (r *Result) Know(sig func(path string) []byte) {
	if r.known == nil {
		r.known = map[string]*signature{}
	}
	var paths []string
	var data [][]byte
	for _, path := range r.pending {
		if r.sigs[path] == nil {
			paths, data = append(paths, path), append(data, sig(path))
		}
	}
	// Decoded on every CPU: each is a copy of some KB (unsloth: 1,800 files, 3 MB, 11 ms of
	// an edited run's one goroutine).
	sigs := make([]*signature, len(paths))
	parallel.For(len(paths), r.jobs, func(_, i int) { sigs[i] = decodeSignature(data[i]) })
	for i, path := range paths {
		if s := sigs[i]; s != nil {
			r.sigs[path], r.known[path] = s, s
		}
	}
}

// Unread is how many files the run never read: pending still, with the signature Know
// took for them.
func (r *Result) Unread() int {
	n := 0
	for path, s := range r.known {
		if r.sigs[path] == s {
			n++
		}
	}
	return n
}

// Position returns the 1-based line and code-point column of a byte offset in f. The offset
// just past a final newline is on the line after it (line N+1, column 1), as editors and
// ruff's fix ranges count it.
func (f *File) Position(offset int) (line, col int) {
	offset = max(0, min(offset, len(f.Src)))
	var lines []int32
	if f.Root != nil {
		lines, _ = f.Root.table()
	}
	if lines == nil { // a File made without a tree
		row, _ := position(lineStarts(f.Src), offset)
		return row + 1, Column(f.Src, offset)
	}
	line, _ = slices.BinarySearch(lines, int32(offset)+1)
	return line, Column(f.Src, offset)
}
