package engine

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/parallel"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/suppress"
	"github.com/cachelint/cachelint/rules"
)

// analysed is what the analyzers found in the whole analysis scope, before the report
// scope, the enabled rules, suppression comments and a baseline choose what to show: what
// one run of the driver produces, and what the cache keeps.
type analysed struct {
	// Findings are every diagnostic, converted (positions in code points, notebooks mapped).
	Findings []report.Finding
	// Syntax are the parsed files with syntax errors, by path.
	Syntax []syntaxError
	// SyntaxCount is the number of syntax errors of each parsed file that has any
	// (ApplyFixes keeps a fix only if the fixed text has no more).
	SyntaxCount map[string]int
	Failures    []failure
	// Calls are the classified calls, positions resolved.
	Calls []report.CallRecord
	Cut   []Cut
	// Malformed are a notebook's problems, by path.
	Malformed map[string][]string
	// Errors are internal errors (panics caught in the analyzers).
	Errors                  []string
	Indexed, Parsed, Rounds int
	// Needles are what the prefilter searched for (Facts.Needles).
	Needles []string
	// ImportsAsked are the questions asked about unparsed files' imports (Facts.ImportsAsked).
	ImportsAsked map[string]map[string]bool
	// Scope are the files the run reported, sorted, when it did not report every file: the
	// analysis then left out what could only be found in other files (driver.Settings.Reported),
	// and holds for a later run only when that reports none but these. nil: every file.
	Scope []string
}

// failure is a file that could not be read or parsed at all (Facts.Failures).
type failure struct {
	Path, Msg            string
	Internal, OverBudget bool
}

// analyse collects what the driver run found, for every file analysed.
func (pr *project) analyse(jobs int) *analysed {
	a := &analysed{SyntaxCount: map[string]int{}, Malformed: map[string][]string{},
		Indexed: pr.facts.Seen, Parsed: pr.facts.Parsed, Rounds: pr.facts.Rounds, Needles: pr.facts.Needles,
		ImportsAsked: pr.facts.ImportsAsked}
	if pr.report != nil {
		a.Scope = slices.Sorted(maps.Keys(pr.report))
	}
	for _, d := range pr.res.Diagnostics {
		if f := pr.finding(d.Diagnostic); f != nil {
			a.Findings = append(a.Findings, *f)
		}
	}
	rule, _ := rules.Lookup(rules.CL900)
	for _, path := range slices.Sorted(maps.Keys(pr.facts.Files)) {
		f := pr.facts.Files[path]
		if len(f.Errors) == 0 {
			continue // no entry: the count is 0 (a cache entry keeps no 1,800 zeros)
		}
		a.SyntaxCount[path] = len(f.Errors)
		e := f.Errors[0]
		fd := report.Finding{Code: rule.Code, Name: rule.Name, Severity: rule.Severity, Message: text(e.Msg), File: f.Path,
			Line: e.Line, Column: e.Col, EndLine: e.Line, EndColumn: e.Col, URL: rule.URL()}
		pr.mapNotebook(&fd)
		a.Syntax = append(a.Syntax, syntaxError{At: fd, Count: len(f.Errors)})
	}
	for _, fl := range pr.facts.Failures {
		a.Failures = append(a.Failures, failure{Path: fl.Path, Msg: fl.Err.Error(), Internal: fl.Internal, OverBudget: fl.OverBudget})
	}
	a.Calls = pr.resolveCalls(jobs)
	a.Cut = pr.facts.Cut
	pr.nbMu.Lock()
	maps.Copy(a.Malformed, pr.malformed)
	pr.nbMu.Unlock()
	for _, e := range pr.res.Errors {
		a.Errors = append(a.Errors, e.Error())
	}
	return a
}

// findings are the findings in report scope, sorted, without disabled rules, per-file
// ignores and suppressed lines.
func (pr *project) findings(enabled map[string]bool, jobs int) *report.Report {
	rep := &report.Report{Source: pr.source}
	rep.FilesChecked = pr.reportedCount()
	var parseErrors []report.Finding
	if enabled[rules.CL900] {
		parseErrors = pr.parseErrorFindings()
	}
	// The files whose findings may be suppressed are read and their directives parsed on
	// the run's workers (done one by one, it was a warm run's longest serial step after
	// the walk: 140 findings in 60 files on the 15-project tree).
	var files []string
	seen := map[string]bool{}
	for _, f := range pr.a.Findings {
		if enabled[f.Code] && pr.reported(f.File) && !seen[f.File] {
			seen[f.File] = true
			files = append(files, f.File)
		}
	}
	for _, f := range parseErrors {
		if !seen[f.File] {
			seen[f.File] = true
			files = append(files, f.File)
		}
	}
	parsed := make([]*suppress.Directives, len(files))
	parallel.For(len(files), jobs, func(_, i int) { parsed[i] = suppress.ParseDirectives(pr.source(files[i])) })
	directives := make(map[string]*suppress.Directives, len(files))
	for i, f := range files {
		directives[f] = parsed[i]
	}
	suppressed := func(file, code string, line int) bool {
		if directives[file].Suppressed(code, line) {
			return true
		}
		for _, c := range pr.cfg.IgnoredFor(filepath.Join(pr.cwd, filepath.FromSlash(file))) {
			if c == code {
				return true
			}
		}
		return false
	}
	for _, f := range pr.a.Findings {
		if !enabled[f.Code] || !pr.reported(f.File) {
			continue
		}
		if suppressed(f.File, f.Code, programLine(&f)) {
			continue
		}
		rep.Findings = append(rep.Findings, f)
	}
	for _, pf := range parseErrors {
		if !suppressed(pf.File, rules.CL900, programLine(&pf)) {
			rep.Findings = append(rep.Findings, pf)
		}
	}
	sortFindings(rep.Findings)
	return rep
}

// sortFindings orders findings as a report shows them: by file, position and code.
func sortFindings(f []report.Finding) {
	sort.SliceStable(f, func(i, j int) bool {
		a, b := f[i], f[j]
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
}

// finding converts one diagnostic: byte offsets become code-point columns, the rule's
// registry entry gives name, severity and the fix's applicability, notebooks are mapped.
func (pr *project) finding(d driver.Diagnostic) *report.Finding {
	start := pr.res.Fset.Position(d.Pos)
	if !start.IsValid() {
		return nil
	}
	file := pr.facts.Files[start.Filename]
	if file == nil {
		return nil
	}
	rule, _ := rules.Lookup(d.Code)
	f := &report.Finding{
		Code: rule.Code, Name: rule.Name, Severity: rule.Severity, Message: text(d.Message),
		File: start.Filename, URL: rule.URL(),
		Label: text(d.Label), Help: text(d.Help), Function: text(d.Function), Snippet: text(d.Snippet), Period: d.Period,
	}
	f.Line, f.Column = file.Position(start.Offset)
	end := d.End
	if !end.IsValid() {
		end = d.Pos
	}
	ep := pr.res.Fset.Position(end)
	f.EndLine, f.EndColumn = file.Position(ep.Offset)
	for _, r := range d.Related {
		rp := pr.res.Fset.Position(r.Pos)
		if !rp.IsValid() {
			continue
		}
		// Every position is in a parsed file (pyparse.File.Pos), whose facts count its lines;
		// the FileSet gives offsets only.
		rf := pr.facts.Files[rp.Filename]
		if rf == nil {
			continue
		}
		rel := report.Related{File: rp.Filename, Message: text(r.Message)}
		rel.Line, rel.Column = rf.Position(rp.Offset)
		f.Related = append(f.Related, rel)
	}
	// A fix is offered only by a rule that declares one, with the rule's applicability.
	if d.Fix != nil && rule.Fix != rules.FixNone {
		fix := &report.Fix{Message: text(d.Fix.Message), Applicability: string(rule.Fix)}
		for _, te := range d.Fix.Edits {
			s, e := pr.res.Fset.Position(te.Pos), pr.res.Fset.Position(te.End)
			ed := report.Edit{Start: s.Offset, End: e.Offset, NewText: te.NewText}
			ed.Line, ed.Column = file.Position(s.Offset)
			ed.EndLine, ed.EndColumn = file.Position(e.Offset)
			fix.Edits = append(fix.Edits, ed)
		}
		f.Fix = fix
	}
	pr.mapNotebook(f)
	return f
}

// syntaxError is a file that parsed with syntax errors: a finding at the first one, its
// message the parser's (notebooks mapped to their cells), and how many there are.
type syntaxError struct {
	At    report.Finding
	Count int
}

// syntaxErrors are the files in report scope with syntax errors.
func (pr *project) syntaxErrors() []syntaxError {
	var out []syntaxError
	for _, se := range pr.a.Syntax {
		if pr.reported(se.At.File) {
			out = append(out, se)
		}
	}
	return out
}

func (pr *project) parseErrorFindings() []report.Finding {
	var out []report.Finding
	rule, _ := rules.Lookup(rules.CL900)
	for _, se := range pr.syntaxErrors() {
		fd := se.At
		fd.Message = text(fmt.Sprintf("%s: cachelint could not parse this (%d syntax error(s)); calls inside the broken code may be missed", fd.Message, se.Count))
		out = append(out, fd)
	}
	for _, fl := range pr.a.Failures {
		if !pr.reported(fl.Path) {
			continue
		}
		out = append(out, report.Finding{Code: rule.Code, Name: rule.Name, Severity: rule.Severity,
			Message: text(fl.Msg), File: fl.Path, Line: 1, Column: 1, EndLine: 1, EndColumn: 1, URL: rule.URL()})
	}
	return out
}

// text is s as findings carry it: valid UTF-8. Messages quote source code, and a file
// need not be valid UTF-8; each invalid byte becomes U+FFFD, as encoding/json would write it.
func text(s string) string {
	if utf8.ValidString(s) { // most are: ToValidUTF8 decodes every rune to find out
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// programLine is the finding's line in the Python text cachelint analysed (for a notebook,
// the program of its code cells), which is where suppression comments are read.
func programLine(f *report.Finding) int {
	if f.FrameLine > 0 {
		return f.FrameLine
	}
	return f.Line
}

// callRecords are the classified calls in report scope.
func (pr *project) callRecords() []report.CallRecord {
	out := []report.CallRecord{}
	for _, rec := range pr.a.Calls {
		if pr.reported(rec.File) {
			if rec.Via == nil {
				rec.Via = []string{} // "via": [] for no helper (a cached record lost the empty list)
			}
			out = append(out, rec)
		}
	}
	return out
}

// resolveCalls are the classified calls with their positions, notebooks mapped to their cells.
func (pr *project) resolveCalls(jobs int) []report.CallRecord {
	// Each via file's module name once (a project's records name few files), then the
	// records on every CPU, a chunk at a time: 7,407 of them were a tenth of an edited
	// unsloth run's one-goroutine time.
	modules := map[string]string{}
	for _, c := range pr.facts.Calls {
		for _, s := range c.Via {
			if _, ok := modules[s.File]; !ok {
				modules[s.File] = moduleName(pr.root, pr.cwd, s.File)
			}
		}
	}
	calls := pr.facts.Calls
	recs := make([]report.CallRecord, len(calls))
	kept := make([]bool, len(calls))
	chunk := recordsPerChunk
	parallel.For((len(calls)+chunk-1)/chunk, jobs, func(_, k int) {
		for i := k * chunk; i < min(len(calls), (k+1)*chunk); i++ {
			recs[i], kept[i] = pr.resolveCall(&calls[i], modules)
		}
	})
	out := recs[:0] // in place: a record moves only down
	for i := range recs {
		if kept[i] {
			out = append(out, recs[i])
		}
	}
	return out
}

// recordsPerChunk is how many records resolveCalls gives a goroutine at a time.
var recordsPerChunk = 256

// resolveCall is one record as the report shows it; ok is false for one whose file is not
// among the analysed.
func (pr *project) resolveCall(c *Call, modules map[string]string) (rec report.CallRecord, ok bool) {
	rec = c.Record
	rec.Callee, rec.Reason = text(rec.Callee), text(rec.Reason)
	file := pr.facts.Files[rec.File]
	if file == nil {
		return rec, false
	}
	line, col := file.Position(c.Offset)
	rec.Line, rec.Column = line, col
	if c.LoopLine > 0 {
		rec.Loop = &report.LoopRef{File: rec.File, Line: c.LoopLine}
		if c.LoopFile != "" {
			rec.Loop.File = c.LoopFile
		}
	}
	rec.Via = make([]string, len(c.Via))
	for i, s := range c.Via {
		rec.Via[i] = modules[s.File] + s.QualName
	}
	if info := pr.notebook(rec.File); info != nil {
		rec.CellJSON = info.cellPos(line, col).JSON()
		rec.CellColumn = col
		rec.Line, rec.Column = info.nb.JSONPos(line, col)
		rec.Reason = info.cellRefs(rec.File, rec.Reason)
		if rec.Loop != nil && rec.Loop.File == rec.File {
			loopLine := rec.Loop.Line
			rec.Loop.CellJSON = info.cellPos(loopLine, 1).JSON()
			rec.Loop.Line, _ = info.nb.JSONPos(loopLine, 1)
		}
	}
	return rec, true
}

// moduleName renders a file as a dotted module prefix ("utils.memory.") relative to the
// project root, for `via` chains.
func moduleName(root, cwd, file string) string {
	rel := displayPath(root, absFrom(cwd, file))
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), ".ipynb")
	rel = strings.TrimSuffix(rel, "/__init__")
	rel = strings.TrimPrefix(rel, "src/")
	if strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "..") {
		rel = strings.TrimSuffix(path.Base(rel), ".py")
	}
	return strings.ReplaceAll(rel, "/", ".") + "."
}

func absFrom(cwd, file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(cwd, filepath.FromSlash(file))
}
