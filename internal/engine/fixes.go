package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/cachelint/cachelint/internal/baseline"
	"github.com/cachelint/cachelint/internal/fix"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/suppress"
	"github.com/cachelint/cachelint/rules"
)

// WriteBaseline records the run's findings in a baseline file at path, paths relative to
// the project root.
func (r *Result) WriteBaseline(path string) error {
	var buf bytes.Buffer
	if err := baseline.Write(&buf, r.Report.Findings, r.RootRel); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	if err := writeNew(path, buf.Bytes()); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

// AddNoqa inserts `# noqa: CODE` for every finding, keeping existing comments, and returns
// how many directives it added. Notebooks are left alone.
func (r *Result) AddNoqa() (int, error) {
	byFile := map[string]map[int][]string{}
	for _, f := range r.Report.Findings {
		if f.Cell > 0 {
			continue // notebook JSON is not rewritten
		}
		if byFile[f.File] == nil {
			byFile[f.File] = map[int][]string{}
		}
		d := suppress.Parse(r.source(f.File))
		line := d.NoqaLine(programLine(&f))
		byFile[f.File][line] = append(byFile[f.File][line], f.Code)
	}
	total := 0
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		src := r.source(file)
		out, n := suppress.AddNoqa(src, byFile[file])
		if n == 0 {
			continue
		}
		if err := fix.WriteAtomic(file, out); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// FixOptions say which fixes to apply and how.
type FixOptions struct {
	// Unsafe includes the fixes of rules whose fix may change what the program does.
	Unsafe bool
	// Diff writes the fixes to Diff as a unified diff instead of changing any file.
	Diff io.Writer
}

// FixSummary is what applying the fixes did.
type FixSummary struct {
	// Fixed findings, in Files files; Remaining findings no fix removed.
	Fixed, Files, Remaining int
	// Skipped are files whose fixed text would not parse, left unchanged.
	Skipped []string
	// Stdin is the fixed text of a file read from standard input (its text as read when
	// nothing was fixed), which is never written to disk: ruff prints it to stdout.
	Stdin []byte
	// Refused say why a file was left unchanged that --fix will not write (one with other
	// hard links).
	Refused []string
}

// ApplyFixes applies (or, with opts.Diff, prints) the fixes of the run's findings. A file
// is changed only when its fixed text parses as well as before.
func (r *Result) ApplyFixes(opts FixOptions) (FixSummary, error) {
	var sum FixSummary
	byFile := map[string][]*report.Fix{}
	for i := range r.Report.Findings {
		f := &r.Report.Findings[i]
		if f.Fix == nil || (f.Fix.Applicability == string(rules.FixUnsafe) && !opts.Unsafe) {
			sum.Remaining++
			continue
		}
		byFile[f.File] = append(byFile[f.File], f.Fix)
	}
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		pr := r.projectOf(file)
		src := pr.source(file)
		out, n := fix.Apply(src, byFile[file])
		sum.Remaining += len(byFile[file]) - n
		if n == 0 || bytes.Equal(out, src) {
			continue
		}
		// A fix must not break the file: keep it only if it parses as well as before.
		// The run parsed the file already: only the fixed text is parsed again.
		before := 0
		if pr.a != nil { // nil: a tree of repositories' own table, which reports nothing
			before = pr.a.SyntaxCount[file]
		}
		after, err := pr.an.SyntaxErrors(context.Background(), file, out)
		if err != nil || after > before {
			sum.Skipped = append(sum.Skipped, file)
			sum.Remaining += n
			continue
		}
		if opts.Diff != nil {
			d, err := fix.Diff(file, src, out)
			if err != nil {
				return sum, err
			}
			if _, err := io.WriteString(opts.Diff, d); err != nil {
				return sum, err
			}
		} else if pr.stdin != nil && file == pr.stdinPath {
			sum.Stdin = out
		} else if err := fix.WriteAtomic(file, out); err != nil {
			if hl := (*fix.HardLinkError)(nil); errors.As(err, &hl) {
				sum.Refused = append(sum.Refused, hl.Error())
				sum.Remaining += n
				continue
			}
			return sum, err
		}
		sum.Files++
		sum.Fixed += n
	}
	if stdin := r.p.stdin; stdin != nil && sum.Stdin == nil {
		sum.Stdin = stdin.Source
	}
	return sum, nil
}

// writeNew writes a file the run creates (baseline), atomically when it already exists.
func writeNew(path string, data []byte) error {
	if err := fix.WriteAtomic(path, data); err == nil {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}
