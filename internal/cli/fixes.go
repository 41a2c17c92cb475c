package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/cachelint/cachelint/internal/baseline"
	"github.com/cachelint/cachelint/internal/fix"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/suppress"
	"github.com/cachelint/cachelint/pyparse"
)

func (pr *project) writeBaseline(path string, rep *report.Report, root string, stderr io.Writer) error {
	var buf bytes.Buffer
	if err := baseline.Write(&buf, rep.Findings, root); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("write baseline: %w", err)}
	}
	if err := writeNew(path, buf.Bytes()); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("write baseline: %w", err)}
	}
	fmt.Fprintf(stderr, "cachelint: recorded %d finding(s) in %s\n", len(rep.Findings), path)
	return nil
}

// addNoqa inserts `# noqa: CODE` for every current finding, keeping existing comments.
func (pr *project) addNoqa(rep *report.Report, stderr io.Writer) error {
	byFile := map[string]map[int][]string{}
	for _, f := range rep.Findings {
		if f.Cell > 0 {
			continue // notebook JSON is not rewritten
		}
		if byFile[f.File] == nil {
			byFile[f.File] = map[int][]string{}
		}
		d := suppress.Parse(pr.source(f.File))
		line := d.NoqaLine(programLine(&f))
		byFile[f.File][line] = append(byFile[f.File][line], f.Code)
	}
	total := 0
	for _, file := range sortedKeys(byFile) {
		src := pr.source(file)
		out, n := suppress.AddNoqa(src, byFile[file])
		if n == 0 {
			continue
		}
		if err := fix.WriteAtomic(file, out); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		total += n
	}
	fmt.Fprintf(stderr, "cachelint: added %d noqa directive(s)\n", total)
	return nil
}

// applyFixes applies (or, with diff, prints) the fixes of the findings. It returns how many
// findings no fix removed, and whether any file changed (or would).
func (pr *project) applyFixes(rep *report.Report, diff, unsafe bool, stdout, stderr io.Writer) (int, bool, error) {
	byFile := map[string][]*report.Fix{}
	remaining := 0
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if f.Fix == nil || (f.Fix.Applicability == "unsafe" && !unsafe) {
			remaining++
			continue
		}
		byFile[f.File] = append(byFile[f.File], f.Fix)
	}
	parser, err := pyparse.NewParser()
	if err != nil {
		return 0, false, err
	}
	defer parser.Close()
	fixedFiles, fixed := 0, 0
	for _, file := range sortedKeys(byFile) {
		src := pr.source(file)
		out, n := fix.Apply(src, byFile[file])
		remaining += len(byFile[file]) - n
		if n == 0 || bytes.Equal(out, src) {
			continue
		}
		// A fix must not break the file: keep it only if it parses as well as before.
		before, err1 := parser.Parse(context.Background(), file, src)
		after, err2 := parser.Parse(context.Background(), file, out)
		if err1 != nil || err2 != nil || len(after.Errors) > len(before.Errors) {
			fmt.Fprintf(stderr, "cachelint: warning: not fixing %s: the fixed code would not parse\n", file)
			remaining += n
			continue
		}
		if diff {
			d, err := fix.Diff(file, src, out)
			if err != nil {
				return 0, false, err
			}
			if _, err := io.WriteString(stdout, d); err != nil {
				return 0, false, err
			}
		} else if err := fix.WriteAtomic(file, out); err != nil {
			return 0, false, &exitError{code: exitUsage, err: err}
		}
		fixedFiles++
		fixed += n
	}
	verb := "fixed"
	if diff {
		verb = "would fix"
	}
	fmt.Fprintf(stderr, "cachelint: %s %d finding(s) in %d file(s), %d remaining\n", verb, fixed, fixedFiles, remaining)
	return remaining, fixedFiles > 0, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// writeNew writes a file the run creates (baseline), atomically when it already exists.
func writeNew(path string, data []byte) error {
	if err := fix.WriteAtomic(path, data); err == nil {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}
