package output

import (
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

// specExample is the finding of SPEC §5's text example.
func specExample() *report.Report {
	src := strings.Repeat("\n", 29) + "    for batch in train_loader:\n" + strings.Repeat("\n", 10) +
		"        optimizer.step()\n" +
		"        torch.cuda.empty_cache()\n"
	return &report.Report{
		Findings: []report.Finding{{
			Code: "CL001", Severity: rules.Error, File: "train.py", Line: 42, Column: 9, EndLine: 42, EndColumn: 33,
			Message: "torch.cuda.empty_cache() runs on every iteration of the step loop at line 30 (`for batch in train_loader`)",
			Label:   "every step: a CPU-GPU sync plus a cudaMalloc refill",
			Help:    "remove it; to fight fragmentation set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; to recover from OOM, clear inside an `except torch.cuda.OutOfMemoryError` handler",
			Cost:    "~25 ms per step on NVIDIA H200 (from probe profile)",
		}},
		Source: func(string) []byte { return []byte(src) },
	}
}

func TestTextMatchesSpecExample(t *testing.T) {
	got := string(render(t, "text", specExample(), Options{}))
	want := "train.py:42:9: CL001 [error] torch.cuda.empty_cache() runs on every iteration of the step loop at line 30 (`for batch in train_loader`)\n" +
		"   |\n" +
		"41 |         optimizer.step()\n" +
		"42 |         torch.cuda.empty_cache()\n" +
		"   |         ^^^^^^^^^^^^^^^^^^^^^^^^ every step: a CPU-GPU sync plus a cudaMalloc refill\n" +
		"   |\n" +
		"   = help: remove it; to fight fragmentation set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; to recover from OOM, clear inside an `except torch.cuda.OutOfMemoryError` handler\n" +
		"   = cost: ~25 ms per step on NVIDIA H200 (from probe profile)\n" +
		"\n" +
		"Found 1 error.\n"
	if got != want {
		t.Errorf("text output:\n%s\nwant (SPEC §5):\n%s", got, want)
	}
}

func TestConciseLine(t *testing.T) {
	got := string(render(t, "concise", specExample(), Options{}))
	want := "train.py:42:9: CL001 torch.cuda.empty_cache() runs on every iteration of the step loop at line 30 (`for batch in train_loader`)\nFound 1 error.\n"
	if got != want {
		t.Errorf("concise output:\n%q\nwant:\n%q", got, want)
	}
}

// caretTarget returns the text above the carets of the frame: the characters of the shown
// source line that sit in the caret columns.
func caretTarget(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		j := strings.IndexByte(l, '^')
		if j < 0 || !strings.Contains(l, " | ") {
			continue
		}
		n := strings.Count(strings.Fields(l[j:])[0], "^")
		src := []rune(lines[i-1])
		// Both lines share the gutter, so a column in one is the same column in the other.
		start := len([]rune(l[:j]))
		if start+n > len(src) {
			t.Fatalf("carets run past the source line:\n%s\n%s", lines[i-1], l)
		}
		return string(src[start : start+n])
	}
	t.Fatalf("no caret line in:\n%s", out)
	return ""
}

func TestCaretsSitUnderTheSpan(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		col, end   int
		want       string
	}{
		{"ascii", "    torch.cuda.empty_cache()", 5, 29, "torch.cuda.empty_cache()"},
		{"tab before", "\tx = 1; torch.cuda.empty_cache()", 9, 33, "torch.cuda.empty_cache()"},
		{"tab after two chars", "ab\tcd", 4, 6, "cd"},
		{"wide chars before", "s = \"清理内存\"; torch.cuda.empty_cache()", 13, 37, "torch.cuda.empty_cache()"},
		{"accents before", "é = «x»; empty_cache()", 10, 23, "empty_cache()"},
		{"tab inside span", "f(a,\tb)", 1, 8, "f(a,    b)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &report.Report{
				Findings: []report.Finding{{Code: "CL001", Severity: rules.Error, File: "a.py", Line: 2, Column: tc.col, EndLine: 2, EndColumn: tc.end, Message: "m"}},
				Source:   func(string) []byte { return []byte("first\n" + tc.line + "\n") },
			}
			out := string(render(t, "text", rep, Options{}))
			if got := caretTarget(t, out); got != tc.want {
				t.Errorf("carets underline %q, want %q\n%s", got, tc.want, out)
			}
		})
	}
}

func TestGutterWidthFollowsLineNumber(t *testing.T) {
	for _, tc := range []struct {
		line   int
		gutter string
	}{{1, "  |"}, {10, "   |"}, {100, "    |"}} {
		src := strings.Repeat("x = 1\n", tc.line)
		rep := &report.Report{
			Findings: []report.Finding{{Code: "CL004", Severity: rules.Warning, File: "a.py", Line: tc.line, Column: 1, EndLine: tc.line, EndColumn: 2, Message: "m", Help: "h"}},
			Source:   func(string) []byte { return []byte(src) },
		}
		lines := strings.Split(string(render(t, "text", rep, Options{})), "\n")
		if lines[1] != tc.gutter {
			t.Errorf("line %d: empty gutter %q, want %q", tc.line, lines[1], tc.gutter)
		}
		if want := strings.TrimSuffix(tc.gutter, "|") + "= help: h"; !strings.Contains(strings.Join(lines, "\n"), "\n"+want+"\n") {
			t.Errorf("line %d: help not aligned with the gutter, want %q in\n%s", tc.line, want, strings.Join(lines, "\n"))
		}
	}
}

func TestNoFrameWithoutSource(t *testing.T) {
	f := report.Finding{Code: "CL004", Severity: rules.Warning, File: "a.py", Line: 3, Column: 1, EndLine: 3, EndColumn: 2, Message: "m", Help: "h"}
	for name, rep := range map[string]*report.Report{
		"nil Source":         {Findings: []report.Finding{f}},
		"Source returns nil": {Findings: []report.Finding{f}, Source: func(string) []byte { return nil }},
		"line past the end":  {Findings: []report.Finding{f}, Source: func(string) []byte { return []byte("x\n") }},
	} {
		got := string(render(t, "text", rep, Options{}))
		want := "a.py:3:1: CL004 [warning] m\n  = help: h\n\nFound 1 warning.\n"
		if got != want {
			t.Errorf("%s:\n%q\nwant\n%q", name, got, want)
		}
	}
}

func TestOddPositionsDoNotPanic(t *testing.T) {
	src := func(string) []byte { return []byte("abc\n") }
	for _, f := range []report.Finding{
		{Line: 1, Column: 0, EndColumn: 0},
		{Line: 1, Column: 9, EndLine: 1, EndColumn: 12},
		{Line: 1, Column: 3, EndLine: 1, EndColumn: 1},
		{Line: 1, Column: 2, EndLine: 4, EndColumn: 1},
		{Line: -2, Column: -1, FrameLine: -5},
		{Line: 1, Cell: 2, CellLine: 1, CellColumn: 40, FrameLine: 1},
	} {
		f.Code, f.File, f.Message = "CL004", "a.py", "m"
		rep := &report.Report{Findings: []report.Finding{f}, Source: src}
		for _, format := range Formats {
			render(t, format, rep, Options{})
		}
	}
}

func TestMultiLineSpanUnderlinesToEndOfFirstLine(t *testing.T) {
	rep := &report.Report{
		Findings: []report.Finding{{Code: "CL005", Severity: rules.Warning, File: "a.py", Line: 2, Column: 5, EndLine: 4, EndColumn: 6, Message: "m"}},
		Source:   func(string) []byte { return []byte("try:\n    run(\n        x,\n    )\n") },
	}
	if got := caretTarget(t, string(render(t, "text", rep, Options{}))); got != "run(" {
		t.Errorf("multi-line span underlines %q, want %q", got, "run(")
	}
}

func TestNotebookLocation(t *testing.T) {
	rep := fixtureReport()
	out := string(render(t, "concise", rep, Options{}))
	if !strings.Contains(out, "nb.ipynb:cell 3:line 2:5: CL001 ") {
		t.Errorf("concise output lacks the notebook cell location:\n%s", out)
	}
	full := string(render(t, "text", rep, Options{}))
	if !strings.Contains(full, "5 |     torch.cuda.empty_cache()\n  |     ^^^^^^^^^^^^^^^^^^^^^^^^ every step") {
		t.Errorf("notebook frame should show FrameLine of the cell program with the cell columns:\n%s", full)
	}
}

func TestRelatedLocationsPrintAsNotes(t *testing.T) {
	out := string(render(t, "text", fixtureReport(), Options{}))
	for _, want := range []string{
		"  = note: utils.py:5:9: the cache is cleared here\n",
		"  = note: src/train.py:2: the step loop\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

// TestFrameSourceLines: a frame's lines are the text split at "\n", each without a "\r"
// before it, as many as strings.Split gives (an empty text is one empty line; a file the
// report has no text for, none), and each file is read once.
func TestFrameSourceLines(t *testing.T) {
	texts := map[string]string{
		"a.py": "x = 1\r\ny = 2\n\nz = 3",
		"b.py": "last\n",
		"c.py": "",
	}
	reads := 0
	rep := &report.Report{Source: func(file string) []byte {
		reads++
		if s, ok := texts[file]; ok {
			return []byte(s)
		}
		return nil
	}}
	src := &frameSources{rep: rep, files: map[string]*sourceText{}}
	for _, file := range []string{"a.py", "b.py", "c.py", "a.py"} {
		want := strings.Split(texts[file], "\n")
		lines := src.of(file)
		if lines.count() != len(want) {
			t.Fatalf("%s: %d lines, want %d", file, lines.count(), len(want))
		}
		for i, w := range want {
			if got := lines.line(i + 1); got != strings.TrimSuffix(w, "\r") {
				t.Errorf("%s line %d = %q, want %q", file, i+1, got, strings.TrimSuffix(w, "\r"))
			}
		}
	}
	if n := src.of("missing.py").count(); n != 0 {
		t.Errorf("a file without text has %d lines", n)
	}
	if reads != 4 {
		t.Errorf("%d reads of 4 files' texts", reads)
	}
}
