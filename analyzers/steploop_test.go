package analyzers_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
)

func TestStepLoop(t *testing.T) {
	for _, dir := range []string{"direct", "frequency", "hooks", "patterns"} {
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
