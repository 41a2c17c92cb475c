package rules

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The markers every doc has, in this order (rules/README.md). "Use instead:" is a line of
// its own, as in ruff's docs, not a heading.
var docMarkers = []string{"## What it does", "## Why is this bad?", "## Example", "Use instead:", "## Fix", "## References"}

// docLines returns the doc's lines outside fenced code blocks, so that a heading-like line
// inside an example does not count as a section.
func docLines(doc string) []string {
	var out []string
	fenced := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, strings.TrimRight(l, " \t\r"))
		}
	}
	return out
}

// section returns the text between the marker line and the next line that starts a section
// or "Use instead:".
func section(doc, marker string) (string, bool) {
	lines := strings.Split(doc, "\n")
	fenced := false
	start := -1
	for i, l := range lines {
		t := strings.TrimRight(l, " \t\r")
		if strings.HasPrefix(strings.TrimSpace(t), "```") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		if start >= 0 && (strings.HasPrefix(t, "## ") || t == "Use instead:") {
			return strings.Join(lines[start:i], "\n"), true
		}
		if t == marker {
			start = i + 1
		}
	}
	if start < 0 {
		return "", false
	}
	return strings.Join(lines[start:], "\n"), true
}

var rePythonBlock = regexp.MustCompile("(?s)```python\n.*?\n```")

// checkDoc returns what is wrong with one rule's doc, so the test can list every problem.
func checkDoc(r Rule, doc string) []string {
	if doc == "" {
		return []string{"rules/" + r.Code + ".md does not exist"}
	}
	var problems []string
	first, _, _ := strings.Cut(doc, "\n")
	if want := "# " + r.Code + " " + r.Name; strings.TrimRight(first, " \r") != want {
		problems = append(problems, "first line is "+quote(first)+", want "+quote(want))
	}
	want := slices.Clone(docMarkers)
	if r.Fix == FixUnsafe { // its doc must say why under `## Fix safety`
		want = slices.Insert(want, len(want)-1, "## Fix safety")
	}
	// Each marker must appear exactly once, after the previous one.
	lines := docLines(doc)
	last := -1
	for _, m := range want {
		var at []int
		for i, l := range lines {
			if l == m {
				at = append(at, i)
			}
		}
		switch {
		case len(at) == 0:
			problems = append(problems, "missing "+quote(m))
		case len(at) > 1:
			problems = append(problems, quote(m)+" appears more than once")
		case at[0] < last:
			problems = append(problems, quote(m)+" is out of order (want "+strings.Join(want, ", ")+")")
		default:
			last = at[0]
		}
	}
	if why, ok := section(doc, "## Why is this bad?"); ok && !strings.ContainsAny(why, "0123456789") {
		problems = append(problems, "`## Why is this bad?` has no measured number")
	}
	if ex, ok := section(doc, "## Example"); ok && !rePythonBlock.MatchString(ex) {
		problems = append(problems, "`## Example` has no ```python block")
	}
	if use, ok := section(doc, "Use instead:"); ok && !rePythonBlock.MatchString(use) {
		problems = append(problems, "`Use instead:` has no ```python block")
	}
	if refs, ok := section(doc, "## References"); ok && strings.TrimSpace(refs) == "" {
		problems = append(problems, "`## References` is empty")
	}
	return problems
}

func quote(s string) string { return "`" + s + "`" }

func TestEveryRuleIsDocumented(t *testing.T) {
	for _, r := range All() {
		t.Run(r.Code, func(t *testing.T) {
			for _, p := range checkDoc(r, r.Doc()) {
				t.Errorf("%s: %s", r.Code, p)
			}
		})
	}
}

// The checker itself must catch the mistakes it exists for; a check that passes everything
// would let a broken doc ship.
func TestCheckDocCatchesMistakes(t *testing.T) {
	r := Rule{Code: "CL001", Name: "empty-cache-per-step", Fix: FixUnsafe}
	good := strings.Join([]string{
		"# CL001 empty-cache-per-step", "", "## What it does", "x", "", "## Why is this bad?", "38% slower", "",
		"## Example", "", "```python", "a()", "```", "", "Use instead:", "", "```python", "b()", "```", "",
		"## Fix", "remove it", "", "## Fix safety", "unsafe", "", "## References", "- https://pytorch.org", "",
	}, "\n")
	if p := checkDoc(r, good); len(p) != 0 {
		t.Fatalf("a complete doc was rejected: %v", p)
	}
	cases := []struct {
		name, from, to, want string
	}{
		{"wrong title", "# CL001 empty-cache-per-step", "# CL001 per-step", "first line"},
		{"missing section", "## What it does\n", "", "missing `## What it does`"},
		{"missing fix safety", "## Fix safety\n", "", "missing `## Fix safety`"},
		{"out of order", "## Fix\nremove it\n\n## Fix safety\nunsafe", "## Fix safety\nunsafe\n\n## Fix\nremove it", "out of order"},
		{"no number", "38% slower", "much slower", "no measured number"},
		{"no example code", "```python\na()\n```", "a()", "`## Example` has no"},
		{"empty references", "- https://pytorch.org", "", "`## References` is empty"},
		{"heading only inside code", "## What it does\n", "```python\n## What it does\n```\n", "missing `## What it does`"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(good, c.from) {
				t.Fatalf("test case does not apply: %q not in the doc", c.from)
			}
			p := checkDoc(r, strings.Replace(good, c.from, c.to, 1))
			if !slices.ContainsFunc(p, func(s string) bool { return strings.Contains(s, c.want) }) {
				t.Errorf("problems %v do not mention %q", p, c.want)
			}
		})
	}
	if p := checkDoc(r, ""); len(p) != 1 || !strings.Contains(p[0], "does not exist") {
		t.Errorf("missing doc: problems %v", p)
	}
}

// A doc file without a rule is a typo (CL07.md) or a leftover of a removed rule, and would
// never be shown.
func TestEveryDocHasARule(t *testing.T) {
	names, err := fs.Glob(docs, "*.md")
	if err != nil {
		t.Fatalf("list docs: %v", err)
	}
	for _, n := range names {
		if n == "README.md" {
			continue
		}
		code := strings.TrimSuffix(n, ".md")
		if r, ok := Lookup(code); !ok || r.Code != code {
			t.Errorf("rules/%s documents no registered rule", n)
		}
	}
}

func TestRegistry(t *testing.T) {
	all := All()
	codes := map[string]bool{}
	names := map[string]bool{}
	reCode := regexp.MustCompile(`^CL[0-9]{3}$`)
	reName := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for i, r := range all {
		if i > 0 && all[i-1].Code >= r.Code {
			t.Errorf("All() is not ordered by code: %s before %s", all[i-1].Code, r.Code)
		}
		if !reCode.MatchString(r.Code) {
			t.Errorf("%s: code is not CL followed by three digits", r.Code)
		}
		if !reName.MatchString(r.Name) {
			t.Errorf("%s: name %q is not kebab-case", r.Code, r.Name)
		}
		if codes[r.Code] || names[r.Name] {
			t.Errorf("%s %s: code or name registered twice", r.Code, r.Name)
		}
		codes[r.Code], names[r.Name] = true, true
		switch r.Severity {
		case Error, Warning, Info:
		default:
			t.Errorf("%s: unknown severity %q", r.Code, r.Severity)
		}
		if r.Summary == "" {
			t.Errorf("%s: no summary", r.Code)
		}
		if !strings.HasSuffix(r.URL(), "/rules/"+r.Code+".md") {
			t.Errorf("%s: URL %s does not point at its doc", r.Code, r.URL())
		}
	}
	// Severity and default-on are what users see first; these are SPEC §5's table.
	spec := []struct {
		code     string
		severity Severity
		on       bool
	}{
		{"CL001", Error, true}, {"CL002", Warning, true}, {"CL003", Info, false}, {"CL004", Warning, true},
		{"CL005", Warning, true}, {"CL006", Warning, true},
		{"CL010", Error, true}, {"CL011", Error, true}, {"CL012", Warning, true},
		{"CL900", Error, false},
	}
	for _, s := range spec {
		r, ok := Lookup(s.code)
		if !ok {
			t.Errorf("%s is not registered", s.code)
			continue
		}
		if r.Severity != s.severity || r.Default != s.on {
			t.Errorf("%s: severity %s, default %v; SPEC §5 says %s, %v", s.code, r.Severity, r.Default, s.severity, s.on)
		}
	}
}

func codesOf(rs []Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Code)
	}
	return out
}

func allCodes() []string { return codesOf(All()) }

func TestMatch(t *testing.T) {
	cases := []struct {
		selector string
		want     []string
	}{
		{"CL001", []string{"CL001"}},
		{"cl001", []string{"CL001"}},
		{" CL002 ", []string{"CL002"}},
		{"CL00", []string{"CL001", "CL002", "CL003", "CL004", "CL005", "CL006"}},
		{"CL01", []string{"CL010", "CL011", "CL012"}},
		{"CL9", []string{"CL900"}},
		{"CL", allCodes()},
		{"ALL", allCodes()},
		{"all", allCodes()},
		// A rule's name selects it too, as in `# noqa: empty-cache-per-step`-style configs.
		{"empty-cache-per-epoch", []string{"CL003"}},
	}
	for _, c := range cases {
		got, err := Match(c.selector)
		if err != nil {
			t.Errorf("Match(%q): %v", c.selector, err)
			continue
		}
		if g := codesOf(got); !slices.Equal(g, c.want) {
			t.Errorf("Match(%q) = %v, want %v", c.selector, g, c.want)
		}
	}
	for _, bad := range []string{"", "  ", "CL999", "CL0010", "E501", "CL-001", "empty_cache"} {
		got, err := Match(bad)
		if err == nil {
			t.Errorf("Match(%q) = %v, want an error", bad, codesOf(got))
			continue
		}
		if strings.TrimSpace(bad) != "" && !strings.Contains(err.Error(), bad) {
			t.Errorf("Match(%q) error %q does not name the selector", bad, err)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, r := range All() {
		for _, key := range []string{r.Code, strings.ToLower(r.Code), r.Name} {
			got, ok := Lookup(key)
			if !ok || got.Code != r.Code {
				t.Errorf("Lookup(%q) = %s, %v; want %s", key, got.Code, ok, r.Code)
			}
		}
	}
	for _, bad := range []string{"", "CL999", "CL00", "ALL", "empty-cache"} {
		if got, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) = %s, want no rule", bad, got.Code)
		}
	}
}
