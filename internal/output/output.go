package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/fatih/color"

	"github.com/cachelint/cachelint/internal/baseline"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

// Formats lists the accepted --format names. "full" is also accepted, as an alias of
// "text", because ruff users type it.
var Formats = []string{"text", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit"}

// Options tune the printers.
type Options struct {
	// Color turns on ANSI colour in text, concise and --statistics output.
	Color bool
	// Version is cachelint's version, for SARIF tool.driver.version (left out when empty).
	Version string
	// StepSummary, when non-nil, receives a Markdown summary table from the github format
	// (the CLI opens $GITHUB_STEP_SUMMARY for appending).
	StepSummary io.Writer
	// Cwd is the absolute directory that relative finding paths are relative to. SARIF
	// records it as the SRCROOT base of its artifact URIs and gitlab makes absolute paths
	// below it relative. Empty: paths are used as they are.
	Cwd string
	// Workspace is GitHub's workspace, the repository root ($GITHUB_WORKSPACE): the github
	// format writes file paths relative to it, as the runner resolves an annotation's file,
	// whatever directory cachelint ran in (working-directory). Empty: paths as they are.
	Workspace string
	// ProjectRoot is the project root as shown (engine.Result.RootRel): fingerprints make
	// file paths relative to it, as baselines do, so they survive running from elsewhere.
	ProjectRoot string
	// UnsafeFixes is set when the user passed --unsafe-fixes: unsafe fixes then count as
	// fixable in the summary and the statistics, as in ruff.
	UnsafeFixes bool
	// Fixed is how many findings --fix removed before this report: the summary then says
	// "Found 4 findings (2 fixed, 2 remaining: 1 error, 1 warning).", as ruff's "Found 3
	// errors (1 fixed, 2 remaining).".
	Fixed int
	// Quiet leaves out the closing summary of the human formats ("Found 2 errors.", "All
	// checks passed!"), as ruff's -q does: the findings alone.
	Quiet bool
}

// Location is where a finding is, as the text formats show it: "file:line:col", or
// "nb.ipynb:cell 3:line 2:col" in a notebook. No colour.
func Location(f report.Finding) string {
	return humanLocation(f, newPalette(false), true)
}

type printer func(b *bytes.Buffer, fs []report.Finding, rep *report.Report, opts Options) error

var printers = map[string]printer{
	"text":       printFull,
	"full":       printFull,
	"concise":    printConcise,
	"json":       printJSON,
	"json-lines": printJSONLines,
	"sarif":      printSARIF,
	"github":     printGitHub,
	"gitlab":     printGitLab,
	"junit":      printJUnit,
}

// Print writes rep in the named format. An unknown format is an error, and nothing is
// written then. The output is built in memory first so that a failing writer never leaves
// half a JSON document behind without an error.
func Print(w io.Writer, format string, rep *report.Report, opts Options) error {
	if rep == nil {
		return errors.New("print findings: nil report")
	}
	p, ok := printers[format]
	if !ok {
		return fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(Formats, ", "))
	}
	fs := prepare(rep.Findings)
	var b bytes.Buffer
	if err := p(&b, fs, rep, opts); err != nil {
		return fmt.Errorf("format %s output: %w", format, err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write %s output: %w", format, err)
	}
	return nil
}

// prepare copies the findings and fills the rule facts a producer may have left out, so
// every printer sees the registry's name, severity and URL.
func prepare(in []report.Finding) []report.Finding {
	out := make([]report.Finding, len(in))
	copy(out, in)
	for i := range out {
		f := &out[i]
		r, ok := rules.Lookup(f.Code)
		if !ok {
			continue
		}
		if f.Name == "" {
			f.Name = r.Name
		}
		if f.Severity == "" {
			f.Severity = r.Severity
		}
		if f.URL == "" {
			f.URL = r.URL()
		}
	}
	return out
}

// fingerprints are the findings' baseline fingerprints (baseline.Fingerprints), paths
// relative to the project root.
func fingerprints(fs []report.Finding, opts Options) []string {
	return baseline.Fingerprints(fs, opts.ProjectRoot)
}

// fixState says whether a finding's fix would be applied by --fix under the current
// --unsafe-fixes setting, or is hidden behind --unsafe-fixes.
func fixState(f report.Finding, unsafeFixes bool) (applicable, hidden bool) {
	if f.Fix == nil {
		return false, false
	}
	switch f.Fix.Applicability {
	case "safe":
		return true, false
	case "unsafe":
		return unsafeFixes, !unsafeFixes
	}
	return false, false
}

// writeSummary writes ruff's closing lines for the human formats (none with Quiet).
func writeSummary(b *bytes.Buffer, fs []report.Finding, opts Options, pal palette) {
	if opts.Quiet {
		return
	}
	switch {
	case opts.Fixed > 0:
		total := opts.Fixed + len(fs)
		fmt.Fprintf(b, "Found %d %s (%d fixed, %d remaining", total, plural(total, "finding", "findings"), opts.Fixed, len(fs))
		if len(fs) > 0 {
			b.WriteString(": " + severityCounts(fs))
		}
		b.WriteString(").\n")
	case len(fs) == 0:
		b.WriteString("All checks passed!\n")
		return
	default:
		b.WriteString(foundLine(fs) + "\n")
	}
	applicable, hidden := 0, 0
	for _, f := range fs {
		a, h := fixState(f, opts.UnsafeFixes)
		if a {
			applicable++
		}
		if h {
			hidden++
		}
	}
	star := "[" + pal.fixable.Sprint("*") + "]"
	hiddenNote := fmt.Sprintf("%d hidden %s can be enabled with the `--unsafe-fixes` option", hidden, plural(hidden, "fix", "fixes"))
	switch {
	case applicable > 0 && hidden > 0:
		fmt.Fprintf(b, "%s %d fixable with the `--fix` option (%s).\n", star, applicable, hiddenNote)
	case applicable > 0:
		fmt.Fprintf(b, "%s %d fixable with the `--fix` option.\n", star, applicable)
	case hidden > 0:
		fmt.Fprintf(b, "No fixes available (%s).\n", hiddenNote)
	}
}

// severityNouns name findings of one severity, in the order the summary counts them: in a
// list of severities (one, many) and when all findings have it (alone, alones).
var severityNouns = []struct {
	severity                 rules.Severity
	one, many, alone, alones string
}{
	{rules.Error, "error", "errors", "error", "errors"},
	{rules.Warning, "warning", "warnings", "warning", "warnings"},
	{rules.Info, "info", "info", "info finding", "info findings"},
}

// foundLine counts the findings by severity: "Found 2 errors." when all are errors, as
// ruff's line (all of ruff's diagnostics are errors), else "Found 5 findings: 2 errors,
// 2 warnings, 1 info.".
func foundLine(fs []report.Finding) string {
	for _, sn := range severityNouns {
		if n := countSeverity(fs, sn.severity); n == len(fs) {
			return fmt.Sprintf("Found %d %s.", n, plural(n, sn.alone, sn.alones))
		}
	}
	return fmt.Sprintf("Found %d %s: %s.", len(fs), plural(len(fs), "finding", "findings"), severityCounts(fs))
}

// severityCounts lists how many findings have each severity: "2 errors, 1 info". A
// severity the registry does not know is counted as "other".
func severityCounts(fs []report.Finding) string {
	var parts []string
	counted := 0
	for _, sn := range severityNouns {
		if n := countSeverity(fs, sn.severity); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, sn.one, sn.many)))
			counted += n
		}
	}
	if other := len(fs) - counted; other > 0 {
		parts = append(parts, fmt.Sprintf("%d other", other))
	}
	return strings.Join(parts, ", ")
}

func countSeverity(fs []report.Finding, s rules.Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity == s {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ruleStat is one line of --statistics: how many findings a rule has and whether --fix
// (under the current --unsafe-fixes setting) would fix any of them.
type ruleStat struct {
	Code    string `json:"code"`
	Name    string `json:"name"`
	Count   int    `json:"count"`
	Fixable bool   `json:"fixable"`
}

// ruleStats counts findings per rule, most frequent first, then by code.
func ruleStats(fs []report.Finding, opts Options) []*ruleStat {
	byCode := map[string]*ruleStat{}
	stats := []*ruleStat{}
	for _, f := range fs {
		s, ok := byCode[f.Code]
		if !ok {
			s = &ruleStat{Code: f.Code, Name: f.Name}
			byCode[f.Code] = s
			stats = append(stats, s)
		}
		s.Count++
		if a, _ := fixState(f, opts.UnsafeFixes); a {
			s.Fixable = true
		}
	}
	sort.SliceStable(stats, func(i, j int) bool {
		if stats[i].Count != stats[j].Count {
			return stats[i].Count > stats[j].Count
		}
		return stats[i].Code < stats[j].Code
	})
	return stats
}

// Statistics writes ruff's --statistics table: count, code and name (with a [*] / [ ]
// fixability column when any rule is fixable), most frequent first, then the summary.
// With no findings it writes nothing, as ruff does.
func Statistics(w io.Writer, rep *report.Report, opts Options) error {
	if rep == nil {
		return errors.New("print statistics: nil report")
	}
	fs := prepare(rep.Findings)
	if len(fs) == 0 {
		return nil
	}
	stats := ruleStats(fs, opts)
	countWidth, codeWidth, anyFixable := 0, 0, false
	for _, s := range stats {
		countWidth = max(countWidth, len(strconv.Itoa(s.Count)))
		codeWidth = max(codeWidth, len(s.Code))
		anyFixable = anyFixable || s.Fixable
	}
	pal := newPalette(opts.Color)
	var b bytes.Buffer
	for _, s := range stats {
		marker := ""
		if anyFixable {
			marker = "[ ] "
			if s.Fixable {
				marker = "[" + pal.fixable.Sprint("*") + "] "
			}
		}
		fmt.Fprintf(&b, "%s\t%s\t%s%s\n",
			pal.bold.Sprint(fmt.Sprintf("%*d", countWidth, s.Count)),
			pal.code.Sprint(fmt.Sprintf("%-*s", codeWidth, s.Code)),
			marker, s.Name)
	}
	writeSummary(&b, fs, opts, pal)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write statistics: %w", err)
	}
	return nil
}

// StatisticsJSON writes the --statistics counts as ruff's `--statistics --output-format
// json` does: an array of {code, name, count, fixable}, most frequent first; [] when
// nothing was found.
func StatisticsJSON(w io.Writer, rep *report.Report, opts Options) error {
	if rep == nil {
		return errors.New("print statistics: nil report")
	}
	var b bytes.Buffer
	if err := encoder(&b, true).Encode(ruleStats(prepare(rep.Findings), opts)); err != nil {
		return fmt.Errorf("encode statistics: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write statistics: %w", err)
	}
	return nil
}

// palette holds one colour object per role, each switched on or off for this writer only:
// the package-global color.NoColor would leak the choice into other writers (stderr).
type palette struct {
	bold, path, sep, code, gutter, fixable, help *color.Color
	severity                                     map[rules.Severity]*color.Color
	other                                        *color.Color
}

func newPalette(enabled bool) palette {
	set := func(c *color.Color) *color.Color {
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return palette{
		bold:    set(color.New(color.Bold)),
		path:    set(color.New(color.Bold)),
		sep:     set(color.New(color.FgCyan)),
		code:    set(color.New(color.FgRed, color.Bold)),
		gutter:  set(color.New(color.FgBlue, color.Bold)),
		fixable: set(color.New(color.FgCyan)),
		help:    set(color.New(color.FgCyan, color.Bold)),
		severity: map[rules.Severity]*color.Color{
			rules.Error:   set(color.New(color.FgRed, color.Bold)),
			rules.Warning: set(color.New(color.FgYellow, color.Bold)),
			rules.Info:    set(color.New(color.FgBlue, color.Bold)),
		},
		other: set(color.New(color.Bold)),
	}
}

func (p palette) forSeverity(s rules.Severity) *color.Color {
	if c, ok := p.severity[s]; ok {
		return c
	}
	return p.other
}

// slashPath gives a finding's path with forward slashes, as every machine format wants.
func slashPath(file string) string {
	return filepath.ToSlash(file)
}

// isAbsPath reports whether a forward-slash path is absolute here or on Windows
// ("C:/x"), since reports may be printed on one OS about paths from another.
func isAbsPath(p string) bool {
	if path.IsAbs(p) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' &&
		(('a' <= p[0] && p[0] <= 'z') || ('A' <= p[0] && p[0] <= 'Z'))
}
