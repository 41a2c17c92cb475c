package analyzers_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
	"github.com/cachelint/cachelint/internal/report"
)

// effectsChain: run() reaches a pipeline call four calls deep, c() two deep; whether a loop
// runs a whole pipeline per iteration is followed three calls deep.
const effectsChain = `import torch


def d(pipe):
    pipe("a prompt")


def c(pipe):
    d(pipe)


def b(pipe):
    c(pipe)


def run(pipe):
    b(pipe)
`

var effectsLoops = map[string]string{
	"sweep": `

def sweep(pipe, variants):
    for tag in variants:
        run(pipe)
        torch.cuda.empty_cache()
`,
	"compare": `

def compare(pipe, variants):
    for tag in variants:
        c(pipe)
        torch.cuda.empty_cache()
`,
}

// TestEffectsIndependentOfOrder: a call's classification does not depend on which other
// call was classified first. The answer for c() asked two calls deep (from compare's loop)
// and three deep (from sweep's, through run() and b()) differ; kept per function whatever
// the depth, the first one asked decided both loops (compare's loop was a step loop, CL001,
// when sweep came first in the file).
func TestEffectsIndependentOfOrder(t *testing.T) {
	records := func(first, second string) map[string]report.CallRecord {
		dir := t.TempDir()
		src := effectsChain + effectsLoops[first] + effectsLoops[second]
		if err := os.WriteFile(filepath.Join(dir, "probe.py"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(src, "\n")
		out := map[string]report.CallRecord{}
		for _, c := range analyzertest.Analyse(t, dir, analyzers.StepLoop).Calls {
			for i := c.Line - 1; i >= 0; i-- {
				if def, ok := strings.CutPrefix(lines[i], "def "); ok {
					name, _, _ := strings.Cut(def, "(")
					out[name] = c
					break
				}
			}
		}
		return out
	}
	ab, ba := records("sweep", "compare"), records("compare", "sweep")
	lines := regexp.MustCompile(`line \d+`)
	for _, fn := range []string{"sweep", "compare"} {
		x, y := ab[fn], ba[fn]
		if x.Frequency == "" || x.Frequency != y.Frequency || x.Pattern != y.Pattern ||
			lines.ReplaceAllString(x.Reason, "line N") != lines.ReplaceAllString(y.Reason, "line N") {
			t.Errorf("%s's call: %s/%s %q with sweep first, %s/%s %q with compare first", fn,
				x.Frequency, x.Pattern, x.Reason, y.Frequency, y.Pattern, y.Reason)
		}
	}
	if got := ab["compare"].Frequency; got != "per_epoch" {
		t.Errorf("compare's call: frequency %s, want per_epoch (its loop runs a pipeline through c() and d())", got)
	}
}
