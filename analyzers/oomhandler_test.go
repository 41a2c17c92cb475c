package analyzers_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
)

func TestOOMHandler(t *testing.T) {
	analyzertest.Run(t, filepath.Join("..", "testdata", "src", "oomhandler"), []*analysis.Analyzer{analyzers.OOMHandler}, nil)
}

// TestOOMHandlerFixes checks the CL006 fix the user gets with --unsafe-fixes: the broad
// type becomes torch.cuda.OutOfMemoryError spelt through the file's torch import, a bare
// except gains the type, and every diagnostic carries a label and a help line.
func TestOOMHandlerFixes(t *testing.T) {
	res := analyzertest.Run(t, filepath.Join("..", "testdata", "src", "oomhandler"), []*analysis.Analyzer{analyzers.OOMHandler}, nil)
	notes := res.Results[analyzers.OOMHandler].(*analyzers.Notes)
	fixed := map[string]string{} // "file:line" -> the except line after the fix
	for _, d := range res.Diagnostics {
		if d.Analyzer != analyzers.OOMHandler {
			continue
		}
		note, ok := notes.NoteFor(d.Pos, d.Category)
		if !ok || note.Label == "" || note.Help == "" || note.Snippet == "" {
			t.Errorf("%s %s: note = %+v, %v", res.Fset.Position(d.Pos), d.Category, note, ok)
		}
		if d.Category == "CL005" && len(d.SuggestedFixes) != 0 {
			t.Errorf("%s: CL005 must not offer a fix (moving the retry changes control flow)", res.Fset.Position(d.Pos))
		}
		if d.Category != "CL006" || len(d.SuggestedFixes) == 0 {
			continue
		}
		pos := res.Fset.Position(d.Pos)
		src, err := os.ReadFile(pos.Filename)
		if err != nil {
			t.Fatal(err)
		}
		out := string(src)
		edits := d.SuggestedFixes[0].TextEdits
		for i := len(edits) - 1; i >= 0; i-- {
			s, e := res.Fset.Position(edits[i].Pos).Offset, res.Fset.Position(edits[i].End).Offset
			out = out[:s] + string(edits[i].NewText) + out[e:]
		}
		line := strings.Split(out, "\n")[pos.Line-1]
		fixed[filepath.Base(pos.Filename)+":"+itoa(pos.Line)] = strings.TrimSpace(line)
	}
	want := map[string]string{
		"cl006_broad.py:11": "except torch.cuda.OutOfMemoryError:  # want \"catches more than OOM\"",
		"cl006_broad.py:20": "except torch.cuda.OutOfMemoryError:  # noqa: E722  # want \"catches more than OOM\"",
		"aliased.py:7":      "except (t.cuda.OutOfMemoryError, ValueError):",
		"aliased.py:15":     "except t.cuda.OutOfMemoryError as err:",
	}
	if got, ok := fixed["noimport.py:9"]; ok {
		t.Errorf("noimport.py:9: a fix that names torch without an import of it: %q", got)
	}
	for k, w := range want {
		got, ok := fixed[k]
		if !ok {
			t.Errorf("%s: no fix", k)
			continue
		}
		if !strings.HasPrefix(got, w) {
			t.Errorf("%s: fixed line = %q, want prefix %q", k, got, w)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
