// Package score compares cachelint's findings on real repositories with hand labels
// (testdata/realworld/README.md); cmd/ is the command that runs it.
package score

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Label is one hand-labelled call site (testdata/realworld/README.md).
type Label struct {
	Repo      string `json:"repo"`
	Commit    string `json:"commit"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Code      string `json:"code"`
	Kind      string `json:"kind"`
	Frequency string `json:"frequency"`
	Period    *int   `json:"period"`
	Pattern   string `json:"pattern"`
	Rule      string `json:"rule"`
	Reason    string `json:"reason"`
}

// Finding is the part of a `cachelint check --format json` finding the score reads.
type Finding struct {
	Code    string     `json:"code"`
	File    string     `json:"file"`
	Line    int        `json:"line"`
	Message string     `json:"message"`
	Related []Location `json:"related"`
}

// Unlabelled is a default-on finding at a line no label names: what a reviewer reads next
// to grow the labelled set (`score -unlabelled FILE`).
type Unlabelled struct {
	Repo    string `json:"repo"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Location is a file and line in cachelint's JSON.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// Call is the part of a `cachelint calls --format json` record the score reads.
type Call struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Role      string `json:"role"`
	Frequency string `json:"frequency"`
	Pattern   string `json:"pattern"`
}

// RepoResult is what cachelint said about one repository's tree.
type RepoResult struct {
	Findings []Finding
	Calls    []Call
	// HandlerEnd maps the site of each labelled `except` line to the last line of its
	// handler, read from the tree (HandlerEnd in cmd/); see handlerCall.
	HandlerEnd map[string]int
}

// IsHandlerLabel says whether a label names an `except` line rather than a call: the line a
// CL005 or CL006 finding sits on, which earlier builds reported and reviewers labelled.
func IsHandlerLabel(l Label) bool {
	c := strings.TrimSpace(l.Code)
	return c == "except:" || strings.HasPrefix(c, "except ") || strings.HasPrefix(c, "except(")
}

// handlerCall is the call record a label on an `except` line stands for, as findings on
// that line name the call in `related` (findingsBySite): the first call record inside the
// handler. dup is true when that call has a label of its own, which already judges it.
func handlerCall(l Label, res RepoResult, calls map[string]Call, labelled map[string]bool) (c Call, ok, dup bool) {
	end, known := res.HandlerEnd[siteKey(l.Path, l.Line)]
	if !known {
		return c, false, false
	}
	for line := l.Line + 1; line <= end; line++ {
		k := siteKey(l.Path, line)
		if c, ok := calls[k]; ok {
			return c, true, labelled[k]
		}
	}
	return c, false, false
}

var validRules = map[string]bool{"CL001": true, "CL002": true, "CL003": true, "CL004": true, "CL005": true, "CL006": true, "none": true}

// defaultOn are the rules a user sees without configuration.
var defaultOn = map[string]bool{"CL001": true, "CL002": true, "CL004": true, "CL005": true, "CL006": true}

// ReadLabels reads JSON lines and checks each label's fields.
func ReadLabels(r io.Reader) ([]Label, error) {
	var out []Label
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		var l Label
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if l.Repo == "" || l.Path == "" || l.Line < 1 || len(l.Commit) != 40 {
			return nil, fmt.Errorf("line %d: repo, 40-hex commit, path and line are required", n)
		}
		if !validRules[l.Rule] {
			return nil, fmt.Errorf("line %d: rule %q is not one of CL001..CL006 or none", n, l.Rule)
		}
		key := l.Repo + ":" + siteKey(l.Path, l.Line)
		if seen[key] {
			return nil, fmt.Errorf("line %d: %s is labelled twice", n, key)
		}
		seen[key] = true
		out = append(out, l)
	}
	return out, sc.Err()
}

func siteKey(file string, line int) string { return fmt.Sprintf("%s:%d", file, line) }

// findingsBySite indexes findings by the line they are about. CL005 and CL006 sit on the
// `except` line and name the cache-emptying call in `related`, so they count there too.
func findingsBySite(fs []Finding) map[string][]string {
	out := map[string][]string{}
	add := func(k, code string) {
		for _, c := range out[k] {
			if c == code {
				return
			}
		}
		out[k] = append(out[k], code)
	}
	for _, f := range fs {
		add(siteKey(f.File, f.Line), f.Code)
		if f.Code == "CL005" || f.Code == "CL006" {
			for _, r := range f.Related {
				add(siteKey(r.File, r.Line), f.Code)
			}
		}
	}
	return out
}

// predicted is the rule cachelint gave at a labelled site: the labelled rule when it is
// among the findings there, else the first, else "none".
func predicted(codes []string, want string) string {
	for _, c := range codes {
		if c == want {
			return c
		}
	}
	if len(codes) > 0 {
		return codes[0]
	}
	return "none"
}

// Count is a precision/recall tally.
type Count struct{ TP, FP, FN int }

func (c Count) precision() string { return ratio(c.TP, c.TP+c.FP) }
func (c Count) recall() string    { return ratio(c.TP, c.TP+c.FN) }

func ratio(a, b int) string {
	if b == 0 {
		return "   -"
	}
	return fmt.Sprintf("%3.0f%% (%d/%d)", 100*float64(a)/float64(b), a, b)
}

// Mismatch is a labelled site where cachelint and the label disagree.
type Mismatch struct {
	Label Label
	Got   string
	What  string
}

// Score is the whole comparison.
type Score struct {
	Sites, Repos      int
	Correct           int
	PerRule           map[string]*Count
	DefaultOn         Count // a default-on finding at a labelled site, right when its rule is the label's
	StepSites         int   // labelled per-step or periodic CL001/CL002 sites
	StepReported      int   // of which a default-on finding reports
	PerPattern        map[string]*Count
	Frequency         map[string]map[string]int // label frequency -> cachelint frequency
	Unlabelled        map[string]int            // findings at lines no label names, per rule
	UnlabelledList    []Unlabelled              // the default-on ones, in order
	Mismatches        []Mismatch
	PatternMismatches []Mismatch
	HandlerDuplicates int // labels on `except` lines left out of the pattern score (handlerCall)
}

// LineHolds says whether line (1-based) of src holds a label's code: its text up to the
// first "(", since labels shorten arguments (`sample_images(...)` for a call spelt
// `flux_train_utils.sample_images(` over several lines).
func LineHolds(src []byte, line int, code string) bool {
	lines := strings.Split(string(src), "\n")
	if line < 1 || line > len(lines) {
		return false
	}
	head, _, _ := strings.Cut(strings.TrimSpace(code), "(")
	return strings.Contains(lines[line-1], head)
}

// HandlerEnd is the last line (1-based) of the block that the line at `line` of src opens:
// the lines after it up to the next one, not blank and not a comment, indented no deeper
// than it. 0 when src has no such line.
func HandlerEnd(src []byte, line int) int {
	lines := strings.Split(string(src), "\n")
	if line < 1 || line > len(lines) {
		return 0
	}
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }
	own, end := indent(lines[line-1]), line
	for i := line; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if indent(lines[i]) <= own {
			break
		}
		end = i + 1
	}
	return end
}

// frequencyOf maps a `calls` record to the labels' frequency words.
func frequencyOf(c Call) string {
	if c.Role == "helper_body" {
		return "helper_body"
	}
	switch c.Frequency {
	case "per_iteration":
		return "per_step"
	case "per_epoch":
		return "per_outer"
	case "unknown":
		return "in_loop"
	}
	return c.Frequency
}

// Compute scores the labels against what cachelint said per repository. Repositories
// missing from results are an error: a score over part of the set would mislead.
func Compute(labels []Label, results map[string]RepoResult) (*Score, error) {
	s := &Score{
		PerRule:    map[string]*Count{},
		PerPattern: map[string]*Count{},
		Frequency:  map[string]map[string]int{},
		Unlabelled: map[string]int{},
	}
	byRepo := map[string][]Label{}
	for _, l := range labels {
		byRepo[l.Repo] = append(byRepo[l.Repo], l)
	}
	repos := make([]string, 0, len(byRepo))
	for r := range byRepo {
		repos = append(repos, r)
	}
	sort.Strings(repos)
	count := func(m map[string]*Count, k string) *Count {
		if m[k] == nil {
			m[k] = &Count{}
		}
		return m[k]
	}
	for _, repo := range repos {
		res, ok := results[repo]
		if !ok {
			return nil, fmt.Errorf("no cachelint result for %s", repo)
		}
		s.Repos++
		sites := findingsBySite(res.Findings)
		calls := map[string]Call{}
		for _, c := range res.Calls {
			k := siteKey(c.File, c.Line)
			if _, dup := calls[k]; !dup {
				calls[k] = c
			}
		}
		labelled := map[string]bool{}
		for _, l := range byRepo[repo] {
			labelled[siteKey(l.Path, l.Line)] = true
		}
		for _, l := range byRepo[repo] {
			s.Sites++
			k := siteKey(l.Path, l.Line)
			got := predicted(sites[k], l.Rule)
			if got == l.Rule {
				s.Correct++
				if got != "none" {
					count(s.PerRule, got).TP++
				}
			} else {
				if got != "none" {
					count(s.PerRule, got).FP++
				}
				if l.Rule != "none" {
					count(s.PerRule, l.Rule).FN++
				}
				s.Mismatches = append(s.Mismatches, Mismatch{Label: l, Got: got, What: "rule"})
			}
			if defaultOn[got] {
				if got == l.Rule {
					s.DefaultOn.TP++
				} else {
					s.DefaultOn.FP++
				}
			}
			if (l.Frequency == "per_step" || l.Frequency == "periodic") && (l.Rule == "CL001" || l.Rule == "CL002") {
				s.StepSites++
				if defaultOn[got] && got != "CL005" && got != "CL006" {
					s.StepReported++
				}
			}
			c, seen := calls[k]
			if !seen && IsHandlerLabel(l) {
				var dup bool
				if c, seen, dup = handlerCall(l, res, calls, labelled); dup {
					s.HandlerDuplicates++
					continue // its call's own label judges the pattern
				}
			}
			gotPattern, gotFreq := "none", "unseen"
			if seen {
				gotPattern, gotFreq = c.Pattern, frequencyOf(c)
			}
			if s.Frequency[l.Frequency] == nil {
				s.Frequency[l.Frequency] = map[string]int{}
			}
			s.Frequency[l.Frequency][gotFreq]++
			switch {
			case gotPattern == l.Pattern && l.Pattern != "none":
				count(s.PerPattern, l.Pattern).TP++
			case gotPattern != l.Pattern:
				if gotPattern != "none" {
					count(s.PerPattern, gotPattern).FP++
				}
				if l.Pattern != "none" {
					count(s.PerPattern, l.Pattern).FN++
				}
				s.PatternMismatches = append(s.PatternMismatches, Mismatch{Label: l, Got: gotPattern, What: "pattern"})
			}
		}
		for k, codes := range sites {
			if !labelled[k] {
				for _, c := range codes {
					s.Unlabelled[c]++
				}
			}
		}
		for _, f := range res.Findings {
			if !labelled[siteKey(f.File, f.Line)] && defaultOn[f.Code] {
				s.UnlabelledList = append(s.UnlabelledList, Unlabelled{Repo: repo, Path: f.File, Line: f.Line, Code: f.Code, Message: f.Message})
			}
		}
	}
	return s, nil
}

// Print writes the score as a table; verbose adds every mismatch.
func (s *Score) Print(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "%d labelled sites in %d repositories; rule right at %s\n\n", s.Sites, s.Repos, ratio(s.Correct, s.Sites))
	fmt.Fprintf(w, "%-8s %-16s %-16s %s\n", "rule", "precision", "recall", "findings at unlabelled lines")
	for _, r := range []string{"CL001", "CL002", "CL003", "CL004", "CL005", "CL006"} {
		c := s.PerRule[r]
		if c == nil {
			c = &Count{}
		}
		fmt.Fprintf(w, "%-8s %-16s %-16s %d\n", r, c.precision(), c.recall(), s.Unlabelled[r])
	}
	fmt.Fprintf(w, "\ndefault-on findings (CL001 CL002 CL004 CL005 CL006) right: %s\n", s.DefaultOn.precision())
	fmt.Fprintf(w, "per-step and periodic sites reported: %s\n\n", ratio(s.StepReported, s.StepSites))
	fmt.Fprintf(w, "%-20s %-16s %s\n", "pattern", "precision", "recall")
	pats := make([]string, 0, len(s.PerPattern))
	for p := range s.PerPattern {
		pats = append(pats, p)
	}
	sort.Strings(pats)
	for _, p := range pats {
		fmt.Fprintf(w, "%-20s %-16s %s\n", p, s.PerPattern[p].precision(), s.PerPattern[p].recall())
	}
	if s.HandlerDuplicates > 0 {
		fmt.Fprintf(w, "(%d labels on `except` lines left out: the call in the handler has a label of its own)\n", s.HandlerDuplicates)
	}
	fmt.Fprintf(w, "\nfrequency (label -> cachelint calls)\n")
	freqs := make([]string, 0, len(s.Frequency))
	for f := range s.Frequency {
		freqs = append(freqs, f)
	}
	sort.Strings(freqs)
	for _, f := range freqs {
		got := make([]string, 0, len(s.Frequency[f]))
		for g, n := range s.Frequency[f] {
			got = append(got, fmt.Sprintf("%s %d", g, n))
		}
		sort.Strings(got)
		fmt.Fprintf(w, "  %-12s %s\n", f, strings.Join(got, ", "))
	}
	if !verbose {
		return
	}
	fmt.Fprintf(w, "\nmismatches (label -> cachelint)\n")
	for _, m := range append(append([]Mismatch(nil), s.Mismatches...), s.PatternMismatches...) {
		want := m.Label.Rule
		if m.What == "pattern" {
			want = m.Label.Pattern
		}
		fmt.Fprintf(w, "  %s %s %s:%d %s -> %s  [%s/%s] %s\n", m.What, m.Label.Repo, m.Label.Path, m.Label.Line, want, m.Got, m.Label.Frequency, m.Label.Pattern, m.Label.Reason)
	}
}

// ReadLabelsFile reads a labels file.
func ReadLabelsFile(path string) ([]Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	labels, err := ReadLabels(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return labels, nil
}
