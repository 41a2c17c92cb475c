// Package engine runs one analysis: it walks the paths, reads the files (notebooks as the
// program of their code cells), runs the analyzers through the driver, and turns what they
// report into typed findings — positions in code points, notebook cells, suppression
// comments, per-file ignores, parse errors (CL900), baselines, fix applicability, order.
// The command line, the pre-commit hook and an editor all call Run and print its Result;
// nothing outside this package sees the analyzers or the parser.
package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cachelint/cachelint/internal/baseline"
	"github.com/cachelint/cachelint/internal/config"
	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/walk"
)

// Options say what one run analyses and reports.
type Options struct {
	// Paths are the files and directories to report on; none means ".".
	Paths []string
	// Root is the project root indexed to resolve helpers; "" means the nearest directory
	// above Paths[0] with a pyproject.toml, setup.cfg, setup.py or .git.
	Root string
	// Config is the configuration in effect (nil: none); its per-file-ignores, helpers and
	// step-loop names apply. File selection comes from Walk, which the caller merges.
	Config *config.Config
	Walk   walk.Options
	// Jobs is the number of goroutines that parse files and resolve calls; 0 means one per CPU.
	Jobs int
	// Rules are the enabled rule codes; CL900 reports files that do not parse.
	Rules map[string]bool
	// Baseline, when set, leaves out the findings it records.
	Baseline *baseline.Baseline
	// Analysis is what to analyse with (analyzers.Engine); required.
	Analysis Analysis
	// Stdin, when set, replaces Paths: the one file in report scope is Stdin.Name, whose
	// text is Stdin.Source (an editor's buffer), whether or not the file exists on disk.
	Stdin *Stdin
	// Progress, when set, counts the files parsed as the run goes (a progress line).
	Progress *driver.Progress
	// Cache, when set, keeps what a run found and gives it back to the next run while no
	// file that mattered changed (cache.go). A run with Stdin neither reads nor writes it.
	Cache *Cache
	// Calls asks for the classified calls (Result.Calls): `cachelint calls` and `trace`.
	// Without it a run from the cache leaves them undecoded, most of what an entry holds.
	Calls bool
}

// Stdin is a file read from standard input, reported under Name ("-" when none was given);
// the project around Name is indexed as usual, with Source in place of Name's contents.
type Stdin struct {
	Name   string
	Source []byte
}

// Result is what a run found.
type Result struct {
	// Report holds the findings in report scope, sorted by file and position.
	Report *report.Report
	// Calls are the classified cache-emptying calls in report scope (`cachelint calls`),
	// when Options.Calls asks for them.
	Calls []report.CallRecord
	// Warnings came up while finding the files (an unreadable directory, a bad .gitignore).
	Warnings []string
	// Unreadable are files in report scope that could not be read or parsed at all.
	Unreadable []string
	// SyntaxErrors are the files in report scope that parsed with syntax errors, one
	// finding each at the first error with the parser's message (a CL900 finding reports
	// the same when that rule is on), for a warning.
	SyntaxErrors []report.Finding
	// Incomplete are the files in report scope whose analysis was cut short (a parse over
	// its time budget, callers not all followed), each also in Warnings: a run with one is
	// not clean whatever it found.
	Incomplete []Incomplete
	// Errors are internal errors (a bug in cachelint): the run must exit 2.
	Errors []error
	// Root is the project root (absolute); RootRel the same as shown, which baselines and
	// fingerprints make file paths relative to.
	Root, RootRel string
	Cwd           string
	Stats         Stats

	p *project
	// units are the repositories analysed each as a project of its own (repoUnits) when the
	// tree holds more than one; p is then the whole tree's table of files, analysed by none.
	units []*project
}

// Incomplete is a file whose analysis was cut short, and what was skipped.
type Incomplete struct {
	Path, What string
}

// Stats say how much work a run did.
type Stats struct {
	Reported, Indexed, Parsed int
	// Rounds is how many prefilter rounds ran.
	Rounds int
	// Reused is how many of the parsed files had their tree from the cache (treeStore).
	Reused int
	// Unread is how many files were not read at all: unchanged since the run that kept
	// their signatures in the cache, which showed they mention no needle.
	Unread int
	// Kept is how many parsed files' part of the call graph came from the run before an
	// edit (driver.Kept): only the others' calls were resolved. KeptMiss says why such a
	// run's graph, when there was one, was not taken.
	Kept     int
	KeptMiss string
	// KeptAgain is how many unchanged files' calls such a run found again: they read what
	// the edit changed (Facts.KeptAgain).
	KeptAgain int
	// CacheCalls and Classified are Facts'.
	CacheCalls, Classified int
	// Elapsed is the run's wall time.
	Elapsed time.Duration
	// Repositories is how many git repositories were analysed, each as a project of its
	// own (units.go); 0 when the tree is one project.
	Repositories int
	// Cached is set when the analysis came from the cache: nothing was parsed this run.
	// Reread is how many files such a run read again because their size or time changed,
	// and found changed in nothing the analysis read of them (or not at all).
	Cached bool
	Reread int
	// CacheMiss says, when the cache held an analysis that did not hold for this run, which
	// change made it not hold ("" otherwise, and when only files it parsed changed).
	CacheMiss string
	// Added and Removed count the files added to the analysis scope, and removed from it,
	// since the analysis the cache kept, when that analysis held for the run's scope (or
	// for the files it did not parse, the graph kept): none of them mattered to it.
	Added, Removed int
	// CacheDir is the cache folder read or written ("" without a cache).
	CacheDir string
}

// project is one analysed project: what was read, what was found.
type project struct {
	cwd  string
	root string
	cfg  *config.Config
	// report are the display paths in report scope; nil when that is every indexed file.
	report map[string]bool
	// paths are the display paths of the files indexed or reported, sorted, and walked the
	// walk's file of each: a table, not a map by path (making one of 11,800 files was a
	// sixth of a warm run's serial work).
	paths   []string
	walked  []walk.File
	res     *driver.Result
	an      Analysis
	facts   *Facts    // nil when the analysis came from the cache
	a       *analysed // what the analyzers found, run now or cached
	srcMu   sync.Mutex
	sources map[string][]byte
	nbMu    sync.Mutex // readFile runs on the parse workers
	// malformed are the problems of each notebook read, by path (only those, not the
	// notebooks themselves, are kept while the run reads files); nb are the notebooks read
	// again to map what is reported in them (notebook).
	malformed map[string][]string
	nb        map[string]*notebookInfo
	// stdin is the file read from standard input and stdinPath its display path.
	stdin     *Stdin
	stdinPath string
}

// Run analyses the project. It returns ctx's error when cancelled, and an error (to be
// shown as is) for a path that does not exist or a root that is not a directory.
func Run(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	paths := opts.Paths
	if opts.Stdin != nil {
		paths = []string{opts.Stdin.Name}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	// Files are shown, read and written by their path relative to the working directory,
	// as the analyzers resolve them.
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	var named []string // the Python files named (pre-commit names those a commit changed)
	for _, p := range paths {
		if opts.Stdin != nil {
			break // need not exist
		}
		fi, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%s: no such file or directory", p)
			}
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if fi.Mode().IsRegular() && strings.HasSuffix(p, ".py") {
			named = append(named, p)
		}
	}
	if opts.Analysis == nil {
		return nil, errors.New("engine: no analysis given")
	}
	if opts.Jobs < 0 {
		return nil, fmt.Errorf("--jobs must be at least 1, got %d", opts.Jobs)
	}
	root := opts.Root
	if root != "" {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--project-root %s: not a directory", root)
		}
		root, _ = filepath.Abs(root)
	} else {
		root = walk.FindProjectRoot(paths[0])
	}

	pr := &project{cwd: cwd, root: root, cfg: opts.Config, an: opts.Analysis,
		sources: map[string][]byte{}, nb: map[string]*notebookInfo{}, malformed: map[string][]string{}, stdin: opts.Stdin}
	out := &Result{Root: root, RootRel: displayPath(cwd, root), Cwd: cwd, p: pr}
	// The walk, the files' table and the cache entry's head allocate what lives to the end
	// of the run: collecting garbage meanwhile only costs time (in a fresh process the
	// collector's first goal is 2 MB at GOGC 50). Collection resumes once the head is
	// decoded (load), or where the analysis starts.
	gcOn := pauseGC()
	defer gcOn()
	var cache *resultCache
	if opts.Cache != nil && opts.Stdin == nil {
		// The entry is read while the walk runs; its stamps are compared after it.
		cache = openCache(ctx, opts.Cache, pr, opts.Jobs, start)
		defer cache.head.release()
		if len(named) > 0 && len(named) <= namedAheadMax {
			// A named file whose text has no kept tree is parsed while the walk runs.
			trees := cache.trees()
			cache.stopNamed = parseNamedAhead(ctx, trees, opts.Analysis, named, cache.mayParse)
			defer trees.close() // the analysis closes it first, unless none runs with it
			defer cache.stopNamed()
		}
	}
	var reportFiles []walk.File
	var warnings []error
	if opts.Stdin != nil {
		reportFiles, err = walk.Named(opts.Stdin.Name, opts.Walk)
		if abs, absErr := filepath.Abs(opts.Stdin.Name); absErr == nil {
			pr.stdinPath = displayPath(cwd, abs)
		}
	}
	// Analysis scope: the whole project, so helpers defined elsewhere resolve. What goes
	// wrong there is worth a warning, never the run: the report scope alone still works.
	opts.Walk.Jobs = opts.Jobs
	// The cache compares each file's size and time: taken while the walks list them.
	opts.Walk.Stat = opts.Cache != nil && opts.Stdin == nil
	indexOpts := opts.Walk
	indexOpts.ForceExclude = true
	region := trace.StartRegion(ctx, "walk")
	indexFiles, indexWarnings, indexErr := walk.Files([]string{root}, indexOpts)
	region.End()
	oneWalk := false // the report scope is every indexed file
	if opts.Stdin == nil {
		if sameDir(paths, root) && indexErr == nil && len(indexFiles) > 0 {
			// `cachelint check .` in the project root: the report scope is the project, walked
			// once (with the root itself not excluded, force-exclude changes nothing).
			reportFiles, warnings, oneWalk = indexFiles, indexWarnings, true
		} else {
			reportFiles, warnings, err = walk.Files(paths, opts.Walk)
		}
	}
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	if err := indexErr; err != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("project root %s not indexed, helpers defined outside the checked paths are not followed: %v", root, err))
	}
	for _, w := range indexWarnings {
		if !slices.Contains(out.Warnings, w.Error()) {
			out.Warnings = append(out.Warnings, w.Error())
		}
	}
	type shown struct {
		path string
		file walk.File
	}
	var files []shown
	if oneWalk {
		// One walk, every file reported: no file is met twice.
		files = make([]shown, len(indexFiles))
		for i, f := range indexFiles {
			files[i] = shown{displayPath(cwd, f.Abs), f}
		}
	} else {
		pr.report = make(map[string]bool, len(reportFiles))
		byAbs := make(map[string]int, len(indexFiles))
		add := func(f walk.File) string {
			if i, ok := byAbs[f.Abs]; ok {
				if files[i].file.Repo == "" {
					// The walk from the root knows the repository a file named by itself,
					// or walked from a folder inside that repository, is in.
					files[i].file.Repo = f.Repo
				}
				return files[i].path
			}
			d := displayPath(cwd, f.Abs)
			byAbs[f.Abs] = len(files)
			files = append(files, shown{d, f})
			return d
		}
		for _, f := range reportFiles {
			pr.report[add(f)] = true
		}
		for _, f := range indexFiles {
			add(f)
		}
	}
	byPath := func(a, b shown) int { return strings.Compare(a.path, b.path) }
	if !slices.IsSortedFunc(files, byPath) { // a walk of the working directory comes sorted
		slices.SortFunc(files, byPath)
	}
	pr.paths, pr.walked = make([]string, len(files)), make([]walk.File, len(files))
	for i, f := range files {
		pr.paths[i], pr.walked[i] = f.path, f.file
	}
	units := repoUnits(root, pr.walked)
	if len(units) > 1 && !pr.reportsIn(unitSet(units[1:])) {
		// Only the root's own files are reported (pre-commit in a repository with
		// submodules): its analysis indexes them all, as one project's does.
		units = units[:1]
	}
	if len(units) > 1 && cache != nil {
		cache.head.release() // the root's entry: each repository has its own
		cache.noParse()
		cache = nil
	}
	if len(units) > 1 {
		gcOn()
		if err := pr.runUnits(ctx, opts, units, start, out); err != nil {
			return nil, err
		}
		out.Stats.Indexed = len(pr.paths) // each file once, though a repository inside another is indexed by both
	} else if err := pr.analyseInto(ctx, opts, cache, out, gcOn); err != nil {
		return nil, err
	}
	if opts.Baseline != nil {
		out.Report.Findings = opts.Baseline.Filter(out.Report.Findings, out.RootRel)
	}
	out.Stats.Elapsed = time.Since(start)
	return out, nil
}

// testHookAnalysed, set by tests, runs once the analysis (driver.Run) has returned, before
// the cache is written and the collector hold released.
var testHookAnalysed func()

// analyseInto runs pr's analysis (taken from the cache when its entry holds) and puts what
// it found in report scope into out.
func (pr *project) analyseInto(ctx context.Context, opts Options, cache *resultCache, out *Result, gcOn func()) error {
	if cache != nil {
		region := trace.StartRegion(ctx, "cache entry")
		cache.stat()
		pr.a = cache.load(opts.Calls, gcOn)
		region.End()
		if pr.a != nil {
			cache.noParse()
		}
		out.Stats.CacheDir, out.Stats.Added, out.Stats.Removed, out.Stats.CacheMiss = cache.dir, cache.added, cache.removed, cache.miss
	}
	gcOn()
	if pr.a == nil {
		settings := driver.Settings{Root: out.RootRel, Jobs: opts.Jobs, Progress: opts.Progress, PauseGC: analysisPause}
		var holds []func()
		var holdsMu sync.Mutex
		settings.HoldGC = func() func() {
			release := analysisHold()
			holdsMu.Lock()
			holds = append(holds, release)
			holdsMu.Unlock()
			return release
		}
		defer func() {
			for _, release := range holds {
				release()
			}
		}()
		if pr.report != nil {
			settings.Reported = pr.reported
		}
		var trees *treeStore
		if cache != nil {
			trees = cache.trees()
			defer trees.close()
			settings.Trees = trees
			if e := cache.edited; e != nil {
				// The files an edit changed are parsed while the run gets to its parse.
				if testHookParseAhead != nil {
					testHookParseAhead(e.changed)
				}
				defer parseAhead(ctx, trees, opts.Analysis, pr.readFile, e.changed)()
			}
			region := trace.StartRegion(ctx, "kept signatures")
			sigs := cache.signatures()
			region.End()
			settings.Kept = cache.keptGraph()
			settings.TextHashes = cache.keptHash
			if len(sigs) > 0 {
				// Each is asked for once; once taken, the store's bytes can go.
				settings.Signatures = func(path string) []byte {
					sig := sigs[path]
					delete(sigs, path)
					return sig
				}
			}
		}
		if opts.Config != nil {
			settings.ExtraHelpers = opts.Config.ExtraHelpers
			settings.StepLoopNames = opts.Config.StepLoopNames
		}
		res, err := driver.Run(ctx, driver.Options{Files: pr.paths, ReadFile: pr.readFile, Analyzers: opts.Analysis.Analyzers(), Settings: settings})
		if testHookAnalysed != nil {
			testHookAnalysed()
		}
		if err != nil {
			return err
		}
		pr.res = res
		region := trace.StartRegion(ctx, "records")
		if pr.facts, err = opts.Analysis.Facts(res); err != nil {
			return errors.Join(append([]error{err}, res.Errors...)...)
		}
		pr.a = pr.analyse(opts.Jobs)
		region.End()
		out.Stats.Reused, out.Stats.Unread, out.Stats.Kept, out.Stats.KeptMiss = pr.facts.Reused, pr.facts.Unread, pr.facts.Kept, pr.facts.KeptMiss
		if trees != nil {
			trees.mu.Lock()
			out.Stats.Reused -= trees.aheadTaken // parsed ahead, then decoded: not kept
			trees.mu.Unlock()
		}
		out.Stats.KeptAgain = pr.facts.KeptAgain
		out.Stats.CacheCalls, out.Stats.Classified = pr.facts.CacheCalls, pr.facts.Classified
		if cache != nil {
			if out.Stats.KeptMiss == "" {
				out.Stats.KeptMiss = cache.graphMiss
			}
			region := trace.StartRegion(ctx, "cache write")
			if err := cache.save(pr.a, pr.facts); err != nil {
				out.Warnings = append(out.Warnings, fmt.Sprintf("cache not written: %v", err))
			} else if ctx.Err() == nil && len(pr.a.Errors) == 0 && len(pr.a.Failures) == 0 {
				trees.finish()
				trees.prune()
			}
			region.End()
		}
	} else {
		out.Stats.Cached, out.Stats.Reread = true, cache.reread
	}

	region := trace.StartRegion(ctx, "findings")
	rep := pr.findings(opts.Rules, opts.Jobs)
	region.End()
	out.Report = rep
	if opts.Calls {
		out.Calls = pr.callRecords()
	}
	out.Errors = pr.internalErrors()
	for _, se := range pr.syntaxErrors() {
		out.SyntaxErrors = append(out.SyntaxErrors, se.At)
	}
	for _, fl := range pr.a.Failures {
		switch {
		case !pr.reported(fl.Path) || fl.Internal:
		case fl.OverBudget:
			out.Incomplete = append(out.Incomplete, Incomplete{Path: fl.Path, What: fl.Msg})
		default:
			out.Unreadable = append(out.Unreadable, fl.Msg)
		}
	}
	for _, c := range pr.a.Cut {
		if pr.reported(c.Path) {
			out.Incomplete = append(out.Incomplete, Incomplete{Path: c.Path, What: c.Path + ": " + c.What})
		}
	}
	for _, in := range out.Incomplete {
		out.Warnings = append(out.Warnings, in.What)
	}
	for _, path := range slices.Sorted(maps.Keys(pr.a.Malformed)) {
		if pr.reported(path) {
			for _, m := range pr.a.Malformed[path] {
				out.Warnings = append(out.Warnings, path+": "+m)
			}
		}
	}
	out.Stats.Reported, out.Stats.Indexed, out.Stats.Parsed, out.Stats.Rounds = pr.reportedCount(), pr.a.Indexed, pr.a.Parsed, pr.a.Rounds
	return nil
}

// readFile gives the driver each file's Python text; notebooks arrive as the program of
// their code cells.
func (pr *project) readFile(path string) ([]byte, error) {
	if testHookRead != nil {
		testHookRead(path)
	}
	data, err := pr.rawFile(path)
	if err != nil {
		return nil, err
	}
	if pr.isNotebook(path) {
		info, err := readNotebook(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if m := info.nb.Malformed; len(m) > 0 {
			pr.nbMu.Lock()
			pr.malformed[path] = m
			pr.nbMu.Unlock()
		}
		data = info.source
	}
	return data, nil
}

// testHookParseAhead, set by tests, sees the files a run parses ahead (parseAhead).
var testHookParseAhead func(paths []string)

// namedAheadMax is the most files named that a run parses ahead (parseNamedAhead): a commit
// changes a handful, whose parse is the longest piece of the run; `pre-commit run
// --all-files` names every file, which the run reads and parses on every CPU itself.
const namedAheadMax = 8

// mayParse reports whether a run with this entry may parse a file of text src that it
// names: a file edited is parsed by the analysis the entry kept when it mentions a name
// that analysis searched for (keptRun), and by none without an entry, or when the entry
// holds, which a file mentioning none leaves standing (load). It waits for the entry.
func (rc *resultCache) mayParse(src []byte) bool {
	<-rc.head.done
	e := rc.head.e
	if e == nil || e.A == nil {
		return false
	}
	rc.matchOnce.Do(func() { rc.match = rc.pr.an.Matcher(e.A.Needles) })
	return rc.match(src, nil)
}

// noParse cancels the parses ahead of the files named: the run parses nothing with this
// entry's tree store.
func (rc *resultCache) noParse() {
	if rc.stopNamed != nil {
		if testHookNoParse != nil {
			testHookNoParse()
		}
		rc.stopNamed()
	}
}

// testHookNoParse, set by tests, runs as a run cancels the parses ahead of the files named.
var testHookNoParse func()

// testHookParseNamed, set by tests, sees the files named that a run parses ahead unless
// their trees are kept (parseNamedAhead).
var testHookParseNamed func(paths []string)

// testHookRead, set by tests, sees each file readFile reads.
var testHookRead func(path string)

// rawFile is a file's text as it stands on disk (or came on standard input).
func (pr *project) rawFile(path string) ([]byte, error) {
	if pr.stdin != nil && path == pr.stdinPath {
		return pr.stdin.Source, nil
	}
	return os.ReadFile(path)
}

// file is the walk's file shown as path.
func (pr *project) file(path string) (walk.File, bool) {
	if i, ok := slices.BinarySearch(pr.paths, path); ok {
		return pr.walked[i], true
	}
	return walk.File{}, false
}

// reported reports whether the file shown as path is in report scope.
func (pr *project) reported(path string) bool {
	if pr.report == nil {
		_, ok := slices.BinarySearch(pr.paths, path)
		return ok
	}
	return pr.report[path]
}

// within reports whether what an analysis that reported the files of scope found
// (analysed.Scope: sorted, nil for every file) is all that this run reports.
func (pr *project) within(scope []string) bool {
	if scope == nil {
		return true
	}
	if pr.report == nil {
		return false
	}
	for path := range pr.report {
		if _, ok := slices.BinarySearch(scope, path); !ok {
			return false
		}
	}
	return true
}

// reportedCount is the number of files in report scope.
func (pr *project) reportedCount() int {
	if pr.report == nil {
		return len(pr.paths)
	}
	return len(pr.report)
}

func (pr *project) isNotebook(path string) bool {
	f, ok := pr.file(path)
	return ok && f.Kind == walk.Notebook
}

// source is a file's Python text as analysed, for code frames, suppression and fixes.
func (pr *project) source(file string) []byte {
	if pr.facts != nil {
		if f := pr.facts.Files[file]; f != nil {
			return f.Src
		}
	}
	pr.srcMu.Lock()
	defer pr.srcMu.Unlock()
	if b, ok := pr.sources[file]; ok {
		return b
	}
	b, err := pr.readFile(file)
	if err != nil {
		b = nil
	}
	pr.sources[file] = b
	return b
}

// internalErrors are panics caught while analysing: they make the run exit 2.
func (pr *project) internalErrors() []error {
	var out []error
	for _, e := range pr.a.Errors {
		out = append(out, errors.New(e))
	}
	for _, fl := range pr.a.Failures {
		if pr.reported(fl.Path) && fl.Internal {
			out = append(out, errors.New(fl.Msg))
		}
	}
	return out
}

// sameDir reports whether paths name exactly the directory root.
func sameDir(paths []string, root string) bool {
	if len(paths) != 1 {
		return false
	}
	abs, err := filepath.Abs(paths[0])
	if err != nil || abs != root {
		return false
	}
	fi, err := os.Stat(abs)
	return err == nil && fi.IsDir()
}

// displayPath is how a file is shown: relative to the working directory when below it,
// with forward slashes.
func displayPath(cwd, abs string) string {
	// Both are clean and absolute: a path below cwd is its text after cwd's (filepath.Rel's
	// answer, without its work, for every file of a walk).
	if dir := strings.TrimSuffix(cwd, string(filepath.Separator)); len(abs) > len(dir)+1 && abs[len(dir)] == filepath.Separator && strings.HasPrefix(abs, dir) {
		if rel := abs[len(dir)+1:]; !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	if rel, err := filepath.Rel(cwd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}
