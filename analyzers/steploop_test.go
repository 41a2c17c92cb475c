package analyzers_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
)

func TestStepLoop(t *testing.T) {
	for _, dir := range []string{"direct", "frequency", "hooks", "patterns", "helpers", "helpers2"} {
		t.Run(dir, func(t *testing.T) {
			analyzertest.Run(t, filepath.Join("..", "testdata", "src", dir), []*analysis.Analyzer{analyzers.StepLoop}, nil)
		})
	}
}

func TestSuiteValidates(t *testing.T) {
	if err := analysis.Validate(analyzers.All); err != nil {
		t.Fatal(err)
	}
}

// TestHelperRecords checks the records `cachelint calls` prints for a helper: its own call
// is a helper_body that runs once per call, and each call site carries the chain.
func TestHelperRecords(t *testing.T) {
	res := analyzertest.Run(t, filepath.Join("..", "testdata", "src", "helpers"), []*analysis.Analyzer{analyzers.StepLoop}, nil)
	cls := res.Results[analyzers.Classify].(*analyzers.Classification)
	var body, viaCleanup *analyzers.Record
	for _, r := range cls.Records {
		if filepath.Base(r.File.Path) == "memory.py" && r.Call.Node.Line() == 8 {
			body = r
		}
		if len(r.Via) == 3 && r.Via[0].Callee.Name == "_cleanup" {
			viaCleanup = r
		}
	}
	if body == nil || body.Role != "helper_body" || body.Frequency != analyzers.Once || body.Rule != "" {
		t.Fatalf("helper body record = %+v", body)
	}
	if viaCleanup == nil || viaCleanup.Frequency != analyzers.PerIteration || viaCleanup.Rule != "CL001" || viaCleanup.Loop == nil || viaCleanup.Loop.Node.Line() != 27 {
		t.Fatalf("_cleanup() record = %+v", viaCleanup)
	}
	if got := analyzers.Chain(viaCleanup); !strings.HasSuffix(got, "memory.py:8") || !strings.HasPrefix(got, "_cleanup() -> cleanup() -> free_gpu_memory() -> torch.cuda.empty_cache()") {
		t.Errorf("chain = %q", got)
	}
	// setup() calls the helper once at start-up: a record with frequency once and no rule.
	found := false
	for _, r := range cls.Records {
		if r.Call.Function != nil && r.Call.Function.Name == "setup" {
			found = true
			if r.Frequency != analyzers.Once || r.Rule != "" {
				t.Errorf("setup() record = %s/%s", r.Frequency, r.Rule)
			}
		}
	}
	if !found {
		t.Error("no record for the start-up call of the helper")
	}
}

// TestUserHints: `step-loop-names` and `extra-helpers` from [tool.cachelint] reach the
// analyzers as flags.
func TestUserHints(t *testing.T) {
	analyzertest.Run(t, filepath.Join("..", "testdata", "src", "hints"), []*analysis.Analyzer{analyzers.StepLoop}, map[string]map[string]string{
		"cachecalls": {"extra-helpers": "mylib.mem.flush_gpu"},
		"classify":   {"step-loop-names": "on_tick,stream"},
	})
	// The flags are package state (as in x/tools): reset them for the other tests.
	for a, f := range map[*analysis.Analyzer]string{analyzers.CacheCalls: "extra-helpers", analyzers.Classify: "step-loop-names"} {
		if err := a.Flags.Set(f, ""); err != nil {
			t.Fatal(err)
		}
	}
}
