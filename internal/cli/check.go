package cli

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fatih/color"
	"golang.org/x/tools/go/analysis"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/baseline"
	"github.com/cachelint/cachelint/internal/output"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/suppress"
	"github.com/cachelint/cachelint/pyparse"
	"github.com/cachelint/cachelint/rules"
	runtimecheck "github.com/cachelint/cachelint/runtime-check"
)

type checkFlags struct {
	commonFlags
	format          string
	output          string
	selectR         listFlag
	ignore          listFlag
	extendSelect    listFlag
	exitZero        bool
	statistics      bool
	color           string
	showParseErrors bool
	fix             bool
	unsafeFixes     bool
	diff            bool
	baseline        string
	writeBaseline   string
	addNoqa         bool
	costProfile     string
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf checkFlags
	fs := newFlagSet("check", "check [flags] [PATH...]", stdout)
	cf.register(fs)
	fs.StringVar(&cf.format, "format", "text", "output `FORMAT`: "+strings.Join(output.Formats, ", "))
	fs.StringVar(&cf.format, "output-format", "text", "`FORMAT`: alias of --format")
	fs.StringVar(&cf.output, "output", "", "write the report to `FILE` instead of stdout")
	fs.StringVar(&cf.output, "o", "", "`FILE`: alias of --output")
	fs.Var(&cf.selectR, "select", "`CODES` to enable (codes or prefixes, comma-separated), replacing the defaults")
	fs.Var(&cf.ignore, "ignore", "rule `CODES` to disable")
	fs.Var(&cf.extendSelect, "extend-select", "rule `CODES` to enable in addition to the defaults")
	fs.BoolVar(&cf.exitZero, "exit-zero", false, "exit 0 even when findings remain")
	fs.BoolVar(&cf.statistics, "statistics", false, "print a count per rule instead of the findings")
	fs.StringVar(&cf.color, "color", "auto", "colour `WHEN`: auto, always, never")
	fs.BoolVar(&cf.showParseErrors, "show-parse-errors", false, "report files that do not parse (CL900)")
	fs.BoolVar(&cf.fix, "fix", false, "apply safe fixes")
	fs.BoolVar(&cf.unsafeFixes, "unsafe-fixes", false, "include unsafe fixes (with --fix or --diff)")
	fs.BoolVar(&cf.diff, "diff", false, "print the fixes as a unified diff and change nothing")
	fs.StringVar(&cf.baseline, "baseline", "", "report only findings not recorded in this baseline `FILE`")
	fs.StringVar(&cf.writeBaseline, "write-baseline", "", "record the current findings in `FILE` and exit 0")
	fs.BoolVar(&cf.addNoqa, "add-noqa", false, "add '# noqa: CODE' comments to silence every current finding")
	fs.StringVar(&cf.costProfile, "cost-profile", "", "cost profile `FILE` written by 'cachelint probe --json': add the estimated cost on that GPU to findings")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if !validFormat(cf.format) {
		return usageErr("unknown --format %q (want one of %s)", cf.format, strings.Join(output.Formats, ", "))
	}
	switch cf.color {
	case "auto", "always", "never":
	default:
		return usageErr("unknown --color %q (want auto, always or never)", cf.color)
	}
	var profile *runtimecheck.CostProfile
	if cf.costProfile != "" {
		if profile, err = runtimecheck.LoadProfile(cf.costProfile); err != nil {
			return usageErr("--cost-profile: %v", err)
		}
	}
	var base *baseline.Baseline
	if cf.baseline != "" {
		if base, err = baseline.Load(cf.baseline); err != nil {
			return usageErr("--baseline: %v", err)
		}
	}
	pr, err := analyse(ctx, paths, &cf.commonFlags, stderr, nil)
	if err != nil {
		return err
	}
	enabled, err := enabledRules(&cf, pr)
	if err != nil {
		return err
	}
	if cf.showParseErrors || (pr.cfg != nil && pr.cfg.ShowParseErrors != nil && *pr.cfg.ShowParseErrors) {
		enabled["CL900"] = true
	}
	rep := pr.findings(enabled)
	rootRel := displayPath(pr.cwd, pr.root)
	if cf.writeBaseline != "" {
		return pr.writeBaseline(cf.writeBaseline, rep, rootRel, stderr)
	}
	if base != nil {
		rep.Findings = base.Filter(rep.Findings, rootRel)
	}
	if cf.addNoqa {
		return pr.addNoqa(rep, stderr)
	}
	if cf.fix || cf.diff {
		remaining, changed, err := pr.applyFixes(rep, cf.diff, cf.unsafeFixes, stdout, stderr)
		if err != nil {
			return err
		}
		if cf.diff {
			// Like ruff: a diff means the files are not clean yet.
			if (remaining > 0 || changed) && !cf.exitZero {
				return findingsExit
			}
			return nil
		}
		// Re-lint the fixed files so the report shows what remains.
		pr, err = analyse(ctx, paths, &cf.commonFlags, stderr, nil)
		if err != nil {
			return err
		}
		rep = pr.findings(enabled)
		if base != nil {
			rep.Findings = base.Filter(rep.Findings, rootRel)
		}
	}
	if profile != nil {
		for i := range rep.Findings {
			f := &rep.Findings[i]
			f.Cost = profile.FindingCost(f.Code, f.Period)
		}
	}

	w := stdout
	var outFile *os.File
	if cf.output != "" {
		outFile, err = os.Create(cf.output)
		if err != nil {
			return usageErr("--output: %v", err)
		}
		defer outFile.Close()
		w = outFile
	}
	opts := output.Options{Color: useColor(cf.color, w), Version: Version, Cwd: pr.cwd, UnsafeFixes: cf.unsafeFixes}
	if cf.format == "github" {
		if p := os.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
			if sf, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				defer sf.Close()
				opts.StepSummary = sf
			} else {
				fmt.Fprintf(stderr, "cachelint: warning: GITHUB_STEP_SUMMARY: %v\n", err)
			}
		}
	}
	if cf.statistics {
		err = output.Statistics(w, rep, opts)
	} else {
		err = output.Print(w, cf.format, rep, opts)
	}
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("write report: %w", err)}
	}
	if outFile != nil {
		if err := outFile.Close(); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("write %s: %w", cf.output, err)}
		}
	}
	pr.warnUnreadable(stderr)
	if errs := pr.internalErrors(); len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(stderr, "cachelint: %s\n", e)
		}
		return &exitError{code: exitUsage}
	}
	if len(rep.Findings) > 0 && !cf.exitZero {
		return findingsExit
	}
	return nil
}

func validFormat(f string) bool {
	if f == "full" {
		return true
	}
	for _, x := range output.Formats {
		if x == f {
			return true
		}
	}
	return false
}

func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return !color.NoColor && isTerminal(f)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// enabledRules applies ruff's selection semantics: select replaces the defaults,
// extend-select adds, ignore removes; command-line flags override the configuration.
func enabledRules(cf *checkFlags, pr *project) (map[string]bool, error) {
	var sel, ext, ign []string
	if pr.cfg != nil {
		sel, ext, ign = pr.cfg.Select, pr.cfg.ExtendSelect, pr.cfg.Ignore
	}
	if cf.selectR.set {
		sel = cf.selectR.vals
	}
	ext = append(append([]string(nil), ext...), cf.extendSelect.vals...)
	ign = append(append([]string(nil), ign...), cf.ignore.vals...)
	on := map[string]bool{}
	if sel == nil {
		for _, r := range rules.All() {
			if r.Default {
				on[r.Code] = true
			}
		}
	}
	for _, group := range [][]string{sel, ext} {
		for _, s := range group {
			rs, err := rules.Match(s)
			if err != nil {
				return nil, usageErr("%v", err)
			}
			for _, r := range rs {
				on[r.Code] = true
			}
		}
	}
	for _, s := range ign {
		rs, err := rules.Match(s)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		for _, r := range rs {
			delete(on, r.Code)
		}
	}
	return on, nil
}

// findings converts the driver's diagnostics in report scope into sorted findings, dropping
// disabled rules, per-file ignores and suppressed lines.
func (pr *project) findings(enabled map[string]bool) *report.Report {
	rep := &report.Report{Source: pr.source}
	rep.FilesChecked = len(pr.report)
	directives := map[string]*suppress.Directives{}
	suppressed := func(file, code string, line int) bool {
		d, ok := directives[file]
		if !ok {
			d = suppress.Parse(pr.source(file))
			directives[file] = d
		}
		if d.Suppressed(code, line) {
			return true
		}
		for _, c := range pr.cfg.IgnoredFor(filepath.Join(pr.cwd, filepath.FromSlash(file))) {
			if c == code {
				return true
			}
		}
		return false
	}
	for _, d := range pr.res.Diagnostics {
		code := d.Category
		if !enabled[code] {
			continue
		}
		f := pr.finding(d.Analyzer, d.Diagnostic)
		if f == nil || !pr.report[f.File] {
			continue
		}
		if suppressed(f.File, code, programLine(f)) {
			continue
		}
		rep.Findings = append(rep.Findings, *f)
	}
	if enabled["CL900"] {
		for _, pf := range pr.parseErrorFindings() {
			if !suppressed(pf.File, "CL900", programLine(&pf)) {
				rep.Findings = append(rep.Findings, pf)
			}
		}
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Code < b.Code
	})
	return rep
}

func (pr *project) source(file string) []byte {
	if f := pr.parsed.ByPath[file]; f != nil {
		return f.Src
	}
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

type noter interface {
	NoteFor(pos token.Pos, code string) (analyzers.Note, bool)
}

// finding converts one diagnostic.
func (pr *project) finding(a *analysis.Analyzer, d analysis.Diagnostic) *report.Finding {
	start := pr.res.Fset.Position(d.Pos)
	if !start.IsValid() {
		return nil
	}
	file := pr.parsed.ByPath[start.Filename]
	if file == nil {
		return nil
	}
	rule, _ := rules.Lookup(d.Category)
	f := &report.Finding{
		Code: rule.Code, Name: rule.Name, Severity: rule.Severity, Message: d.Message,
		File: start.Filename, URL: rule.URL(),
	}
	f.Line, f.Column = file.Position(start.Offset)
	end := d.End
	if !end.IsValid() {
		end = d.Pos
	}
	ep := pr.res.Fset.Position(end)
	f.EndLine, f.EndColumn = file.Position(ep.Offset)
	if n, ok := pr.res.Results[a].(noter); ok {
		if note, ok := n.NoteFor(d.Pos, d.Category); ok {
			f.Label, f.Help, f.Function, f.Snippet = note.Label, note.Help, note.Function, note.Snippet
			f.Period = note.Period
		}
	}
	for _, r := range d.Related {
		rp := pr.res.Fset.Position(r.Pos)
		if !rp.IsValid() {
			continue
		}
		rel := report.Related{File: rp.Filename, Line: rp.Line, Message: r.Message}
		if rf := pr.parsed.ByPath[rp.Filename]; rf != nil {
			rel.Line, rel.Column = rf.Position(rp.Offset)
		}
		f.Related = append(f.Related, rel)
	}
	// Analyzers offer at most one fix per diagnostic.
	if len(d.SuggestedFixes) > 0 {
		sf := d.SuggestedFixes[0]
		fix := &report.Fix{Message: sf.Message, Applicability: "unsafe"}
		for _, te := range sf.TextEdits {
			s, e := pr.res.Fset.Position(te.Pos), pr.res.Fset.Position(te.End)
			ed := report.Edit{Start: s.Offset, End: e.Offset, NewText: string(te.NewText)}
			ed.Line, ed.Column = file.Position(s.Offset)
			ed.EndLine, ed.EndColumn = file.Position(e.Offset)
			fix.Edits = append(fix.Edits, ed)
		}
		f.Fix = fix
	}
	pr.mapNotebook(f)
	return f
}

func (pr *project) parseErrorFindings() []report.Finding {
	var out []report.Finding
	rule, _ := rules.Lookup("CL900")
	for _, f := range pr.parsed.Files {
		if !pr.report[f.Path] || len(f.Errors) == 0 {
			continue
		}
		e := f.Errors[0]
		msg := fmt.Sprintf("%s: cachelint could not parse this (%d syntax error(s)); calls inside the broken code may be missed", e.Msg, len(f.Errors))
		fd := report.Finding{Code: rule.Code, Name: rule.Name, Severity: rule.Severity, Message: msg, File: f.Path,
			Line: e.Line, Column: e.Col, EndLine: e.Line, EndColumn: e.Col, URL: rule.URL()}
		pr.mapNotebook(&fd)
		out = append(out, fd)
	}
	for _, fl := range pr.parsed.Failures {
		if !pr.report[fl.Path] {
			continue
		}
		out = append(out, report.Finding{Code: rule.Code, Name: rule.Name, Severity: rule.Severity,
			Message: fl.Err.Error(), File: fl.Path, Line: 1, Column: 1, EndLine: 1, EndColumn: 1, URL: rule.URL()})
	}
	return out
}

// programLine is the finding's line in the Python text cachelint analysed (for a notebook,
// the program of its code cells), which is where suppression comments are read.
func programLine(f *report.Finding) int {
	if f.FrameLine > 0 {
		return f.FrameLine
	}
	return f.Line
}

// internalErrors are panics caught while analysing: they make the run exit 2.
func (pr *project) internalErrors() []error {
	out := append([]error(nil), pr.res.Errors...)
	for _, fl := range pr.parsed.Failures {
		if pr.report[fl.Path] && errors.Is(fl.Err, pyparse.ErrInternal) {
			out = append(out, fl.Err)
		}
	}
	return out
}

// warnUnreadable reports files in report scope that could not be read or parsed at all.
func (pr *project) warnUnreadable(stderr io.Writer) {
	for _, fl := range pr.parsed.Failures {
		if pr.report[fl.Path] && !errors.Is(fl.Err, pyparse.ErrInternal) {
			fmt.Fprintf(stderr, "cachelint: warning: %s\n", fl.Err)
		}
	}
}
