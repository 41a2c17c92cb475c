// Package sidebyside compares cachelint's call records for projects checked one by one with
// those of one run over the same projects side by side in one tree, as issue 14's benchmark
// lays them out; cmd/ is the command that runs it. Projects that do not import one another
// should keep their records; a difference is a resolution that depends on what else is in
// the tree (two modules of one name, a call resolved into another project), or calls into a
// sibling project's code that the combined run follows.
package sidebyside

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Record is the part of a `cachelint calls --format json` record the comparison reads.
type Record struct {
	File      string  `json:"file"`
	Line      int     `json:"line"`
	Column    int     `json:"column"`
	Frequency string  `json:"frequency"`
	Pattern   string  `json:"pattern"`
	Role      string  `json:"role"`
	Rule      *string `json:"rule"`
}

// key says where a record is, under the combined tree's root, and what cachelint made of
// it. The callee and the chain are left out: their qualified names start at the root.
func key(prefix string, r Record) string {
	rule := "-"
	if r.Rule != nil {
		rule = *r.Rule
	}
	return fmt.Sprintf("%s%s:%d:%d %s %s %s %s", prefix, r.File, r.Line, r.Column, r.Role, r.Frequency, r.Pattern, rule)
}

// Diff is what one combined run says differently from the single runs: Missing are the
// single runs' records the combined run lacks, Extra the combined run's records no single
// run has, each as "project/path:line:column role frequency pattern rule", sorted.
type Diff struct {
	Missing, Extra []string
}

// Compare diffs the records of each project's own run (by the project's folder name in
// the combined tree) with those of the combined run.
func Compare(single map[string][]Record, combined []Record) Diff {
	want := map[string]bool{}
	for project, recs := range single {
		for _, r := range recs {
			want[key(project+"/", r)] = true
		}
	}
	got := map[string]bool{}
	for _, r := range combined {
		got[key("", r)] = true
	}
	var d Diff
	for k := range want {
		if !got[k] {
			d.Missing = append(d.Missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			d.Extra = append(d.Extra, k)
		}
	}
	slices.Sort(d.Missing)
	slices.Sort(d.Extra)
	return d
}

// PerProject counts keys by their project (the first component of the path).
func PerProject(keys []string) string {
	n := map[string]int{}
	for _, k := range keys {
		project, _, _ := strings.Cut(k, "/")
		n[project]++
	}
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%s %d", p, n[p]))
	}
	return strings.Join(parts, ", ")
}
