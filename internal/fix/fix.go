// Package fix applies suggested fixes to files: safely (atomic temp-file-and-rename writes
// that keep the file's mode), or as a unified diff that changes nothing.
package fix

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/cachelint/cachelint/internal/report"
)

// Apply returns src with the edits applied. Overlapping edits are skipped (the first, by
// position, wins), as ruff does; the second return value counts the applied fixes.
func Apply(src []byte, fixes []*report.Fix) ([]byte, int) {
	type edit struct {
		report.Edit
		fix int
	}
	var edits []edit
	for i, f := range fixes {
		for _, e := range f.Edits {
			edits = append(edits, edit{e, i})
		}
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	// A fix applies whole or not at all.
	bad := map[int]bool{}
	last := -1
	for _, e := range edits {
		if e.Start < last || e.Start > e.End || e.End > len(src) {
			bad[e.fix] = true
			continue
		}
		last = e.End
	}
	var out bytes.Buffer
	pos := 0
	applied := map[int]bool{}
	for _, e := range edits {
		if bad[e.fix] || e.Start < pos {
			continue
		}
		out.Write(src[pos:e.Start])
		out.WriteString(e.NewText)
		pos = e.End
		applied[e.fix] = true
	}
	out.Write(src[pos:])
	return out.Bytes(), len(applied)
}

// Diff renders a unified diff of one file's change, labelled like ruff's --diff.
func Diff(path string, before, after []byte) (string, error) {
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: splitLines(before), B: splitLines(after),
		FromFile: path, ToFile: path, Context: 3,
	})
}

// WriteAtomic replaces path's contents: it writes a temporary file in the same directory,
// copies the original's mode, syncs, and renames it over the original, so an interrupted
// run leaves either the old file or the new one, never a truncated mix.
func WriteAtomic(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".cachelint-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	cleanup := func() { _ = os.Remove(name) }
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// splitLines splits after each newline without inventing an empty last line (difflib's
// SplitLines does, which shows as a phantom context line in every hunk at the end of a file).
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}
