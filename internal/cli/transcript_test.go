package cli_test

// Transcript tests run the built cachelint binary, as a user runs it, on the fixture trees
// in testdata/transcripts and compare stdout, stderr and the exit code with the
// expectations written in testdata/transcripts/*.ct (the style of govulncheck's
// testdata/*.ct). `go test ./internal/cli -update` rewrites those expectations from the
// actual output; review the diff before keeping it.
//
// A .ct file is a sequence of steps:
//
//	# comments and blank lines between steps are kept as they are
//	$ NAME=VALUE cachelint check --format concise .
//	expected stdout, line by line
//	[stderr]
//	expected stderr (the section is left out when stderr is empty)
//	[exit 1]
//
// Commands are split like a POSIX shell's words; $WORK expands to the root of the copied
// fixtures. Leading NAME=VALUE words set environment variables for that command only, and
// a trailing `< FILE` gives the command FILE as its standard input (none otherwise).
// Besides cachelint, two builtins shape the tree and print nothing: `cd DIR` (relative to
// the current directory; the first command runs in the root, whose subdirectories are the
// fixture trees) and `ln -s TARGET LINK` (for symlinks, which module zips cannot carry).
// Each .ct file runs in a fresh copy of testdata/transcripts, so paths are stable and
// nothing a command does leaks into the next file.
//
// Output is shown as text: the copy's absolute path becomes $WORK, and control bytes
// other than newline and tab (ESC, CR, NUL) and invalid UTF-8 show as \xHH, so a .ct file
// is plain UTF-8 and colour codes are visible. Output that does not end in a newline gets
// a final "[no newline at end]" line.

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/shell"

	"github.com/cachelint/cachelint/rules"
)

var update = flag.Bool("update", false, "rewrite testdata/transcripts/*.ct from the actual output")

// testVersion is stamped into the binary the way a release build stamps its version, so
// `cachelint version` is checked through the same -ldflags path.
const testVersion = "v0.0.0-transcript"

const transcriptDir = "testdata/transcripts"

// cachelintBin is the binary built once by TestMain.
var cachelintBin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	// Runs in this process check the repository's own files: they must not leave a cache
	// there. The transcripts run the binary in copies, with their own environment, and use it.
	os.Setenv("CACHELINT_NO_CACHE", "1")
	dir, err := os.MkdirTemp("", "cachelint-transcript-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "transcript tests: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	cachelintBin = filepath.Join(dir, "cachelint")
	if runtime.GOOS == "windows" {
		cachelintBin += ".exe"
	}
	// -buildvcs=false: the commit would change the version line on every commit;
	// TestVersion covers the VCS part.
	build := exec.Command("go", "build", "-buildvcs=false",
		"-ldflags", "-X github.com/cachelint/cachelint/internal/cli.Version="+testVersion,
		"-o", cachelintBin, "github.com/cachelint/cachelint/cmd/cachelint")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "transcript tests: go build cachelint: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(transcriptDir, "*.ct"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no transcripts in %s", transcriptDir)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runTranscript(t, file) })
	}
}

// step is one command of a transcript with what it is expected to print.
type step struct {
	pre     string // comment and blank lines before the command, kept verbatim on -update
	lineNo  int    // the command's line in the .ct file
	command string
	builtin bool
	stdout  string
	stderr  string
	exit    int
}

var exitLine = regexp.MustCompile(`^\[exit (\d+)\]$`)

func isBuiltin(command string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(command), " ")
	return first == "cd" || first == "ln"
}

// parseTranscript reads a .ct file into steps and the text after the last one.
func parseTranscript(name, data string) ([]step, string, error) {
	lines := strings.SplitAfter(data, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var steps []step
	var pre strings.Builder
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\n")
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			pre.WriteString(line + "\n")
			continue
		case !strings.HasPrefix(line, "$ "):
			return nil, "", fmt.Errorf("%s:%d: want a comment, a blank line or `$ command`, got %q", name, i+1, line)
		}
		s := step{pre: pre.String(), lineNo: i + 1, command: strings.TrimPrefix(line, "$ ")}
		pre.Reset()
		s.builtin = isBuiltin(s.command)
		if s.builtin {
			steps = append(steps, s)
			continue
		}
		var out, errOut strings.Builder
		cur := &out
		done := false
		for i++; i < len(lines); i++ {
			l := strings.TrimSuffix(lines[i], "\n")
			if l == "[stderr]" {
				if cur == &errOut {
					return nil, "", fmt.Errorf("%s:%d: second [stderr] section", name, i+1)
				}
				cur = &errOut
				continue
			}
			if m := exitLine.FindStringSubmatch(l); m != nil {
				s.exit, _ = strconv.Atoi(m[1])
				done = true
				break
			}
			cur.WriteString(l + "\n")
		}
		if !done {
			return nil, "", fmt.Errorf("%s:%d: `$ %s` has no [exit N] line", name, s.lineNo, s.command)
		}
		s.stdout, s.stderr = out.String(), errOut.String()
		steps = append(steps, s)
	}
	return steps, pre.String(), nil
}

func formatTranscript(steps []step, trailer string) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.pre)
		b.WriteString("$ " + s.command + "\n")
		if s.builtin {
			continue
		}
		b.WriteString(s.stdout)
		if s.stderr != "" {
			b.WriteString("[stderr]\n" + s.stderr)
		}
		fmt.Fprintf(&b, "[exit %d]\n", s.exit)
	}
	b.WriteString(trailer)
	return b.String()
}

func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	steps, trailer, err := parseTranscript(file, string(data))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t)
	for i := range steps {
		s := &steps[i]
		where := fmt.Sprintf("%s:%d: $ %s", file, s.lineNo, s.command)
		if s.builtin {
			if err := w.builtin(s.command); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			continue
		}
		res, err := w.run(s.command)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		stdout, stderr := w.render(res.stdout), w.render(res.stderr)
		if panicked(res.stderr) {
			t.Errorf("%s: cachelint panicked (exit %d):\n%s", where, res.exit, stderr)
			continue
		}
		for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			for _, l := range strings.Split(out, "\n") {
				if l == "[stderr]" || exitLine.MatchString(l) {
					t.Fatalf("%s: %s has the line %q, which a .ct file cannot hold", where, name, l)
				}
			}
		}
		if *update {
			s.stdout, s.stderr, s.exit = stdout, stderr, res.exit
			continue
		}
		if d := cmp.Diff(lines(s.stdout), lines(stdout)); d != "" {
			t.Errorf("%s: stdout differs (-want +got):\n%s", where, d)
		}
		if d := cmp.Diff(lines(s.stderr), lines(stderr)); d != "" {
			t.Errorf("%s: stderr differs (-want +got):\n%s", where, d)
		}
		if s.exit != res.exit {
			t.Errorf("%s: exit %d, want %d", where, res.exit, s.exit)
		}
	}
	if *update {
		if out := formatTranscript(steps, trailer); out != string(data) {
			if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("updated %s", file)
		}
	}
}

func lines(s string) []string { return strings.Split(s, "\n") }

// panicked reports a Go panic or fatal runtime error in cachelint's stderr: it exits 2 like
// a usage error, so the exit code alone cannot tell them apart.
func panicked(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("panic: ")) || bytes.Contains(stderr, []byte("goroutine ")) ||
		bytes.Contains(stderr, []byte("fatal error: "))
}

// workspace is one fresh copy of the fixture trees and the directory commands run in.
type workspace struct {
	t    *testing.T
	root string // absolute, symlinks resolved
	dir  string // current directory, absolute
	home string
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(root, os.DirFS(transcriptDir)); err != nil {
		t.Fatalf("copy fixtures: %v", err)
	}
	home := t.TempDir()
	return &workspace{t: t, root: root, dir: root, home: home}
}

func (w *workspace) fields(command string) ([]string, error) {
	return shell.Fields(command, func(name string) string {
		if name == "WORK" {
			return w.root
		}
		return ""
	})
}

// inside resolves p against the current directory and refuses paths that leave the copy.
func (w *workspace) inside(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.dir, p)
	}
	rel, err := filepath.Rel(w.root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the fixture copy", p)
	}
	return p, nil
}

func (w *workspace) builtin(command string) error {
	args, err := w.fields(command)
	if err != nil {
		return fmt.Errorf("parse command: %w", err)
	}
	switch {
	case args[0] == "cd" && len(args) == 2:
		d, err := w.inside(args[1])
		if err != nil {
			return err
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("cd %s: not a directory", args[1])
		}
		w.dir = d
		return nil
	case args[0] == "ln" && len(args) == 4 && args[1] == "-s":
		link, err := w.inside(args[3])
		if err != nil {
			return err
		}
		return os.Symlink(args[2], link)
	}
	return fmt.Errorf("unsupported builtin (want `cd DIR` or `ln -s TARGET LINK`)")
}

type result struct {
	stdout, stderr []byte
	exit           int
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// run runs one `[NAME=VALUE...] cachelint ARGS...` command in the current directory with
// a small, fixed environment, so the user's NO_COLOR, GITHUB_* or HOME cannot change it.
func (w *workspace) run(command string) (result, error) {
	command, input, redirected := strings.Cut(command, " < ")
	args, err := w.fields(command)
	if err != nil {
		return result{}, fmt.Errorf("parse command: %w", err)
	}
	var stdin []byte
	if redirected {
		in, err := w.inside(strings.TrimSpace(input))
		if err != nil {
			return result{}, err
		}
		if stdin, err = os.ReadFile(in); err != nil {
			return result{}, fmt.Errorf("stdin: %w", err)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "TMPDIR=" + w.t.TempDir()}
	for len(args) > 0 && assignment.MatchString(args[0]) {
		env = append(env, args[0])
		args = args[1:]
	}
	if len(args) == 0 || args[0] != "cachelint" {
		return result{}, fmt.Errorf("only cachelint and the builtins cd and ln can run here")
	}
	return w.exec(args[1:], env, stdin)
}

func (w *workspace) exec(args, env []string, stdin []byte) (result, error) {
	cmd := exec.Command(cachelintBin, args...)
	cmd.Dir = w.dir
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		res.exit = ee.ExitCode()
	default:
		return res, fmt.Errorf("run cachelint: %w\nstderr:\n%s", err, stderr.Bytes())
	}
	return res, nil
}

// render turns output into the text a .ct file holds (see the file comment).
func (w *workspace) render(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, r)
		default:
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	s := strings.ReplaceAll(sb.String(), w.root, "$WORK")
	if !strings.HasSuffix(s, "\n") {
		s += "\n[no newline at end]\n"
	}
	return s
}

// runIn runs cachelint in a fresh copy of one fixture tree, for the tests below that read
// its output as data rather than as a transcript.
func runIn(t *testing.T, tree string, env []string, args ...string) result {
	t.Helper()
	w := newWorkspace(t)
	dir, err := w.inside(tree)
	if err != nil {
		t.Fatal(err)
	}
	w.dir = dir
	env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home}, env...)
	res, err := w.exec(args, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if panicked(res.stderr) {
		t.Fatalf("cachelint %s panicked:\n%s", strings.Join(args, " "), res.stderr)
	}
	return res
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// decodeObjects decodes a JSON array of objects, failing on anything else.
func decodeObjects(t *testing.T, data []byte) []map[string]json.RawMessage {
	t.Helper()
	var objs []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&objs); err != nil {
		t.Fatalf("output is not a JSON array of objects: %v\n%s", err, data)
	}
	if dec.More() {
		t.Fatalf("output has data after the JSON array:\n%s", data)
	}
	if objs == nil {
		t.Fatalf("output is JSON null, want an array:\n%s", data)
	}
	return objs
}

func unmarshal(t *testing.T, raw json.RawMessage, v any, what string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Errorf("%s: %v in %s", what, err, raw)
	}
}

// checkFinding is SPEC §6's `check --format json` record as the tests compare it.
type checkFinding struct {
	Code      string `json:"code"`
	Name      string `json:"name"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	URL       string `json:"url"`
}

type checkEdit struct {
	Content   string `json:"content"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
}

type checkFix struct {
	Applicability string      `json:"applicability"`
	Message       string      `json:"message"`
	Edits         []checkEdit `json:"edits"`
}

type checkRelated struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Cell     *int   `json:"cell"`
	CellLine *int   `json:"cell_line"`
	Message  string `json:"message"`
}

// where is a finding's location and code, the part of it a user scripts against.
type where struct {
	Code                             string
	File                             string
	Line, Column, EndLine, EndColumn int
	RelatedFiles                     []string
	RelatedLines                     []int
	FixApplicability                 string
}

// checkJSON runs `check --format json` and validates every record against SPEC §6,
// returning the locations found.
func checkJSON(t *testing.T, tree string, args ...string) ([]where, result) {
	t.Helper()
	res := runIn(t, tree, nil, append([]string{"check", "--format", "json"}, args...)...)
	// cell and cell_line (null outside notebooks) are additions to SPEC §6's keys.
	specKeys := []string{"cell", "cell_line", "code", "column", "end_column", "end_line", "file", "fix", "line", "message", "name", "related", "severity", "url"}
	var out []where
	for i, obj := range decodeObjects(t, res.stdout) {
		what := fmt.Sprintf("finding %d", i)
		got := keys(obj)
		// cost is the `= cost:` line of SPEC §5, present (null without --cost-profile) as
		// an addition to §6's keys; every §6 key must be there.
		want := specKeys
		if _, ok := obj["cost"]; ok {
			want = append(slices.Clone(specKeys), "cost")
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: keys %v, want %v", what, got, want)
		}
		var f checkFinding
		base := map[string]json.RawMessage{}
		for _, k := range specKeys {
			if k != "fix" && k != "related" && k != "cell" && k != "cell_line" && obj[k] != nil {
				base[k] = obj[k]
			}
		}
		b, _ := json.Marshal(base)
		unmarshal(t, b, &f, what)
		r, ok := rules.Lookup(f.Code)
		switch {
		case !ok:
			t.Errorf("%s: unknown code %q", what, f.Code)
		case f.Name != r.Name || f.Severity != string(r.Severity) || f.URL != r.URL():
			t.Errorf("%s: name/severity/url %q/%q/%q, want %q/%q/%q from the rule registry", what, f.Name, f.Severity, f.URL, r.Name, r.Severity, r.URL())
		}
		if f.Message == "" {
			t.Errorf("%s: empty message", what)
		}
		if f.Line < 1 || f.Column < 1 || f.EndLine < f.Line || (f.EndLine == f.Line && f.EndColumn <= f.Column) {
			t.Errorf("%s: span %d:%d-%d:%d is not a 1-based, non-empty range", what, f.Line, f.Column, f.EndLine, f.EndColumn)
		}
		wh := where{Code: f.Code, File: f.File, Line: f.Line, Column: f.Column, EndLine: f.EndLine, EndColumn: f.EndColumn}
		if cost, ok := obj["cost"]; ok && string(cost) != "null" {
			t.Errorf("%s: cost %s without --cost-profile, want null", what, cost)
		}
		if string(obj["fix"]) != "null" {
			var fix checkFix
			unmarshal(t, obj["fix"], &fix, what+" fix")
			if fix.Applicability != "safe" && fix.Applicability != "unsafe" {
				t.Errorf("%s: fix applicability %q, want safe or unsafe", what, fix.Applicability)
			}
			if len(fix.Edits) == 0 {
				t.Errorf("%s: fix without edits", what)
			}
			for _, e := range fix.Edits {
				// An edit that replaces nothing with nothing changes nothing: the fix would
				// be applied and the finding would stay.
				empty := e.Line == e.EndLine && e.Column == e.EndColumn
				if e.Line < 1 || e.Column < 1 || e.EndLine < e.Line || (e.EndLine == e.Line && e.EndColumn < e.Column) || (empty && e.Content == "") {
					t.Errorf("%s: fix edit %+v does nothing or is not a valid 1-based range", what, e)
				}
			}
			wh.FixApplicability = fix.Applicability
		}
		var related []checkRelated
		unmarshal(t, obj["related"], &related, what+" related")
		if related == nil {
			t.Errorf("%s: related is %s, want an array", what, obj["related"])
		}
		for _, rel := range related {
			if rel.File == "" || rel.Line < 1 || rel.Message == "" {
				t.Errorf("%s: related %+v lacks file, line or message", what, rel)
			}
			wh.RelatedFiles = append(wh.RelatedFiles, rel.File)
			wh.RelatedLines = append(wh.RelatedLines, rel.Line)
		}
		out = append(out, wh)
	}
	return out, res
}

func TestCheckJSON(t *testing.T) {
	cl001 := where{Code: "CL001", File: "train.py", Line: 19, Column: 13, EndLine: 19, EndColumn: 37, FixApplicability: "unsafe"}
	cl002 := where{Code: "CL002", File: "train.py", Line: 21, Column: 17, EndLine: 21, EndColumn: 27,
		RelatedFiles: []string{"utils/memory.py", "utils/memory.py"}, RelatedLines: []int{7, 9}}
	cl003 := where{Code: "CL003", File: "train.py", Line: 22, Column: 9, EndLine: 22, EndColumn: 33}
	tests := []struct {
		name string
		tree string
		args []string
		want []where
		exit int
		// stderr is what the run says besides the report: warnings only, never JSON.
		stderr string
	}{
		{"defaults", "findings", nil, []where{cl001, cl002}, 1, ""},
		{"select", "findings", []string{"--select", "CL002"}, []where{cl002}, 1, ""},
		{"ignore", "findings", []string{"--ignore", "CL001"}, []where{cl002}, 1, ""},
		{"extend-select", "findings", []string{"--extend-select", "CL003"}, []where{cl001, cl002, cl003}, 1, ""},
		{"exit-zero", "findings", []string{"--exit-zero"}, []where{cl001, cl002}, 0, ""},
		{"clean", "clean", nil, nil, 0, ""},
		// Columns count code points: `é = 1; ` before the call is 7 of them and 8 bytes.
		{"robust", "robust", nil, []where{
			{Code: "CL001", File: "binary_bytes.py", Line: 9, Column: 9, EndLine: 9, EndColumn: 33, FixApplicability: "unsafe"},
			{Code: "CL001", File: "bom_crlf.py", Line: 8, Column: 9, EndLine: 8, EndColumn: 33, FixApplicability: "unsafe"},
			{Code: "CL001", File: "données d'entraînement/entraîner.py", Line: 8, Column: 16, EndLine: 8, EndColumn: 40},
			{Code: "CL001", File: "py2.py", Line: 13, Column: 9, EndLine: 13, EndColumn: 33, FixApplicability: "unsafe"},
		}, 1, "cachelint: warning: Failed to parse binary_bytes.py:2:36: invalid syntax\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res := checkJSON(t, tt.tree, tt.args...)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("findings differ (-want +got):\n%s", d)
			}
			if res.exit != tt.exit {
				t.Errorf("exit %d, want %d", res.exit, tt.exit)
			}
			if string(res.stderr) != tt.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, tt.stderr)
			}
		})
	}
}

// callRecord is SPEC §6's `calls --format json` record; decoding it with unknown fields
// disallowed, after the exact key check, pins the schema.
type callRecord struct {
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Column    int      `json:"column"`
	Callee    string   `json:"callee"`
	Via       []string `json:"via"`
	Role      string   `json:"role"`
	Frequency string   `json:"frequency"`
	Period    *int     `json:"period"`
	Pattern   string   `json:"pattern"`
	Rule      *string  `json:"rule"`
	Loop      *loopRef `json:"loop"`
	Reason    string   `json:"reason"`
	Cell      *int     `json:"cell"`
	CellLine  *int     `json:"cell_line"`
}

type loopRef struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Cell     *int   `json:"cell"`
	CellLine *int   `json:"cell_line"`
}

// call is a record less its free-text reason, as the tests compare it.
type call struct {
	At        string // file:line:column
	Callee    string
	Via       []string
	Role      string
	Frequency string
	Period    int
	Pattern   string
	Rule      string
	Loop      string // file:line, "" when null
}

func callsJSON(t *testing.T, tree string) []call {
	t.Helper()
	res := runIn(t, tree, nil, "calls", "--format", "json", ".")
	if res.exit != 0 || len(res.stderr) != 0 {
		t.Fatalf("calls: exit %d, stderr:\n%s", res.exit, res.stderr)
	}
	// cell and cell_line (null outside notebooks) are additions to SPEC §6's keys.
	specKeys := []string{"callee", "cell", "cell_line", "column", "file", "frequency", "line", "loop", "pattern", "period", "reason", "role", "rule", "via"}
	var out []call
	for i, obj := range decodeObjects(t, res.stdout) {
		what := fmt.Sprintf("record %d", i)
		if got := keys(obj); !slices.Equal(got, specKeys) {
			t.Errorf("%s: keys %v, want exactly SPEC §6's %v", what, got, specKeys)
			for _, k := range got {
				if !slices.Contains(specKeys, k) {
					delete(obj, k)
				}
			}
		}
		b, _ := json.Marshal(obj)
		var r callRecord
		unmarshal(t, b, &r, what)
		if r.Via == nil {
			t.Errorf("%s: via is %s, want an array", what, obj["via"])
		}
		if !slices.Contains([]string{"call", "helper_body"}, r.Role) {
			t.Errorf("%s: role %q", what, r.Role)
		}
		if !slices.Contains([]string{"per_iteration", "periodic", "per_epoch", "once", "unknown"}, r.Frequency) {
			t.Errorf("%s: frequency %q", what, r.Frequency)
		}
		if !slices.Contains([]string{"none", "model_switch", "oom_retry", "interactive_cleanup", "leak_diagnosis", "service_guard"}, r.Pattern) {
			t.Errorf("%s: pattern %q", what, r.Pattern)
		}
		if r.Reason == "" {
			t.Errorf("%s: empty reason", what)
		}
		if r.Period != nil && (*r.Period < 1 || r.Frequency != "periodic") {
			t.Errorf("%s: period %d with frequency %s", what, *r.Period, r.Frequency)
		}
		if string(obj["loop"]) != "null" {
			var lk map[string]json.RawMessage
			_ = json.Unmarshal(obj["loop"], &lk)
			if got := keys(lk); !slices.Equal(got, []string{"cell", "cell_line", "file", "line"}) {
				t.Errorf("%s: loop keys %v, want [cell cell_line file line]", what, got)
			}
		}
		c := call{At: fmt.Sprintf("%s:%d:%d", r.File, r.Line, r.Column), Callee: r.Callee, Via: r.Via,
			Role: r.Role, Frequency: r.Frequency, Pattern: r.Pattern}
		if r.Period != nil {
			c.Period = *r.Period
		}
		if r.Rule != nil {
			c.Rule = *r.Rule
			if _, ok := rules.Lookup(c.Rule); !ok || c.Rule == "" {
				t.Errorf("%s: rule %q is not a rule code (want a code or null)", what, c.Rule)
			}
		}
		if r.Loop != nil {
			c.Loop = fmt.Sprintf("%s:%d", r.Loop.File, r.Loop.Line)
		}
		out = append(out, c)
	}
	return out
}

func TestCallsJSON(t *testing.T) {
	const ec = "torch.cuda.empty_cache"
	t.Run("findings", func(t *testing.T) {
		// One record per call; the mentions in a comment and a string are none. The call of
		// the helper free_gpu() names torch's function as its callee and the helper in via
		// (SPEC §6's example), and the helper's own call is a helper_body record.
		want := []call{
			{At: "train.py:14:17", Callee: ec, Via: []string{}, Role: "call", Frequency: "per_iteration", Pattern: "oom_retry", Loop: "train.py:10"},
			{At: "train.py:19:13", Callee: ec, Via: []string{}, Role: "call", Frequency: "per_iteration", Pattern: "none", Rule: "CL001", Loop: "train.py:10"},
			{At: "train.py:21:17", Callee: ec, Via: []string{"utils.memory.free_gpu"}, Role: "call", Frequency: "periodic", Period: 50, Pattern: "none", Rule: "CL002", Loop: "train.py:10"},
			{At: "train.py:22:9", Callee: ec, Via: []string{}, Role: "call", Frequency: "per_epoch", Pattern: "none", Rule: "CL003", Loop: "train.py:9"},
			{At: "train.py:27:1", Callee: ec, Via: []string{}, Role: "call", Frequency: "once", Pattern: "none"},
			{At: "utils/memory.py:9:5", Callee: ec, Via: []string{}, Role: "helper_body", Frequency: "once", Pattern: "none"},
		}
		if d := cmp.Diff(want, callsJSON(t, "findings")); d != "" {
			t.Errorf("records differ (-want +got):\n%s", d)
		}
	})
	t.Run("helpers", func(t *testing.T) {
		got := callsJSON(t, "helpers")
		// A two-step chain: fit() -> self._cleanup() -> free_gpu_memory() -> torch. Every
		// call of a helper gets its own record, with the chain in call order.
		for _, w := range []call{
			{At: "lib/memory.py:6:5", Callee: ec, Via: []string{}, Role: "helper_body", Frequency: "once", Pattern: "none"},
			{At: "trainer.py:9:9", Callee: ec, Via: []string{"lib.memory.free_gpu_memory"}, Role: "call", Frequency: "once", Pattern: "none"},
			{At: "trainer.py:15:13", Callee: ec, Via: []string{"trainer.Trainer._cleanup", "lib.memory.free_gpu_memory"}, Role: "call", Frequency: "per_iteration", Pattern: "none", Rule: "CL001", Loop: "trainer.py:12"},
			{At: "trainer.py:19:9", Callee: ec, Via: []string{"trainer.Trainer._cleanup", "lib.memory.free_gpu_memory"}, Role: "call", Frequency: "once", Pattern: "none"},
			// clear_devices() loops over devices itself; called once per step it still
			// empties the cache every step, reported at the call (SPEC §5).
			{At: "trainer.py:16:13", Callee: ec, Via: []string{"lib.memory.clear_devices"}, Role: "call", Frequency: "per_iteration", Pattern: "none", Rule: "CL001", Loop: "trainer.py:12"},
		} {
			if !slices.ContainsFunc(got, func(c call) bool { return cmp.Equal(c, w) }) {
				t.Errorf("no record %+v in:\n%+v", w, got)
			}
		}
		helperBody := 0
		for _, c := range got {
			if c.At == "lib/memory.py:12:13" && c.Role == "helper_body" {
				helperBody++
			}
		}
		if helperBody != 1 {
			t.Errorf("clear_devices()'s own call has %d helper_body records, want 1:\n%+v", helperBody, got)
		}
	})
}

// TestExplain runs explain on every rule: the doc's words all come out, in order; prose is
// wrapped to the width (80 on a pipe, $COLUMNS when set) and what cannot be wrapped (code
// blocks, table rows, headings) comes out exactly as written.
func TestExplain(t *testing.T) {
	for _, r := range rules.All() {
		t.Run(r.Code, func(t *testing.T) {
			doc := r.Doc()
			if doc == "" {
				t.Errorf("rules/%s.md is missing", r.Code)
			}
			docLines := map[string]bool{}
			for _, l := range strings.Split(doc, "\n") {
				docLines[l] = true
			}
			for _, tc := range []struct {
				arg   string
				env   []string
				width int
			}{
				{r.Code, nil, 80}, {strings.ToLower(r.Code), nil, 80}, {r.Name, nil, 80},
				{r.Code, []string{"COLUMNS=60"}, 60},
			} {
				res := runIn(t, "clean", tc.env, "explain", tc.arg)
				if res.exit != 0 || len(res.stderr) != 0 {
					t.Errorf("explain %s: exit %d, stderr: %s", tc.arg, res.exit, res.stderr)
				}
				out := string(res.stdout)
				if !slices.Equal(strings.Fields(out), strings.Fields(doc)) {
					t.Errorf("explain %s %v: the words differ from rules/%s.md:\n%s", tc.arg, tc.env, r.Code, out)
				}
				for _, block := range fencedBlocks(doc) {
					if !strings.Contains(out, block) {
						t.Errorf("explain %s %v: code block changed:\n%s", tc.arg, tc.env, block)
					}
				}
				for _, l := range strings.Split(out, "\n") {
					long := utf8.RuneCountInString(l) > tc.width
					oneWord := len(strings.Fields(strings.TrimLeft(l, "-*> "))) == 1
					if long && !docLines[l] && !oneWord {
						t.Errorf("explain %s %v: line of %d columns, wider than %d and not as written in the doc:\n%s",
							tc.arg, tc.env, utf8.RuneCountInString(l), tc.width, l)
					}
				}
			}
		})
	}
}

// fencedBlocks returns the ``` blocks of a Markdown document, fences included.
func fencedBlocks(doc string) []string {
	var out []string
	var cur []string
	for _, l := range strings.Split(doc, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(strings.TrimSpace(l), "```"):
			cur = []string{l}
		case cur != nil:
			cur = append(cur, l)
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				out = append(out, strings.Join(cur, "\n"))
				cur = nil
			}
		}
	}
	return out
}

func TestColor(t *testing.T) {
	const esc = "\x1b["
	tests := []struct {
		name  string
		env   []string
		args  []string
		color bool
	}{
		{"always", nil, []string{"--color", "always"}, true},
		{"never", nil, []string{"--color", "never"}, false},
		{"auto on a pipe", nil, nil, false},
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil, false},
		{"NO_COLOR with --color never", []string{"NO_COLOR=1"}, []string{"--color", "never"}, false},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "concise"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				res := runIn(t, "findings", tt.env, append([]string{"check", "--format", format}, tt.args...)...)
				if res.exit != 1 {
					t.Errorf("exit %d, want 1; stderr:\n%s", res.exit, res.stderr)
				}
				if got := bytes.Contains(res.stdout, []byte(esc)); got != tt.color {
					t.Errorf("colour codes in stdout: %v, want %v:\n%q", got, tt.color, res.stdout)
				}
				if bytes.Contains(res.stderr, []byte("\x1b")) {
					t.Errorf("ESC in stderr: %q", res.stderr)
				}
			})
		}
	}
}
