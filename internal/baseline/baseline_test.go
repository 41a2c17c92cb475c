package baseline

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/report"
)

func finding(code, file, fn, snippet string, line int) report.Finding {
	return report.Finding{Code: code, File: file, Function: fn, Snippet: snippet, Line: line, Column: 9}
}

// roundTrip writes findings as a baseline file and loads it back.
func roundTrip(t *testing.T, findings []report.Finding, root string) *Baseline {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, findings, root); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, buf.Bytes())
	}
	return b
}

func lines(fs []report.Finding) []int {
	var out []int
	for _, f := range fs {
		out = append(out, f.Line)
	}
	return out
}

func TestWriteIsSortedStableAndCounts(t *testing.T) {
	fs := []report.Finding{
		finding("CL002", "src/train.py", "train", "torch.cuda.empty_cache()", 50),
		finding("CL001", "src/train.py", "train", "torch.cuda.empty_cache()", 42),
		finding("CL001", "src/train.py", "train", "torch.cuda.empty_cache()", 44),
		finding("CL001", "src/eval.py", "", "torch.cuda.empty_cache()", 3),
	}
	var a, b bytes.Buffer
	if err := Write(&a, fs, ""); err != nil {
		t.Fatal(err)
	}
	reversed := []report.Finding{fs[3], fs[2], fs[1], fs[0]}
	if err := Write(&b, reversed, ""); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("output depends on input order:\n%s\n%s", a.String(), b.String())
	}
	want := `{
  "version": 1,
  "findings": [
    {
      "code": "CL001",
      "file": "src/eval.py",
      "function": "",
      "snippet": "torch.cuda.empty_cache()",
      "count": 1
    },
    {
      "code": "CL001",
      "file": "src/train.py",
      "function": "train",
      "snippet": "torch.cuda.empty_cache()",
      "count": 2
    },
    {
      "code": "CL002",
      "file": "src/train.py",
      "function": "train",
      "snippet": "torch.cuda.empty_cache()",
      "count": 1
    }
  ]
}
`
	if a.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", a.String(), want)
	}
}

func TestWriteEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, nil, ""); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "{\n  \"version\": 1,\n  \"findings\": []\n}\n" {
		t.Errorf("empty baseline = %q", got)
	}
}

func TestFilterKnownFindingsSurviveEdits(t *testing.T) {
	old := []report.Finding{
		finding("CL001", "train.py", "train", "torch.cuda.empty_cache()", 42),
		finding("CL004", "train.py", "Trainer.fit", "torch.cuda.empty_cache()", 80),
	}
	b := roundTrip(t, old, "")
	// Ten lines were added at the top of the file, and the call was re-indented.
	now := []report.Finding{
		finding("CL001", "train.py", "train", "torch.cuda.empty_cache(  )", 52),
		finding("CL004", "train.py", "Trainer.fit", "torch.cuda.empty_cache()", 90),
	}
	if got := b.Filter(now, ""); len(got) != 0 {
		t.Errorf("shifted findings came back as new: %+v", got)
	}
}

func TestFilterSecondIdenticalCallIsNew(t *testing.T) {
	b := roundTrip(t, []report.Finding{finding("CL001", "train.py", "train", "torch.cuda.empty_cache()", 42)}, "")
	now := []report.Finding{
		finding("CL001", "train.py", "train", "torch.cuda.empty_cache()", 60), // the new one
		finding("CL001", "train.py", "train", "torch.cuda.empty_cache()", 42),
	}
	got := b.Filter(now, "")
	if !reflect.DeepEqual(lines(got), []int{60}) {
		t.Errorf("new findings on lines %v, want [60]", lines(got))
	}
}

func TestFilterReportsLastByPosition(t *testing.T) {
	base := []report.Finding{
		finding("CL001", "a.py", "f", "empty_cache()", 10),
		finding("CL001", "a.py", "f", "empty_cache()", 20),
	}
	b := roundTrip(t, base, "")
	now := []report.Finding{
		finding("CL001", "a.py", "f", "empty_cache()", 30),
		finding("CL001", "a.py", "f", "empty_cache()", 10),
		finding("CL001", "a.py", "f", "empty_cache()", 20),
	}
	now[0].Column = 1
	now = append(now, finding("CL001", "a.py", "f", "empty_cache()", 30)) // same line, column 9
	got := b.Filter(now, "")
	if len(got) != 2 || got[0].Line != 30 || got[0].Column != 1 || got[1].Line != 30 || got[1].Column != 9 {
		t.Errorf("Filter = %+v, want both findings on line 30 in input order", got)
	}
}

func TestFilterKeyParts(t *testing.T) {
	b := roundTrip(t, []report.Finding{finding("CL001", "train.py", "train", "torch.cuda.empty_cache()", 1)}, "")
	for name, f := range map[string]report.Finding{
		"other code":      finding("CL002", "train.py", "train", "torch.cuda.empty_cache()", 1),
		"other file":      finding("CL001", "eval.py", "train", "torch.cuda.empty_cache()", 1),
		"other function":  finding("CL001", "train.py", "evaluate", "torch.cuda.empty_cache()", 1),
		"other code text": finding("CL001", "train.py", "train", "torch.mps.empty_cache()", 1),
	} {
		if got := b.Filter([]report.Finding{f}, ""); len(got) != 1 {
			t.Errorf("%s: finding hidden by an unrelated baseline entry", name)
		}
	}
}

func TestFilesRelativeToRoot(t *testing.T) {
	root := t.TempDir()
	abs := filepath.Join(root, "src", "train.py")
	if got := KeyOf(report.Finding{File: abs}, root).File; got != "src/train.py" {
		t.Fatalf("KeyOf file = %q, want src/train.py", got)
	}
	// Written from one working directory, checked from another: the same project file.
	b := roundTrip(t, []report.Finding{finding("CL001", abs, "train", "x()", 3)}, root)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Filter([]report.Finding{finding("CL001", filepath.ToSlash(rel), "train", "x()", 3)}, root); len(got) != 0 {
		t.Errorf("same file given relative to the working directory was reported as new")
	}
	if got := KeyOf(report.Finding{File: "../elsewhere/x.py"}, root).File; got != "../elsewhere/x.py" {
		t.Errorf("file outside the root = %q, want it unchanged", got)
	}
}

func TestSnippetNormalisation(t *testing.T) {
	for in, want := range map[string]string{
		"torch.cuda.empty_cache()":                  "torch.cuda.empty_cache()",
		"  torch.cuda.empty_cache( )\n":             "torch.cuda.empty_cache()",
		"f(a,b)":                                    "f(a,b)",
		"f( a,\n\tb )":                              "f(a,b)",
		"if not   x:\n    torch.cuda.empty_cache()": "if not x:torch.cuda.empty_cache()",
		"": "",
	} {
		if got := KeyOf(report.Finding{Snippet: in}, "").Snippet; got != want {
			t.Errorf("snippet %q normalised to %q, want %q", in, got, want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	k := KeyOf(finding("CL001", "a.py", "f", "x(  1)", 1), "")
	same := KeyOf(finding("CL001", "a.py", "f", "x( 1)", 99), "")
	if k.Fingerprint() != same.Fingerprint() || len(k.Fingerprint()) != 32 {
		t.Errorf("fingerprints %s / %s should be equal 32-digit hex", k.Fingerprint(), same.Fingerprint())
	}
	a := Key{Code: "CL001", File: "a", Function: "bc"}
	c := Key{Code: "CL001", File: "ab", Function: "c"}
	if a.Fingerprint() == c.Fingerprint() {
		t.Error("fields that concatenate to the same text share a fingerprint")
	}
}

func TestLoadErrors(t *testing.T) {
	tests := map[string]struct {
		content string
		want    string
	}{
		"malformed":     {"{\n  \"version\": 1,\n  \"findings\": [\n    {\"code\": \"CL001\",,}\n", "line 4, column"},
		"truncated":     {`{"version": 1, "findings": [`, "truncated"},
		"empty":         {"", "empty file"},
		"not an object": {`[1, 2]`, "invalid JSON"},
		"no version":    {`{"findings": []}`, `missing "version"`},
		"future":        {`{"version": 2, "findings": []}`, "unsupported version 2"},
		"unknown field": {`{"version": 1, "findings": [], "extra": true}`, `unknown field "extra"`},
		"zero count":    {`{"version": 1, "findings": [{"code": "CL001", "file": "a.py", "count": 0}]}`, `"count" must be at least 1`},
		"no code":       {`{"version": 1, "findings": [{"file": "a.py", "count": 1}]}`, `finding 1: missing "code"`},
		"no file":       {`{"version": 1, "findings": [{"code": "CL001", "count": 1}]}`, `missing "file"`},
		"trailing":      {`{"version": 1, "findings": []} {}`, "unexpected data"},
	}
	dir := t.TempDir()
	for name, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming %s and containing %q", name, err, path, tt.want)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	if _, err := Load(missing); err == nil || !os.IsNotExist(unwrapAll(err)) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: error %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestFingerprintsIgnoreLinesAndSeparateDuplicates(t *testing.T) {
	base := report.Finding{Code: "CL001", File: "t.py", Line: 10, Function: "train", Snippet: "torch.cuda.empty_cache()"}
	moved := base
	moved.Line = 25
	other := base
	other.Function = "evaluate"

	a := Fingerprints([]report.Finding{base}, "")[0]
	if b := Fingerprints([]report.Finding{moved}, "")[0]; a != b {
		t.Error("fingerprint changed when only the line moved")
	}
	if b := Fingerprints([]report.Finding{other}, "")[0]; a == b {
		t.Error("findings in different functions share a fingerprint")
	}
	twice := Fingerprints([]report.Finding{base, moved}, "")
	if twice[0] != a || twice[1] == a {
		t.Errorf("two identical statements: got %v, want the first to keep %s and the second to differ", twice, a)
	}
	reformatted := base
	reformatted.Snippet = "torch.cuda.empty_cache( )"
	if b := Fingerprints([]report.Finding{reformatted}, "")[0]; a != b {
		t.Error("fingerprint changed when only the formatting did")
	}
	// Shown from another directory, the same file relative to the same root.
	fromAbove := base
	fromAbove.File = "proj/t.py"
	if b := Fingerprints([]report.Finding{fromAbove}, "proj")[0]; a != b {
		t.Error("fingerprint depends on the directory cachelint ran from")
	}
}
