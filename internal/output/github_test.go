package output

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

// command is a workflow command as GitHub's runner reads one line of output.
type command struct {
	name  string
	props map[string]string
	data  string
}

// The runner's own unescaping, %25 last, so "%250A" comes back as "%0A".
var (
	runnerUnescapeData     = strings.NewReplacer("%0D", "\r", "%0A", "\n")
	runnerUnescapeProperty = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",")
)

func unescapeData(s string) string {
	return strings.ReplaceAll(runnerUnescapeData.Replace(s), "%25", "%")
}

func unescapeProperty(s string) string {
	return strings.ReplaceAll(runnerUnescapeProperty.Replace(s), "%25", "%")
}

// parseCommands splits output the way the runner does: one command per line (the runner
// breaks lines at \n and \r), properties end at the first "::".
func parseCommands(t *testing.T, out string) []command {
	t.Helper()
	var cmds []command
	lines := strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' })
	for _, line := range lines {
		if !strings.HasPrefix(line, "::") {
			t.Fatalf("output line is not a workflow command: %q", line)
		}
		head, data, ok := strings.Cut(line[2:], "::")
		if !ok {
			t.Fatalf("workflow command without '::' before its message: %q", line)
		}
		name, props, _ := strings.Cut(head, " ")
		c := command{name: name, props: map[string]string{}, data: unescapeData(data)}
		for _, kv := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("property without '=' in %q", line)
			}
			c.props[k] = unescapeProperty(v)
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// assertOneCommandPerFinding checks the no-injection property: the runner sees exactly one
// command per finding, of the finding's kind, carrying the file and message unchanged.
func assertOneCommandPerFinding(t *testing.T, fs []report.Finding, out string) {
	t.Helper()
	cmds := parseCommands(t, out)
	if len(cmds) != len(fs) {
		t.Fatalf("%d findings produced %d workflow commands:\n%s", len(fs), len(cmds), out)
	}
	for i, f := range fs {
		c := cmds[i]
		if c.name != githubCommand(f.Severity) {
			t.Errorf("finding %d: command %q, want %q", i, c.name, githubCommand(f.Severity))
		}
		if c.props["file"] != strings.ReplaceAll(f.File, `\`, "/") && c.props["file"] != f.File {
			t.Errorf("finding %d: runner reads file %q, want %q", i, c.props["file"], f.File)
		}
		if c.props["title"] != "cachelint "+f.Code {
			t.Errorf("finding %d: runner reads title %q", i, c.props["title"])
		}
		if c.data != f.Message {
			t.Errorf("finding %d: runner reads message %q, want %q", i, c.data, f.Message)
		}
	}
}

func TestGitHubCommandShape(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{
		{Code: "CL001", Severity: rules.Error, File: "src/train.py", Line: 42, Column: 9, EndLine: 42, EndColumn: 33, Message: "per step"},
		{Code: "CL002", Severity: rules.Warning, File: "a.py", Line: 1, Column: 1, EndLine: 1, EndColumn: 2, Message: "periodic"},
		{Code: "CL003", Severity: rules.Info, File: "a.py", Line: 2, Column: 1, Message: "epoch"},
	}}
	got := string(render(t, "github", rep, Options{}))
	want := "::error file=src/train.py,line=42,col=9,endLine=42,endColumn=33,title=cachelint CL001::per step\n" +
		"::warning file=a.py,line=1,col=1,endLine=1,endColumn=2,title=cachelint CL002::periodic\n" +
		"::notice file=a.py,line=2,col=1,title=cachelint CL003::epoch\n"
	if got != want {
		t.Errorf("github output:\n%s\nwant:\n%s", got, want)
	}
}

func TestGitHubEscaping(t *testing.T) {
	fs := []report.Finding{
		{Code: "CL001", Severity: rules.Error, File: "odd,name:with%percent.py", Line: 1, Column: 1, Message: "line one\n::error file=evil.py::injected"},
		{Code: "CL002", Severity: rules.Warning, File: "dir::x/a,b.py", Line: 2, Column: 3, Message: "carriage\r::warning::return, 100% sure"},
		{Code: "CL004", Severity: rules.Warning, File: "a.py", Line: 3, Column: 1, Message: "literal %0A stays literal\r\n::stop-commands::tok"},
	}
	out := string(render(t, "github", &report.Report{Findings: fs}, Options{}))
	assertOneCommandPerFinding(t, fs, out)
	if !strings.Contains(out, "file=odd%2Cname%3Awith%25percent.py,") {
		t.Errorf("file property not escaped per SPEC §7:\n%s", out)
	}
	if !strings.Contains(out, "::line one%0A::error file=evil.py::injected\n") {
		t.Errorf("message data not escaped per SPEC §7:\n%s", out)
	}
}

func TestGitHubUsesForwardSlashes(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{{Code: "CL001", Severity: rules.Error, File: "src/pkg/train.py", Line: 1, Column: 1, Message: "m"}}}
	if out := string(render(t, "github", rep, Options{})); !strings.Contains(out, "file=src/pkg/train.py,") {
		t.Errorf("path not forward-slashed: %s", out)
	}
}

// TestGitHubPathsFromWorkspace: run in a subdirectory of the workspace (the Action's
// working-directory), annotations still name files from the repository root, which is how
// the runner reads them; files outside the workspace are written absolute.
func TestGitHubPathsFromWorkspace(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "repo")
	rep := &report.Report{Findings: []report.Finding{
		{Code: "CL001", Severity: rules.Error, File: "pkg/train.py", Line: 1, Column: 1, Message: "relative"},
		{Code: "CL001", Severity: rules.Error, File: filepath.Join(ws, "other", "x.py"), Line: 2, Column: 1, Message: "absolute inside"},
		{Code: "CL001", Severity: rules.Error, File: filepath.Join("..", "..", "..", "elsewhere.py"), Line: 3, Column: 1, Message: "outside"},
	}}
	var summary bytes.Buffer
	opts := Options{Cwd: filepath.Join(ws, "services", "trainer"), Workspace: ws, StepSummary: &summary}
	cmds := parseCommands(t, string(render(t, "github", rep, opts)))
	want := []string{"services/trainer/pkg/train.py", "other/x.py", filepath.ToSlash(filepath.Join(filepath.Dir(ws), "elsewhere.py"))}
	if len(cmds) != len(want) {
		t.Fatalf("%d commands, want %d", len(cmds), len(want))
	}
	for i, c := range cmds {
		if got := unescapeProperty(c.props["file"]); got != want[i] {
			t.Errorf("%s: file=%q, want %q", c.data, got, want[i])
		}
	}
	if !strings.Contains(summary.String(), "| services/trainer/pkg/train.py:1 |") {
		t.Errorf("the step summary does not name the file from the workspace:\n%s", summary.String())
	}
	// Without a workspace (not on GitHub): the paths as cachelint found them.
	opts.Workspace, opts.StepSummary = "", nil
	if out := string(render(t, "github", rep, opts)); !strings.Contains(out, "file=pkg/train.py,") {
		t.Errorf("without a workspace the path changed:\n%s", out)
	}
}

func TestStepSummary(t *testing.T) {
	var summary bytes.Buffer
	rep := fixtureReport()
	rep.Findings = append(rep.Findings, report.Finding{
		Code: "CL004", Severity: rules.Warning, File: "a|b.py", Line: 1, Column: 1,
		Message: `pipes | and a\| pair` + "\nnew lines\r\nstay in one cell",
	})
	render(t, "github", rep, Options{StepSummary: &summary})
	checkGolden(t, "github-step-summary.golden", summary.Bytes())

	rows := 0
	for _, line := range strings.Split(summary.String(), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		rows++
		if unescaped := cellEnds(line); unescaped != 4 {
			t.Errorf("table row has %d cell separators, want 4: %q", unescaped, line)
		}
	}
	if want := len(rep.Findings) + 2; rows != want {
		t.Errorf("summary table has %d rows, want %d (header, rule, one per finding):\n%s", rows, want, summary.String())
	}
	if !strings.Contains(summary.String(), "| nb.ipynb:cell 3:line 2 |") {
		t.Errorf("summary should locate notebook findings by cell:\n%s", summary.String())
	}

	summary.Reset()
	render(t, "github", &report.Report{}, Options{StepSummary: &summary})
	if !strings.Contains(summary.String(), "All checks passed!") {
		t.Errorf("clean summary: %q", summary.String())
	}

	summary.Reset()
	render(t, "sarif", rep, Options{StepSummary: &summary})
	if summary.Len() != 0 {
		t.Error("only the github format writes the step summary")
	}
}

func FuzzGitHubEscape(f *testing.F) {
	f.Add("a.py", "message")
	f.Add("x,y:z%.py", "two\nlines")
	f.Add("a.py", "\r::error::x")
	f.Add("::", "%0A%25%")
	f.Add("a\nb.py", "\r\n\n\r")
	f.Fuzz(func(t *testing.T, file, message string) {
		fs := []report.Finding{{Code: "CL001", Severity: rules.Error, File: file, Line: 1, Column: 2, EndLine: 1, EndColumn: 3, Message: message}}
		out := string(render(t, "github", &report.Report{Findings: fs}, Options{}))
		if strings.Count(out, "\n") != 1 || strings.ContainsRune(out[:len(out)-1], '\r') || strings.ContainsRune(out[:len(out)-1], '\n') {
			t.Fatalf("one finding did not give exactly one line: %q", out)
		}
		assertOneCommandPerFinding(t, fs, out)
	})
}

func FuzzMarkdownCell(f *testing.F) {
	f.Add("a | b")
	f.Add("x\ny\r\nz\r")
	f.Add(`\|`)
	f.Fuzz(func(t *testing.T, s string) {
		got := markdownCell(s)
		if strings.ContainsAny(got, "\r\n") {
			t.Fatalf("cell %q keeps a line break", got)
		}
		// GFM's cell scanner: a backslash escapes the next character, a bare '|' ends the cell.
		for i := 0; i < len(got); i++ {
			switch got[i] {
			case '\\':
				i++
			case '|':
				t.Fatalf("cell %q of %q has a cell-ending '|' at %d", got, s, i)
			}
		}
	})
}

// cellEnds counts the pipes GFM reads as cell boundaries in a table row.
func cellEnds(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}
