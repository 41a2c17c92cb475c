package analyzertest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
)

// fakeT records what Run reports instead of failing.
type fakeT struct{ errors, fatals []string }

func (*fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
}

// TestSelf shows that the harness fails when it should, and only then: a fixture with one
// finding nobody expected and one expectation nobody met gives exactly those two errors, a
// matching fixture none, and a fix whose result differs from its golden file one.
func TestSelf(t *testing.T) {
	cases := []struct {
		dir   string
		fixes bool
		want  []string // regexps, one per error, in order
	}{
		{"mixed", false, []string{
			`^testdata/mixed/train\.py:9: unexpected diagnostic: CL001 `,
			`^testdata/mixed/train\.py:13: no diagnostic matching "CL001"$`,
		}},
		{"clean", false, nil},
		{"clean", true, []string{`^testdata/clean/train\.py: fixes offered, but no golden file`}},
		{"badgolden", true, []string{`^testdata/badgolden/train\.py: fixed text differs from train\.py\.golden`}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/fixes=%v", c.dir, c.fixes), func(t *testing.T) {
			ft := &fakeT{}
			dir := filepath.Join("testdata", c.dir)
			if c.fixes {
				RunWithFixes(ft, dir, analyzers.StepLoop)
			} else {
				Run(ft, dir, analyzers.StepLoop)
			}
			if len(ft.fatals) > 0 {
				t.Fatalf("fatal: %v", ft.fatals)
			}
			if len(ft.errors) != len(c.want) {
				t.Fatalf("got %d errors, want %d:\n%q", len(ft.errors), len(c.want), ft.errors)
			}
			for i, re := range c.want {
				if !regexp.MustCompile(re).MatchString(ft.errors[i]) {
					t.Errorf("error %d = %q, want it to match %s", i, ft.errors[i], re)
				}
			}
		})
	}
}
