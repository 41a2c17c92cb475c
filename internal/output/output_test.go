package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

func TestGolden(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			checkGolden(t, format+".golden", goldenPart(t, format, render(t, format, fixtureReport(), fixtureOptions())))
		})
		t.Run(format+"/empty", func(t *testing.T) {
			empty := &report.Report{Source: sourceFunc(nil)}
			checkGolden(t, "empty-"+format+".golden", goldenPart(t, format, render(t, format, empty, fixtureOptions())))
		})
	}
}

// goldenPart is what a golden file pins. For SARIF that is everything but
// tool.driver.rules: those come from rules/ and its docs, which other changes edit, and
// TestSARIFContent checks them against the registry instead.
func goldenPart(t *testing.T, format string, out []byte) []byte {
	t.Helper()
	if format != "sarif" {
		return out
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver map[string]json.RawMessage `json:"driver"`
			} `json:"tool"`
			OriginalURIBaseIDs json.RawMessage `json:"originalUriBaseIds"`
			ColumnKind         string          `json:"columnKind"`
			Results            json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "$schema: %s\nversion: %s\n", log.Schema, log.Version)
	for _, run := range log.Runs {
		delete(run.Tool.Driver, "rules")
		driver, err := json.Marshal(run.Tool.Driver)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "driver (without rules): %s\noriginalUriBaseIds: %s\ncolumnKind: %s\nresults: %s\n",
			driver, run.OriginalURIBaseIDs, run.ColumnKind, run.Results)
	}
	return b.Bytes()
}

func TestGoldenStatistics(t *testing.T) {
	var b bytes.Buffer
	if err := Statistics(&b, fixtureReport(), Options{}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "statistics.golden", b.Bytes())
}

func TestFullIsTextAlias(t *testing.T) {
	text := render(t, "text", fixtureReport(), fixtureOptions())
	full := render(t, "full", fixtureReport(), fixtureOptions())
	if !bytes.Equal(text, full) {
		t.Errorf("--format full differs from --format text:\n%s\nvs\n%s", full, text)
	}
}

func TestUnknownFormatIsAnErrorAndWritesNothing(t *testing.T) {
	var b bytes.Buffer
	err := Print(&b, "xml", fixtureReport(), Options{})
	if err == nil {
		t.Fatal("Print accepted format \"xml\"")
	}
	if !strings.Contains(err.Error(), `"xml"`) || !strings.Contains(err.Error(), "json-lines") {
		t.Errorf("error should name the bad format and the accepted ones: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q for an unknown format", b.String())
	}
}

func TestNilReportIsAnError(t *testing.T) {
	var b bytes.Buffer
	if err := Print(&b, "text", nil, Options{}); err == nil {
		t.Error("Print(nil report) returned no error")
	}
	if err := Statistics(&b, nil, Options{}); err == nil {
		t.Error("Statistics(nil report) returned no error")
	}
}

type failingWriter struct{}

var errDiskFull = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriteErrorsAreReturned(t *testing.T) {
	for _, format := range Formats {
		err := Print(failingWriter{}, format, fixtureReport(), Options{})
		if !errors.Is(err, errDiskFull) {
			t.Errorf("%s: got %v, want the writer's error wrapped", format, err)
		}
	}
	if err := Statistics(failingWriter{}, fixtureReport(), Options{}); !errors.Is(err, errDiskFull) {
		t.Errorf("statistics: got %v, want the writer's error wrapped", err)
	}
	opts := Options{StepSummary: failingWriter{}}
	if err := Print(&bytes.Buffer{}, "github", fixtureReport(), opts); !errors.Is(err, errDiskFull) {
		t.Errorf("step summary: got %v, want the writer's error wrapped", err)
	}
}

func TestMissingRuleFactsComeFromTheRegistry(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{{Code: "CL002", File: "a.py", Line: 1, Column: 1, Message: "m"}}}
	out := string(render(t, "json", rep, Options{}))
	r, _ := rules.Lookup("CL002")
	for _, want := range []string{`"name": "empty-cache-periodic"`, `"severity": "warning"`, `"url": "` + r.URL() + `"`} {
		if !strings.Contains(out, want) {
			t.Errorf("json output lacks %s:\n%s", want, out)
		}
	}
}

func TestSummaryCountsFixesLikeRuff(t *testing.T) {
	rep := fixtureReport() // one safe fix (CL006), one unsafe (CL001)
	for _, tc := range []struct {
		name    string
		rep     *report.Report
		unsafe  bool
		summary string
		marked  []string // the codes whose findings carry [*], in order
	}{
		{"without --unsafe-fixes", rep, false,
			"Found 6 findings: 4 errors, 2 warnings.\n[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n",
			[]string{"CL006"}},
		{"with --unsafe-fixes", rep, true,
			"Found 6 findings: 4 errors, 2 warnings.\n[*] 2 fixable with the `--fix` option.\n",
			[]string{"CL001", "CL006"}},
		{"only an unsafe fix", &report.Report{Findings: []report.Finding{rep.Findings[2]}}, false,
			"Found 1 error.\nNo fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n",
			nil},
	} {
		out := string(render(t, "concise", tc.rep, Options{UnsafeFixes: tc.unsafe}))
		if !strings.HasSuffix(out, tc.summary) {
			t.Errorf("summary %s:\n%s\nwant suffix:\n%s", tc.name, out, tc.summary)
		}
		// The findings the summary counts as fixable are the ones marked, as in ruff.
		var marked []string
		for _, l := range strings.Split(out, "\n") {
			if code, rest, ok := strings.Cut(l, " [*] "); ok && strings.Contains(code, ": CL") && rest != "" {
				marked = append(marked, code[strings.LastIndex(code, " ")+1:])
			}
		}
		if strings.Join(marked, ",") != strings.Join(tc.marked, ",") {
			t.Errorf("%s: [*] on %v, want %v:\n%s", tc.name, marked, tc.marked, out)
		}
	}

	none := &report.Report{}
	if got := string(render(t, "text", none, Options{})); got != "All checks passed!\n" {
		t.Errorf("clean run prints %q, want ruff's \"All checks passed!\"", got)
	}
}

// TestSummaryAfterFix: after --fix the summary counts what was fixed and what remains, by
// severity, as ruff's "Found 3 errors (1 fixed, 2 remaining)."; nothing remaining is no
// "All checks passed!" then.
func TestSummaryAfterFix(t *testing.T) {
	rep := fixtureReport()
	out := string(render(t, "concise", rep, Options{Fixed: 2, UnsafeFixes: true}))
	if want := "Found 8 findings (2 fixed, 6 remaining: 4 errors, 2 warnings).\n[*] 2 fixable with the `--fix` option.\n"; !strings.HasSuffix(out, want) {
		t.Errorf("after --fix:\n%s\nwant suffix:\n%s", out, want)
	}
	if got := string(render(t, "text", &report.Report{}, Options{Fixed: 1})); got != "Found 1 finding (1 fixed, 0 remaining).\n" {
		t.Errorf("everything fixed prints %q", got)
	}
}

// TestFoundLineCountsBySeverity: ruff's "Found N errors." only when every finding is an
// error; warnings and info findings are counted as what they are.
func TestFoundLineCountsBySeverity(t *testing.T) {
	f := func(sev ...rules.Severity) []report.Finding {
		var fs []report.Finding
		for _, s := range sev {
			fs = append(fs, report.Finding{Severity: s})
		}
		return fs
	}
	for _, tc := range []struct {
		fs   []report.Finding
		want string
	}{
		{f(rules.Error), "Found 1 error."},
		{f(rules.Warning, rules.Warning), "Found 2 warnings."},
		{f(rules.Info), "Found 1 info finding."},
		{f(rules.Info, rules.Info), "Found 2 info findings."},
		{f(rules.Warning, rules.Error, rules.Info, rules.Error), "Found 4 findings: 2 errors, 1 warning, 1 info."},
		{f(rules.Warning, "fatal"), "Found 2 findings: 1 warning, 1 other."},
	} {
		if got := foundLine(tc.fs); got != tc.want {
			t.Errorf("foundLine(%v) = %q, want %q", tc.fs, got, tc.want)
		}
	}
}

func TestStatisticsOrderAndFixMarker(t *testing.T) {
	var b bytes.Buffer
	if err := Statistics(&b, fixtureReport(), Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	want := []string{
		"3\tCL001\t[ ] empty-cache-per-step",
		"1\tCL002\t[ ] empty-cache-periodic",
		"1\tCL006\t[*] oom-handler-too-broad",
		"1\tCL010\t[ ] alloc-conf-after-cuda-init",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("statistics line %d = %q, want %q", i, lines[i], w)
		}
	}
	if !strings.Contains(b.String(), "Found 6 findings: 4 errors, 2 warnings.") {
		t.Errorf("statistics should end with the summary:\n%s", b.String())
	}

	b.Reset()
	if err := Statistics(&b, &report.Report{}, Options{}); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 0 {
		t.Errorf("statistics of a clean run = %q, want nothing (as ruff)", b.String())
	}
}

func TestColour(t *testing.T) {
	rep := fixtureReport()
	// Source text carrying its own escape sequence must not reach the terminal raw.
	src := map[string]string{}
	for k, v := range fixtureSources {
		src[k] = v
	}
	src["src/train.py"] = strings.Replace(src["src/train.py"], "optimizer.step()", "optimizer.step()  # \x1b[31mred\x1b[0m", 1)
	rep.Source = sourceFunc(src)

	for _, format := range []string{"text", "concise"} {
		plain := render(t, format, rep, Options{Color: false})
		if bytes.IndexByte(plain, 0x1b) >= 0 {
			t.Errorf("%s with Color=false contains ESC:\n%q", format, plain)
		}
		coloured := render(t, format, rep, Options{Color: true})
		if !bytes.Contains(coloured, []byte("\x1b[")) {
			t.Errorf("%s with Color=true has no ANSI sequence", format)
		}
	}
	var plain, coloured bytes.Buffer
	if err := Statistics(&plain, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Statistics(&coloured, rep, Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(plain.Bytes(), 0x1b) >= 0 || !bytes.Contains(coloured.Bytes(), []byte("\x1b[")) {
		t.Errorf("statistics colour not controlled by Options.Color:\n%q\n%q", plain.String(), coloured.String())
	}
	if !strings.Contains(string(render(t, "text", rep, Options{})), "␛[31mred␛[0m") {
		t.Error("ESC from the source should show as the ␛ control picture")
	}
}
