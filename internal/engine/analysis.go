package engine

import (
	"context"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/report"
)

// Analysis is what a run analyses with: the analyzers, and readers for what their building
// blocks produced. The engine knows neither the analyzers nor the parser; cmd/cachelint
// hands it analyzers.Engine, so a front end (the CLI, an editor server) can only reach the
// analysis through Run and its typed Result.
type Analysis interface {
	// Analyzers are the analyzers to run; the driver adds what they require.
	Analyzers() []*driver.Analyzer
	// Facts reads what one finished driver run produced. Its error is an internal one.
	Facts(res *driver.Result) (*Facts, error)
	// Matcher reports whether a file's text would matter to a run that searched for the
	// needles and left the file unparsed: it mentions one of them, as the prefilter decides
	// what to parse (Facts.Needles), or it answers otherwise one of the questions the run
	// asked about its imports (Facts.ImportsAsked). The cache checks changed files with it.
	Matcher(needles []string) func(src []byte, asked map[string]bool) bool
	// SyntaxErrors counts the syntax errors in src, to check that a fix does not break a
	// file; an error means no tree could be built at all.
	SyntaxErrors(ctx context.Context, path string, src []byte) (int, error)
	// TreeKey is the key a tree store (driver.Settings.Trees) keeps src's tree under, and
	// Tree that tree, encoded, parsed now: a run parses the files an edit changed ahead of
	// its own parse (parseAhead) and hands their trees to it through the store.
	TreeKey(src []byte) string
	Tree(ctx context.Context, path string, src []byte) ([]byte, error)
}

// Facts are what the engine reads from one run: the parsed files, the files that failed,
// the classified calls and how much work was done.
type Facts struct {
	// Files are the parsed files by path.
	Files map[string]*File
	// Failures are the files that could not be read or parsed.
	Failures []Failure
	// Calls are the classified cache-emptying calls, in every file analysed.
	Calls []Call
	// Cut are the analyses cut short: a file whose calls were not all followed.
	Cut []Cut
	// Seen is the number of files in analysis scope, Parsed how many were parsed (Reused of
	// them from trees kept by an earlier run), Rounds how many prefilter rounds ran.
	Seen, Parsed, Reused, Rounds int
	// Unread is how many files were not read at all: unchanged since an earlier run, whose
	// signature (Settings.Signatures) showed they mention no needle.
	Unread int
	// Signatures are those of the files read (those parsed too when a cache keeps trees),
	// for the next run (nil when the analysis keeps none).
	Signatures Signatures
	// Needles are what the prefilter searched for: a file that mentions none of them and
	// was not parsed adds nothing to the run, whatever else it holds.
	Needles []string
	// ImportsAsked are the files left unparsed that the analysis asked whether an import
	// statement of theirs binds a name (a module a call names, which may re-export the
	// function: `from .memory import *`): path -> name -> the answer. Their import
	// statements mattered to the run, not only the needles they do not mention.
	ImportsAsked map[string]map[string]bool
	// Lookups are what the analysis asked of the scope's paths (an import resolved against
	// them): a file added or removed that is none of them, mentions no needle and, removed,
	// was not parsed nor asked about changes nothing the analysis found.
	Lookups Lookups
	// Graph is what the analysis keeps of each parsed file for a run after an edit: the
	// pieces of the store, in order (driver.Kept.Graph is them put together), nil for
	// nothing; Kept is how many files' part of it this run took
	// from such a run's (driver.Settings.Kept) instead of finding it again, KeptMiss why it
	// took none of what it was given ("" when it was given nothing).
	Graph    [][]byte
	Kept     int
	KeptMiss string
	// KeptAgain is how many unchanged files of such a run had their calls found again,
	// because they read what the edit changed.
	KeptAgain int
	// CacheCalls is how many cache-emptying calls the project holds, Classified how many of
	// them the analysis classified: fewer when only some files are reported
	// (driver.Settings.Reported) and the others' records can fall only elsewhere.
	CacheCalls, Classified int
}

// File is one parsed file.
type File struct {
	Path string
	// Src is the Python text analysed (a notebook's program of code cells).
	Src []byte
	// Errors are its syntax errors, in order.
	Errors []SyntaxError
	// Position turns a byte offset into a 1-based line and code-point column.
	Position func(offset int) (line, col int)
	// Hash is the SHA-256 of Src when the analysis took it (a tree kept between runs is
	// keyed by it), zero when it did not: the cache records it of each parsed file.
	Hash [32]byte
}

// SyntaxError is a place the parser could not parse.
type SyntaxError struct {
	Line, Col int // 1-based; Col in code points
	Msg       string
}

// Failure is a file that could not be read or parsed at all; Internal marks a bug in
// cachelint (a panic caught while parsing it), which makes the run exit 2; OverBudget a
// parse stopped when the file ran out of its time budget.
type Failure struct {
	Path       string
	Err        error
	Internal   bool
	OverBudget bool
}

// Cut is an analysis stopped short in one file, said in words ("the callers of the
// torch.cuda.empty_cache() at line 12 were followed through 200 call sites only").
type Cut struct {
	Path, What string
}

// Call is one classified cache-emptying call. Record holds everything but the positions
// and the helper chain, which the engine fills in (notebooks mapped, modules named).
type Call struct {
	Record report.CallRecord
	// Offset is the call's byte offset in Record.File; LoopLine the governing loop's line
	// (0 when none).
	Offset   int
	LoopLine int
	// LoopFile is the governing loop's file when it is not Record.File (a base class's loop
	// that runs the override the call sits in).
	LoopFile string
	// Via is the helper chain from the site to the cache-emptying call.
	Via []Step
}

// Step is one helper in a chain: the function and the file that defines it.
type Step struct {
	File, QualName string
}

// Progress is how far a run has got, read while it runs (Options.Progress).
type Progress = driver.Progress
