package pyparse

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
)

// Analyzer is the building block every cachelint analyzer requires: it reads the Python files
// of the pass (Pass.OtherFiles), parses those whose bytes can matter, and returns a *Result.
//
// Files are prefiltered by bytes: only a file mentioning one of the needles (flag -needles:
// comma-separated identifiers, matched as whole tokens; set by the driver from the
// analyzers' needs) is parsed at first. Analyzers
// that learn new names (helpers defined in parsed files) call Result.ParseMatching to pull in
// the files that mention them.
var Analyzer = &analysis.Analyzer{
	Name:       "pyparse",
	Doc:        "parses the Python files in scope with tree-sitter and builds their model",
	Run:        run,
	ResultType: reflect.TypeFor[*Result](),
}

var (
	needlesFlag string
	jobsFlag    int
)

func init() {
	Analyzer.Flags.StringVar(&needlesFlag, "needles", "", "comma-separated byte strings; files containing none are not parsed")
	Analyzer.Flags.IntVar(&jobsFlag, "jobs", 0, "parallel parsers (0 = GOMAXPROCS)")
}

// Result is the parsed project.
type Result struct {
	// Files are the parsed files, sorted by path.
	Files  []*File
	ByPath map[string]*File
	// Failures are files that could not be read or parsed at all.
	Failures []Failure
	// Seen is the number of files in scope; Parsed how many were parsed.
	Seen, Parsed int

	pass     *analysis.Pass
	pending  []string              // not yet parsed
	sigs     map[string]*signature // identifiers of pending files already read once
	fsetLock sync.Mutex
}

// ErrInternal marks a panic caught while parsing one file: a bug in cachelint, not in the file.
var ErrInternal = errors.New("internal error")

// Failure is a file that could not be read or parsed.
type Failure struct {
	Path string
	Err  error
}

func run(pass *analysis.Pass) (any, error) {
	res := &Result{ByPath: map[string]*File{}, sigs: map[string]*signature{}, pass: pass, pending: append([]string(nil), pass.OtherFiles...)}
	res.Seen = len(res.pending)
	var needles []string
	for _, n := range strings.Split(needlesFlag, ",") {
		if n = strings.TrimSpace(n); n != "" {
			needles = append(needles, n)
		}
	}
	if len(needles) == 0 {
		// No prefilter configured: everything can matter.
		needles = []string{""}
	}
	if err := res.ParseMatching(context.Background(), needles); err != nil {
		return nil, err
	}
	return res, nil
}

// ParseMatching parses the not-yet-parsed files that mention any of the needles (identifier
// names, matched as whole tokens; "" matches every file), in parallel with one parser per
// worker. Files already parsed are skipped.
func (r *Result) ParseMatching(ctx context.Context, needles []string) error {
	if len(r.pending) == 0 || len(needles) == 0 {
		return nil
	}
	set := newIdentSet(needles)
	jobs := jobsFlag
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	type out struct {
		file *File
		fail *Failure
		path string     // set for every file; one with neither file nor fail stays pending
		sig  *signature // set when the file was read and stays pending
	}
	paths := r.pending
	results := make([]out, len(paths))
	work := make(chan int)
	var wg sync.WaitGroup
	var initErr error
	var initOnce sync.Once
	for w := 0; w < jobs && w < len(paths); w++ {
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
				if sig := r.sigs[paths[i]]; sig != nil && !set.mayMention(sig) {
					results[i] = out{path: paths[i], sig: sig}
					continue
				}
				results[i] = r.parseOne(ctx, p, paths[i], set)
			}
		}()
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
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
	return nil
}

func (r *Result) parseOne(ctx context.Context, p *Parser, path string, needles *identSet) (o struct {
	file *File
	fail *Failure
	path string
	sig  *signature
}) {
	o.path = path
	defer func() {
		if v := recover(); v != nil {
			o.file = nil
			o.fail = &Failure{Path: path, Err: fmt.Errorf("%w while parsing %s: %v", ErrInternal, path, v)}
		}
	}()
	src, err := r.pass.ReadFile(path)
	if err != nil {
		o.fail = &Failure{Path: path, Err: fmt.Errorf("read %s: %w", path, err)}
		return o
	}
	sig := new(signature)
	if !needles.scan(src, sig) {
		o.sig = sig
		return o
	}
	f, err := p.Parse(ctx, path, src)
	if err != nil {
		o.fail = &Failure{Path: path, Err: err}
		return o
	}
	r.fsetLock.Lock()
	f.TokenFile = r.pass.Fset.AddFile(path, -1, len(src))
	f.TokenFile.SetLinesForContent(src)
	r.fsetLock.Unlock()
	o.file = f
	return o
}

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

// Position returns the 1-based line and code-point column of a byte offset in f. The offset
// just past a final newline is on the line after it (line N+1, column 1), as editors and
// ruff's fix ranges count it.
func (f *File) Position(offset int) (line, col int) {
	offset = max(0, min(offset, len(f.Src)))
	if f.lines == nil {
		f.lines = lineStarts(f.Src)
	}
	row, _ := position(f.lines, offset)
	return row + 1, Column(f.Src, offset)
}
