// Package rules is cachelint's rule registry: every rule's code, name, severity and
// default, and its documentation (rules/<CODE>.md, embedded).
package rules

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

// Severity is how serious a finding is; it lives here, not in diagnostics.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Rule describes one check.
type Rule struct {
	Code     string
	Name     string
	Severity Severity
	// Default reports whether the rule runs without --select/--extend-select.
	Default bool
	// Summary is the one-line description shown by `cachelint rules`.
	Summary string
	// Fix is the applicability of the rule's automatic fix: FixNone when it has none.
	Fix Applicability
	// Cost says how often the reported call runs, for the `= cost:` line of a probe
	// profile: CostNone for rules that are not about a call's cost.
	Cost CostBasis
}

// CostBasis is how often a reported call runs: what one probe-measured call is multiplied by.
type CostBasis string

const (
	CostNone     CostBasis = ""
	CostPerStep  CostBasis = "step"  // every step
	CostPerCall  CostBasis = "call"  // every N steps (the finding's period) or unknown
	CostPerEpoch CostBasis = "epoch" // once per epoch
)

// Applicability says whether a rule's fix may be applied without review, as ruff's does:
// a safe fix keeps what the program does, an unsafe one may change it (--unsafe-fixes).
type Applicability string

const (
	FixNone   Applicability = ""
	FixSafe   Applicability = "safe"
	FixUnsafe Applicability = "unsafe"
)

// The rule codes.
const (
	CL001 = "CL001"
	CL002 = "CL002"
	CL003 = "CL003"
	CL004 = "CL004"
	CL005 = "CL005"
	CL006 = "CL006"
	CL010 = "CL010"
	CL011 = "CL011"
	CL012 = "CL012"
	CL900 = "CL900"
)

// URL is where the rule's documentation lives on the web.
func (r Rule) URL() string {
	return "https://github.com/cachelint/cachelint/blob/main/rules/" + r.Code + ".md"
}

// Doc returns the rule's Markdown documentation.
func (r Rule) Doc() string {
	b, err := docs.ReadFile(r.Code + ".md")
	if err != nil {
		return ""
	}
	return string(b)
}

//go:embed *.md
var docs embed.FS

// registry is every rule. CL001's fix removes a call the program may rely on for memory
// (SPEC §7); CL006's narrows an except clause and lets other errors through: both unsafe.
var registry = []Rule{
	{CL001, "empty-cache-per-step", Error, true, "cache emptied on every iteration of a step loop", FixUnsafe, CostPerStep},
	{CL002, "empty-cache-periodic", Warning, true, "cache emptied every N steps of a step loop", FixNone, CostPerCall},
	{CL003, "empty-cache-per-epoch", Info, false, "cache emptied once per epoch", FixNone, CostPerEpoch},
	{CL004, "empty-cache-in-loop", Warning, true, "cache emptied inside a loop of unknown kind", FixNone, CostPerCall},
	{CL005, "oom-retry-inside-except", Warning, true, "OOM retry re-runs the failed work inside the except block", FixNone, CostNone},
	{CL006, "oom-handler-too-broad", Warning, true, "cache-clearing retry handler catches more than OOM", FixUnsafe, CostNone},
	{CL010, "alloc-conf-after-cuda-init", Error, true, "allocator config set after CUDA was initialised", FixNone, CostNone},
	{CL011, "alloc-conf-invalid", Error, true, "allocator config string PyTorch rejects or misreads", FixNone, CostNone},
	{CL012, "alloc-conf-no-effect", Warning, true, "allocator setting that has no effect as written", FixNone, CostNone},
	{CL900, "parse-error", Error, false, "file could not be parsed (shown with --show-parse-errors)", FixNone, CostNone},
}

// All returns every rule, ordered by code.
func All() []Rule {
	out := append([]Rule(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// Lookup finds a rule by code (case-insensitive) or by name.
func Lookup(codeOrName string) (Rule, bool) {
	for _, r := range registry {
		if strings.EqualFold(r.Code, codeOrName) || r.Name == codeOrName {
			return r, true
		}
	}
	return Rule{}, false
}

// Match expands a selector (a code like "CL001", a prefix like "CL00" or "CL", or "ALL")
// into the rules it names. An unknown selector is an error.
func Match(selector string) ([]Rule, error) {
	s := strings.ToUpper(strings.TrimSpace(selector))
	if s == "" {
		return nil, fmt.Errorf("empty rule selector")
	}
	var out []Rule
	for _, r := range registry {
		if s == "ALL" || strings.HasPrefix(r.Code, s) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		if r, ok := Lookup(selector); ok {
			return []Rule{r}, nil
		}
		return nil, fmt.Errorf("unknown rule selector %q", selector)
	}
	return out, nil
}
