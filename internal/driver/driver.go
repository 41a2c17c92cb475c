// Package driver runs cachelint's analyzers over one project: one Pass per analyzer over all
// the files in analysis scope, analyzers in Requires order, panics contained. It is shaped
// after x/tools' go/analysis, whose drivers load Go packages only; ours carries what a
// Python project needs instead: per-run settings, a context that cancels the run, and
// diagnostics that carry everything a printer or a baseline needs.
package driver

import (
	"context"
	"fmt"
	"go/token"
	"os"
	"runtime/debug"
	"runtime/trace"
	"sort"
	"sync/atomic"
)

// Analyzer is one analysis over the whole project. Building blocks return a result for the
// analyzers that require them; reporters report diagnostics. Run must not mutate the results
// of the analyzers it requires.
type Analyzer struct {
	Name     string
	Doc      string
	Requires []*Analyzer
	Run      func(*Pass) (any, error)
}

func (a *Analyzer) String() string { return a.Name }

// Settings are the per-run options the analyzers read. They come from the command line and
// the configuration of one run; nothing of them lives in package state.
type Settings struct {
	// Root is the project root (as the files' paths are written), for resolving imports.
	Root string
	// ExtraHelpers are dotted names of functions that empty the cache (`extra-helpers`).
	ExtraHelpers []string
	// StepLoopNames are names of functions called once per step, or of iterables that
	// yield batches (`step-loop-names`).
	StepLoopNames []string
	// Jobs is the number of goroutines that parse files and resolve calls; 0 means GOMAXPROCS.
	Jobs int
	// Progress, when set, counts the work as it is done, for a progress line (nil: none).
	Progress *Progress
	// Trees, when set, keeps parsed trees between runs (pyparse.TreeCache).
	Trees interface {
		Get(key string) []byte
		Put(key string, tree []byte)
		Holds(key string) bool
	}
	// Signatures, when set, gives the signature an earlier run kept of a file it read, when
	// the file has not changed since (pyparse.Result.Know); nil for none.
	Signatures func(path string) []byte
	// TextHashes, when set with Trees, gives the SHA-256 of the text an earlier run parsed
	// of a file that has not changed since (ok false for none): its text is taken with its
	// tree from Trees (pyparse.Result.KnowTexts).
	TextHashes func(path string) (hash [32]byte, ok bool)
	// Kept, when set, is what an earlier run's analysis kept for a run after an edit that
	// changed parsed files only (nil: none, or the run is no such run).
	Kept *Kept
	// Reported, when set, says which files the run reports (a pre-commit run's files): an
	// analyzer may leave out work whose results can only fall in other files, so that what
	// it finds in other files is incomplete. nil: every file is reported.
	Reported func(path string) bool
	// PauseGC, when set, turns the garbage collector off until the function it returns is
	// called: for a phase that allocates only what the run keeps to its end (a kept run
	// reading back the last run's trees), where collecting costs time and frees nothing.
	PauseGC func() (resume func())
	// HoldGC, when set, keeps the garbage collector off until the function it returns is
	// called or the analysis ends (the caller of driver.Run turns it back on then), bounded
	// by a limit on the process's memory: for an analysis that, once its files are read
	// back, keeps most of what it allocates (a kept run), where collecting costs more than
	// it frees.
	HoldGC func() (release func())
}

// Kept is what an earlier run left for the next when the files it parsed are all there and
// only some of their texts changed: the analyzers may take what it found of the files that
// did not change when they can tell it still holds, and run in full otherwise.
type Kept struct {
	// Graph is what the analysis kept of each file it parsed (its own encoding); it must
	// stay as it is for as long as the process runs (what is read from it may be its bytes).
	Graph []byte
	// Parsed are the files the run parsed, Changed those of them whose text changed since.
	Parsed, Changed []string
	// Needles, Rounds, ImportsAsked and Lookups are the run's (engine.Facts).
	Needles      []string
	Rounds       int
	ImportsAsked map[string]map[string]bool
	Lookups      Lookups
}

// Lookups are what an analysis asked of the scope's paths besides the files' texts: a file
// added or removed matters to it when its path is one of Paths or ends with one of Suffixes.
// Both are absolute and slash-separated (filepath.ToSlash of filepath.Clean of the file's
// path joined to the working directory); a suffix starts with a slash.
type Lookups struct {
	Paths, Suffixes []string
}

// Progress is how far a run has got, read while it runs: files parsed so far and the
// prefilter round under way; for a tree of repositories analysed one by one, how many there
// are to analyse and how many are done (0 and 0 for one project).
type Progress struct {
	Parsed      atomic.Int64
	Round       atomic.Int32
	Repos, Done atomic.Int32
}

// Pass is what one analyzer sees.
type Pass struct {
	// Context is cancelled when the run is interrupted; long loops check it.
	Context  context.Context
	Analyzer *Analyzer
	Settings *Settings
	// Files are the files in analysis scope, sorted.
	Files    []string
	ReadFile func(path string) ([]byte, error)
	// Fset places the parsed files' byte offsets (pyparse.File.Pos); it gives offsets only,
	// not lines: a line and column come from pyparse.File.Position or Node.Line, which count
	// them as Python does.
	Fset     *token.FileSet
	ResultOf map[*Analyzer]any
	Report   func(Diagnostic)
}

// Diagnostic is one finding as an analyzer reports it: positions in the Fset, and every
// piece a printer or a baseline needs, typed.
type Diagnostic struct {
	Pos, End token.Pos
	// Code is the rule code (rules.CL001, ...).
	Code    string
	Message string
	// Label is the short note printed under the caret in the code frame.
	Label string
	// Help is the `= help:` line.
	Help string
	// Function is the dotted name of the enclosing function ("" at module level), and
	// Snippet the normalised source of the reported statement: the finding's fingerprint.
	Function, Snippet string
	// Period is a CL002 gate's period (0 when unknown), for the cost line.
	Period  int
	Related []Related
	// Fix is the one fix a diagnostic may offer; its applicability is the rule's.
	Fix *Fix
}

// Related is a secondary location.
type Related struct {
	Pos, End token.Pos
	Message  string
}

// Fix is a suggested change.
type Fix struct {
	Message string
	Edits   []Edit
}

// Edit replaces the text between Pos and End.
type Edit struct {
	Pos, End token.Pos
	NewText  string
}

// Options say what to analyse and how.
type Options struct {
	// Files are the files in analysis scope (the whole project, for resolving helpers).
	Files []string
	// ReadFile reads a file's Python text (notebooks arrive converted); default os.ReadFile.
	ReadFile func(path string) ([]byte, error)
	// Analyzers to run; their Requires are added automatically.
	Analyzers []*Analyzer
	Settings  Settings
}

// Finding is a reported diagnostic and the analyzer that reported it.
type Finding struct {
	Diagnostic
	Analyzer *Analyzer
}

// Result is what a run produced.
type Result struct {
	// Fset gives the diagnostics' files and byte offsets (Pass.Fset), not their lines.
	Fset        *token.FileSet
	Diagnostics []Finding
	Results     map[*Analyzer]any
	// Errors are internal errors: an analyzer that failed or panicked. The run went on with
	// the analyzers that did not depend on it.
	Errors []error
}

// InternalErrors is implemented by analyzer results that caught a panic on one file and
// went on with the others.
type InternalErrors interface{ InternalErrors() []error }

// Run runs the analyzers. It returns ctx's error when the run was cancelled.
func Run(ctx context.Context, opts Options) (*Result, error) {
	order, err := topo(opts.Analyzers)
	if err != nil {
		return nil, err
	}
	read := opts.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	files := append([]string(nil), opts.Files...)
	sort.Strings(files)
	settings := opts.Settings
	res := &Result{Fset: token.NewFileSet(), Results: map[*Analyzer]any{}}
	failed := map[*Analyzer]bool{}
	for _, a := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		skip := false
		for _, req := range a.Requires {
			skip = skip || failed[req]
		}
		if skip {
			failed[a] = true
			continue
		}
		pass := &Pass{
			Context:  ctx,
			Analyzer: a,
			Settings: &settings,
			Files:    files,
			ReadFile: read,
			Fset:     res.Fset,
			ResultOf: map[*Analyzer]any{},
			Report: func(d Diagnostic) {
				res.Diagnostics = append(res.Diagnostics, Finding{Diagnostic: d, Analyzer: a})
			},
		}
		for _, req := range a.Requires {
			pass.ResultOf[req] = res.Results[req]
		}
		out, err := runOne(a, pass)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if err != nil {
			failed[a] = true
			res.Errors = append(res.Errors, err)
			continue
		}
		res.Results[a] = out
		if ie, ok := out.(InternalErrors); ok {
			res.Errors = append(res.Errors, ie.InternalErrors()...)
		}
	}
	return res, nil
}

func runOne(a *Analyzer, pass *Pass) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error: analyzer %s panicked: %v\n%s", a.Name, v, debug.Stack())
		}
	}()
	region := trace.StartRegion(pass.Context, "analyzer "+a.Name)
	out, err = a.Run(pass)
	region.End()
	if err != nil {
		return nil, fmt.Errorf("analyzer %s: %w", a.Name, err)
	}
	return out, nil
}

// topo orders analyzers so each runs after its Requires, keeping the given order otherwise.
// It rejects an unnamed analyzer, one without Run, two analyzers of one name and cycles.
func topo(roots []*Analyzer) ([]*Analyzer, error) {
	var order []*Analyzer
	state := map[*Analyzer]int{} // 1 visiting, 2 done
	names := map[string]*Analyzer{}
	var visit func(a *Analyzer) error
	visit = func(a *Analyzer) error {
		switch state[a] {
		case 1:
			return fmt.Errorf("invalid analyzer suite: %s requires itself", a.Name)
		case 2:
			return nil
		}
		if a.Name == "" || a.Run == nil {
			return fmt.Errorf("invalid analyzer suite: analyzer %q has no name or no Run", a.Name)
		}
		if other := names[a.Name]; other != nil && other != a {
			return fmt.Errorf("invalid analyzer suite: two analyzers named %s", a.Name)
		}
		names[a.Name] = a
		state[a] = 1
		for _, r := range a.Requires {
			if err := visit(r); err != nil {
				return err
			}
		}
		state[a] = 2
		order = append(order, a)
		return nil
	}
	for _, a := range roots {
		if err := visit(a); err != nil {
			return nil, err
		}
	}
	return order, nil
}
