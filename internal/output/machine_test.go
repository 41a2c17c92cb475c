package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

// jsonKeys returns an object's keys in the order they appear in the text.
func jsonKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// specKeys are SPEC §6's keys with cell and cell_line (null outside notebooks) beside the
// position.
var specKeys = []string{"code", "name", "severity", "message", "file", "line", "column", "end_line", "end_column", "cell", "cell_line", "url", "fix", "related", "cost"}

func TestJSONSchemaOfSpec(t *testing.T) {
	rep := fixtureReport()
	var raws []json.RawMessage
	if err := json.Unmarshal(render(t, "json", rep, Options{}), &raws); err != nil {
		t.Fatal(err)
	}
	if len(raws) != len(rep.Findings) {
		t.Fatalf("%d records for %d findings", len(raws), len(rep.Findings))
	}
	for i, raw := range raws {
		if keys := jsonKeys(t, raw); !reflect.DeepEqual(keys, specKeys) {
			t.Errorf("record %d keys %v, want %v", i, keys, specKeys)
		}
	}

	type edit struct {
		Content   string `json:"content"`
		Line      int    `json:"line"`
		Column    int    `json:"column"`
		EndLine   int    `json:"end_line"`
		EndColumn int    `json:"end_column"`
	}
	var recs []struct {
		Line, Column int
		Cell         *int `json:"cell"`
		CellLine     *int `json:"cell_line"`
		Fix          *struct {
			Applicability, Message string
			Edits                  []edit
		}
		Related []map[string]any
		Cost    *string
		URL     *string
	}
	if err := json.Unmarshal(render(t, "json", rep, Options{}), &recs); err != nil {
		t.Fatal(err)
	}
	if recs[0].Fix != nil || recs[0].Cost != nil || recs[0].Related == nil || len(recs[0].Related) != 0 {
		t.Errorf("absent fix and cost must be null and related []: %+v", recs[0])
	}
	if recs[1].Line != 40 || recs[1].Column != 6 {
		t.Errorf("notebook record at %d:%d, want the .ipynb position 40:6", recs[1].Line, recs[1].Column)
	}
	if c, l := recs[1].Cell, recs[1].CellLine; c == nil || l == nil || *c != rep.Findings[1].Cell || *l != rep.Findings[1].CellLine {
		t.Errorf("notebook record cell %v line %v, want %d and %d", c, l, rep.Findings[1].Cell, rep.Findings[1].CellLine)
	}
	if recs[0].Cell != nil || recs[0].CellLine != nil {
		t.Errorf("a .py record has cell %v, cell_line %v; want null", recs[0].Cell, recs[0].CellLine)
	}
	if c := recs[2].Cost; c == nil || *c != rep.Findings[2].Cost {
		t.Errorf("cost = %v", c)
	}
	fix := recs[5].Fix
	if fix == nil || fix.Applicability != "safe" || len(fix.Edits) != 1 || fix.Edits[0].Content != "torch.cuda.OutOfMemoryError" ||
		fix.Edits[0] != (edit{"torch.cuda.OutOfMemoryError", 4, 12, 4, 24}) {
		t.Errorf("CL006 fix = %+v", fix)
	}
	if got := recs[5].Related; len(got) != 2 || !reflect.DeepEqual(got[0], map[string]any{"file": "utils.py", "line": 5.0, "cell": nil, "cell_line": nil, "message": "the cache is cleared here"}) {
		t.Errorf("related = %v", got)
	}

	if got := string(render(t, "json", &report.Report{}, Options{})); got != "[]\n" {
		t.Errorf("empty json = %q, want []", got)
	}
}

func TestJSONKeepsSourceCharacters(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{{Code: "CL004", File: "a.py", Line: 1, Column: 1, Message: "loop `while a < b && c > d`"}}}
	if out := string(render(t, "json", rep, Options{})); !strings.Contains(out, "`while a < b && c > d`") {
		t.Errorf("json escaped HTML characters: %s", out)
	}
}

func TestJSONLinesIsOneRecordPerLine(t *testing.T) {
	rep := fixtureReport()
	rep.Findings[0].Message = "multi\nline message"
	out := render(t, "json-lines", rep, Options{})
	sc := bufio.NewScanner(bytes.NewReader(out))
	var n int
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d is not a JSON object: %v: %s", n+1, err, sc.Bytes())
		}
		if rec["code"] != rep.Findings[n].Code {
			t.Errorf("line %d has code %v, want %s", n+1, rec["code"], rep.Findings[n].Code)
		}
		n++
	}
	if n != len(rep.Findings) {
		t.Errorf("%d lines for %d findings", n, len(rep.Findings))
	}
	if got := render(t, "json-lines", &report.Report{}, Options{}); len(got) != 0 {
		t.Errorf("empty json-lines = %q, want nothing", got)
	}
}

func TestGitLabCodeQuality(t *testing.T) {
	rep := fixtureReport()
	rep.Findings[0].File = "/home/user/proj/gen/missing.py"
	var issues []struct {
		Description string `json:"description"`
		CheckName   string `json:"check_name"`
		Fingerprint string `json:"fingerprint"`
		Severity    string `json:"severity"`
		Location    struct {
			Path  string `json:"path"`
			Lines struct {
				Begin int `json:"begin"`
			} `json:"lines"`
		} `json:"location"`
	}
	if err := json.Unmarshal(render(t, "gitlab", rep, fixtureOptions()), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != len(rep.Findings) {
		t.Fatalf("%d issues for %d findings", len(issues), len(rep.Findings))
	}
	allowed := map[string]bool{"info": true, "minor": true, "major": true, "critical": true, "blocker": true}
	seen := map[string]bool{}
	for i, is := range issues {
		f := rep.Findings[i]
		if is.CheckName != f.Code || !strings.Contains(is.Description, f.Message) || !allowed[is.Severity] {
			t.Errorf("issue %d = %+v", i, is)
		}
		if is.Location.Lines.Begin != f.Line {
			t.Errorf("issue %d begins at %d, want %d", i, is.Location.Lines.Begin, f.Line)
		}
		if is.Fingerprint == "" || seen[is.Fingerprint] {
			t.Errorf("issue %d: fingerprint %q empty or repeated", i, is.Fingerprint)
		}
		seen[is.Fingerprint] = true
	}
	if issues[0].Location.Path != "gen/missing.py" {
		t.Errorf("absolute path under Cwd should become relative, got %q", issues[0].Location.Path)
	}
	if issues[2].Severity != "major" || issues[3].Severity != "minor" {
		t.Errorf("severity mapping: error->%s warning->%s", issues[2].Severity, issues[3].Severity)
	}
	if got := string(render(t, "gitlab", &report.Report{}, Options{})); got != "[]\n" {
		t.Errorf("empty gitlab report = %q, want []", got)
	}
	outside := gitlabPath("/elsewhere/a.py", "/home/user/proj")
	if outside != "/elsewhere/a.py" {
		t.Errorf("a path outside Cwd must stay as it is, got %q", outside)
	}
}

type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Line      int    `xml:"line,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitIsWellFormedAndGroupedByFile(t *testing.T) {
	rep := fixtureReport()
	nasty := "quotes \" ' <tags> & ampersands ]]> \x1b[31m\x00 control"
	rep.Findings[4].Message = nasty
	out := render(t, "junit", rep, Options{})

	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		if _, err := dec.Token(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("junit output is not well-formed XML: %v\n%s", err, out)
		}
	}
	var d junitDoc
	if err := xml.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	if d.Tests != 6 || d.Failures != 6 {
		t.Errorf("testsuites counts tests=%d failures=%d, want 6/6", d.Tests, d.Failures)
	}
	var names []string
	for _, s := range d.Suites {
		names = append(names, s.Name)
		if s.Tests != len(s.Cases) || s.Failures != len(s.Cases) {
			t.Errorf("suite %s counts %d/%d for %d cases", s.Name, s.Tests, s.Failures, len(s.Cases))
		}
	}
	if want := []string{"gen/missing.py", "nb.ipynb", "src/train.py", "utils.py"}; !reflect.DeepEqual(names, want) {
		t.Errorf("suites %v, want one per file %v", names, want)
	}
	train := d.Suites[2]
	c := train.Cases[2]
	if c.Name != "org.cachelint.CL001" || c.Classname != "src/train" || c.Line != 10 {
		t.Errorf("testcase = %+v", c)
	}
	// Control characters are not allowed in XML 1.0: they come back replaced, the rest intact.
	if c.Failure == nil || !strings.HasPrefix(c.Failure.Message, "quotes \" ' <tags> & ampersands ]]> ") {
		t.Errorf("failure message did not survive escaping: %+v", c.Failure)
	}
	if !strings.Contains(d.Suites[1].Cases[0].Failure.Text, "cell 3, line 2") {
		t.Errorf("notebook failure text should name the cell: %q", d.Suites[1].Cases[0].Failure.Text)
	}

	var empty junitDoc
	if err := xml.Unmarshal(render(t, "junit", &report.Report{}, Options{}), &empty); err != nil {
		t.Fatal(err)
	}
	if empty.Tests != 1 || empty.Failures != 0 || empty.Suites[0].Cases[0].Failure != nil {
		t.Errorf("clean junit report = %+v, want one passing testcase", empty)
	}
}

func TestMachineFormatsLocateNotebooksInTheIpynb(t *testing.T) {
	rep := &report.Report{Findings: []report.Finding{{
		Code: "CL001", Severity: rules.Error, File: "nb.ipynb", Line: 40, Column: 6, EndLine: 40, EndColumn: 30,
		Cell: 3, CellLine: 2, CellColumn: 5, Message: "m",
	}}}
	if out := string(render(t, "github", rep, Options{})); !strings.Contains(out, "line=40,col=6,") {
		t.Errorf("github: %s", out)
	}
	if out := string(render(t, "junit", rep, Options{})); !strings.Contains(out, `line="40" column="6"`) {
		t.Errorf("junit: %s", out)
	}
}
