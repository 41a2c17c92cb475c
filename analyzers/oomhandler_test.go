package analyzers_test

import (
	"path/filepath"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
	"github.com/cachelint/cachelint/rules"
)

// TestOOMHandler checks CL005/CL006 and the CL006 fix the user gets with --unsafe-fixes
// (the *.py.golden files): the broad type becomes torch.cuda.OutOfMemoryError spelt
// through the file's torch import, a bare except gains the type, and a file without a
// torch import gets no fix.
func TestOOMHandler(t *testing.T) {
	res := analyzertest.RunWithFixes(t, filepath.Join("..", "testdata", "src", "oomhandler"), analyzers.OOMHandler)
	for _, f := range res.Report.Findings {
		if f.Label == "" || f.Help == "" || f.Snippet == "" {
			t.Errorf("%s:%d %s: label %q, help %q, snippet %q", f.File, f.Line, f.Code, f.Label, f.Help, f.Snippet)
		}
		if f.Code == rules.CL005 && f.Fix != nil {
			t.Errorf("%s:%d: CL005 must not offer a fix (moving the retry changes control flow)", f.File, f.Line)
		}
	}
}
