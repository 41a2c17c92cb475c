package output

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

// sarifSchemaPath is the official SARIF 2.1.0 schema, vendored under testdata.
func sarifSchemaPath(t *testing.T) string {
	t.Helper()
	// Vendored with its source and licence in testdata/sarif/README.md.
	p := filepath.Join("testdata", "sarif", "sarif-schema-2.1.0.json")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("SARIF schema missing: %v", err)
	}
	return p
}

func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := sarifSchemaPath(t)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compile SARIF schema: %v", err)
	}
	return sch
}

func validateSARIF(t *testing.T, sch *jsonschema.Schema, out []byte) map[string]any {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("sarif output is not JSON: %v\n%s", err, out)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("sarif output fails the SARIF 2.1.0 schema: %v\n%s", err, out)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSARIFValidAgainstSchema(t *testing.T) {
	sch := compileSARIFSchema(t)

	// The schema check itself must be able to fail.
	if err := sch.Validate(map[string]any{"version": "2.1.0", "runs": []any{map[string]any{"results": []any{}}}}); err == nil {
		t.Fatal("schema accepted a run without a tool: the validator is not checking")
	}

	odd := &report.Report{Findings: []report.Finding{
		{Code: "CL001", Severity: rules.Error, File: "/abs/dir with space/t#1.py", Line: 1, Column: 1, EndLine: 1, EndColumn: 2, Message: "abs"},
		{Code: "CL002", Severity: rules.Warning, File: "c:weird/a:b.py", Line: 2, Message: "colon in first segment"},
		{Code: "CL004", Severity: rules.Warning, File: "x.py", Message: "no position at all"},
		{Code: "CL999", File: "x.py", Line: 3, Column: 4, Message: "unknown rule",
			Fix: &report.Fix{Message: "empty", Applicability: "safe"}},
		{Code: "CL006", Severity: rules.Warning, File: "x.py", Line: 4, Column: 1, EndLine: 4, EndColumn: 3, Message: "insertion fix",
			Fix: &report.Fix{Message: "insert", Applicability: "safe", Edits: []report.Edit{{Line: 4, Column: 1, EndLine: 4, EndColumn: 1, NewText: "x"}, {Line: 0}}}},
	}}
	for name, tc := range map[string]struct {
		rep  *report.Report
		opts Options
	}{
		"fixture":            {fixtureReport(), fixtureOptions()},
		"empty":              {&report.Report{}, Options{}},
		"odd paths, no cwd":  {odd, Options{}},
		"odd paths with cwd": {odd, Options{Cwd: "/work/proj", Version: "1.0.0"}},
		"relative cwd":       {odd, Options{Cwd: "proj"}},
		"windows cwd":        {odd, Options{Cwd: "C:/Users/me/proj"}},
	} {
		t.Run(name, func(t *testing.T) {
			validateSARIF(t, sch, render(t, "sarif", tc.rep, tc.opts))
		})
	}
}

// sarifResults decodes the run's results with the fields tests inspect.
type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Version string `json:"version"`
				Rules   []struct {
					ID                   string `json:"id"`
					Name                 string `json:"name"`
					HelpURI              string `json:"helpUri"`
					DefaultConfiguration struct {
						Level   string `json:"level"`
						Enabled bool   `json:"enabled"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		ColumnKind         string `json:"columnKind"`
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex *int   `json:"ruleIndex"`
			Level     string `json:"level"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine, StartColumn, EndLine, EndColumn int
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			RelatedLocations    []json.RawMessage `json:"relatedLocations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Fixes               []struct {
				ArtifactChanges []struct {
					Replacements []struct {
						DeletedRegion struct {
							StartLine, StartColumn, EndLine, EndColumn int
						} `json:"deletedRegion"`
						InsertedContent *struct {
							Text string `json:"text"`
						} `json:"insertedContent"`
					} `json:"replacements"`
				} `json:"artifactChanges"`
			} `json:"fixes"`
		} `json:"results"`
	} `json:"runs"`
}

func decodeSARIF(t *testing.T, out []byte) sarifDoc {
	t.Helper()
	var d sarifDoc
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 1 {
		t.Fatalf("want one run, got %d", len(d.Runs))
	}
	return d
}

func TestSARIFContent(t *testing.T) {
	rep := fixtureReport()
	d := decodeSARIF(t, render(t, "sarif", rep, fixtureOptions()))
	run := d.Runs[0]

	all := rules.All()
	if len(run.Tool.Driver.Rules) != len(all) {
		t.Fatalf("driver lists %d rules, registry has %d", len(run.Tool.Driver.Rules), len(all))
	}
	if run.Tool.Driver.Version != "0.1.0-test" {
		t.Errorf("driver version %q", run.Tool.Driver.Version)
	}
	for i, r := range all {
		got := run.Tool.Driver.Rules[i]
		if got.ID != r.Code || got.Name != r.Name || got.HelpURI != r.URL() || got.DefaultConfiguration.Enabled != r.Default {
			t.Errorf("rule %d = %+v, want %s", i, got, r.Code)
		}
	}
	if run.ColumnKind != "unicodeCodePoints" {
		t.Errorf("columnKind %q: columns are code points", run.ColumnKind)
	}
	if run.OriginalURIBaseIDs["SRCROOT"].URI != "file:///home/user/proj/" {
		t.Errorf("SRCROOT = %q", run.OriginalURIBaseIDs["SRCROOT"].URI)
	}

	if len(run.Results) != len(rep.Findings) {
		t.Fatalf("%d results for %d findings", len(run.Results), len(rep.Findings))
	}
	for i, res := range run.Results {
		f := rep.Findings[i]
		if res.RuleIndex == nil || run.Tool.Driver.Rules[*res.RuleIndex].ID != f.Code {
			t.Errorf("result %d: ruleIndex does not point at %s", i, f.Code)
		}
		loc := res.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != f.File || loc.ArtifactLocation.URIBaseID != "SRCROOT" {
			t.Errorf("result %d: artifact %+v, want relative %q under SRCROOT", i, loc.ArtifactLocation, f.File)
		}
		// Notebooks too: machine formats give the position in the .ipynb file.
		if loc.Region.StartLine != f.Line || loc.Region.StartColumn != f.Column || loc.Region.EndLine != f.EndLine || loc.Region.EndColumn != f.EndColumn {
			t.Errorf("result %d: region %+v, want %d:%d-%d:%d", i, loc.Region, f.Line, f.Column, f.EndLine, f.EndColumn)
		}
		if len(res.RelatedLocations) != len(f.Related) {
			t.Errorf("result %d: %d related locations, want %d", i, len(res.RelatedLocations), len(f.Related))
		}
		if res.PartialFingerprints["cachelint/v2"] == "" {
			t.Errorf("result %d: no partial fingerprint", i)
		}
	}
	levels := map[string]string{}
	for i, res := range run.Results {
		levels[rep.Findings[i].Code] = res.Level
	}
	if levels["CL001"] != "error" || levels["CL002"] != "warning" {
		t.Errorf("levels %v", levels)
	}

	fixed := run.Results[5] // CL006 with its safe replacement
	if len(fixed.Fixes) != 1 {
		t.Fatalf("CL006 result has %d fixes, want 1", len(fixed.Fixes))
	}
	r := fixed.Fixes[0].ArtifactChanges[0].Replacements[0]
	if r.DeletedRegion.StartLine != 4 || r.DeletedRegion.StartColumn != 12 || r.DeletedRegion.EndColumn != 24 ||
		r.InsertedContent == nil || r.InsertedContent.Text != "torch.cuda.OutOfMemoryError" {
		t.Errorf("CL006 replacement = %+v", r)
	}
	deletion := run.Results[2].Fixes[0].ArtifactChanges[0].Replacements[0]
	if deletion.InsertedContent != nil {
		t.Error("a pure deletion should carry no insertedContent")
	}
}

func TestSARIFFingerprintsSurviveLineShifts(t *testing.T) {
	before := fixtureReport()
	after := fixtureReport()
	for i := range after.Findings {
		after.Findings[i].Line += 7
		after.Findings[i].EndLine += 7
	}
	a := decodeSARIF(t, render(t, "sarif", before, Options{}))
	b := decodeSARIF(t, render(t, "sarif", after, Options{}))
	seen := map[string]bool{}
	for i := range a.Runs[0].Results {
		fa := a.Runs[0].Results[i].PartialFingerprints["cachelint/v2"]
		if fb := b.Runs[0].Results[i].PartialFingerprints["cachelint/v2"]; fa != fb {
			t.Errorf("result %d: fingerprint changed when code above it moved (%s -> %s)", i, fa, fb)
		}
		if seen[fa] {
			t.Errorf("result %d: fingerprint %s is not unique", i, fa)
		}
		seen[fa] = true
	}
}

func TestSARIFArtifactURIs(t *testing.T) {
	for _, tc := range []struct {
		file, want string
	}{
		{"src/train.py", "src/train.py"},
		{"dir with space/a#b.py", "dir%20with%20space/a%23b.py"},
		{"a:b.py", "./a:b.py"},
		{"/abs/t.py", "file:///abs/t.py"},
		{"C:/proj/t.py", "file:///C:/proj/t.py"},
	} {
		if got := artifactLocation(tc.file, false).URI; got != tc.want {
			t.Errorf("artifact URI of %q = %q, want %q", tc.file, got, tc.want)
		}
	}
}

func TestSARIFRulesComeFromTheirDocs(t *testing.T) {
	r := rules.Rule{Code: "CL001", Name: "empty-cache-per-step", Severity: rules.Error, Default: true, Summary: "cache emptied on every step"}
	doc := "# CL001 empty-cache-per-step\n\n## What it does\nFinds `torch.cuda.empty_cache()` in a step loop.\n\n## Why is this bad?\nIt costs 38%.\n"
	got := sarifRuleFor(r, doc)
	if got.Help.Markdown != strings.TrimSpace(doc) || got.Help.Text != strings.TrimSpace(doc) {
		t.Errorf("help = %+v, want the rule doc", got.Help)
	}
	if got.FullDescription.Text != "Finds `torch.cuda.empty_cache()` in a step loop." {
		t.Errorf("fullDescription = %q, want the doc's What it does section", got.FullDescription.Text)
	}
	if got.ShortDescription.Text != r.Summary || got.DefaultConfiguration.Level != "error" || !got.DefaultConfiguration.Enabled {
		t.Errorf("rule = %+v", got)
	}

	bare := sarifRuleFor(r, "")
	if bare.Help.Text == "" || !strings.Contains(bare.Help.Text, r.URL()) || bare.FullDescription.Text != r.Summary {
		t.Errorf("rule without a doc = %+v, want the summary and the doc URL", bare)
	}

	// Whatever docs exist now, the printed rules carry them.
	d := decodeSARIFHelp(t, render(t, "sarif", &report.Report{}, Options{}))
	for i, r := range rules.All() {
		if doc := strings.TrimSpace(r.Doc()); doc != "" && d[i] != doc {
			t.Errorf("%s: help.markdown is not rules/%s.md", r.Code, r.Code)
		}
	}
}

func decodeSARIFHelp(t *testing.T, out []byte) []string {
	t.Helper()
	var d struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						Help struct {
							Markdown string `json:"markdown"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	var help []string
	for _, r := range d.Runs[0].Tool.Driver.Rules {
		help = append(help, r.Help.Markdown)
	}
	return help
}
