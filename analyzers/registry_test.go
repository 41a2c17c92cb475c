package analyzers_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

// notFromAnalyzers are the rules that no analyzer reports: CL900 comes from the parser,
// through the CLI.
var notFromAnalyzers = map[string]bool{"CL900": true}

// TestEveryRuleHasAnAnalyzer fails for a rule that is registered (and so listed by
// `cachelint rules` and selectable) but that nothing reports.
func TestEveryRuleHasAnAnalyzer(t *testing.T) {
	for _, r := range rules.All() {
		if notFromAnalyzers[r.Code] {
			continue
		}
		a := analyzers.Reporting[r.Code]
		if a == nil {
			t.Errorf("%s %s: no analyzer reports it (analyzers.Reporting)", r.Code, r.Name)
			continue
		}
		// The driver runs analyzers.All; an analyzer outside it never runs.
		if !slices.Contains(analyzers.All, a) {
			t.Errorf("%s: its analyzer %s is not in analyzers.All", r.Code, a.Name)
		}
	}
	for code := range analyzers.Reporting {
		if _, ok := rules.Lookup(code); !ok || notFromAnalyzers[code] {
			t.Errorf("analyzers.Reporting has %s, which is not a rule analyzers report", code)
		}
	}
}

var rePythonBlock = regexp.MustCompile("(?s)```python\n(.*?)\n```")

// docBlocks returns the first Python block after `## Example` and the first after
// `Use instead:` in a rule's doc.
func docBlocks(doc string) (example, useInstead string, ok bool) {
	_, rest, found := strings.Cut(doc, "\n## Example\n")
	if !found {
		return "", "", false
	}
	ex, rest, found := strings.Cut(rest, "\nUse instead:\n")
	if !found {
		return "", "", false
	}
	use, _, _ := strings.Cut(rest, "\n## ")
	m1, m2 := rePythonBlock.FindStringSubmatch(ex), rePythonBlock.FindStringSubmatch(use)
	if m1 == nil || m2 == nil {
		return "", "", false
	}
	return m1[1] + "\n", m2[1] + "\n", true
}

// run analyses one Python file as a project of its own, on the production path.
func run(t *testing.T, src string, as ...*driver.Analyzer) []report.Finding {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "example.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
	return analyzertest.Analyse(t, dir, as...).Report.Findings
}

// TestDocExamples runs each rule's documented example through its analyzer: `cachelint
// explain` shows users the Example as what the rule reports and Use instead as the clean
// version, so both must be true of the analyzer as it is.
func TestDocExamples(t *testing.T) {
	var reporting []*driver.Analyzer
	for _, a := range analyzers.Reporting {
		if !slices.Contains(reporting, a) {
			reporting = append(reporting, a)
		}
	}
	for _, r := range rules.All() {
		a := analyzers.Reporting[r.Code]
		if a == nil {
			continue // TestEveryRuleHasAnAnalyzer reports it
		}
		t.Run(r.Code, func(t *testing.T) {
			example, useInstead, ok := docBlocks(r.Doc())
			if !ok {
				t.Fatalf("rules/%s.md has no ```python block under `## Example` and under `Use instead:`", r.Code)
			}
			found := false
			for _, d := range run(t, example, a) {
				found = found || d.Code == r.Code
			}
			if !found {
				t.Errorf("the Example of rules/%s.md gets no %s from %s:\n%s", r.Code, r.Code, a.Name, example)
			}
			for _, d := range run(t, useInstead, reporting...) {
				t.Errorf("the Use instead of rules/%s.md gets %s: %s", r.Code, d.Code, d.Message)
			}
		})
	}
}
