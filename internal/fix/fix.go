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
	"time"

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
// run leaves either the old file or the new one, never a truncated mix. A symlink is
// written through: its target gets the new contents and the link stays a link. A file with
// more than one hard link is refused (*HardLinkError): the rename would leave the other
// names with the old contents, and writing in place could be cut off half-way. Temporary
// files an interrupted run left beside the file (older than a minute) are removed first.
func WriteAtomic(path string, data []byte) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if n := linkCount(fi); n > 1 {
		return &HardLinkError{Path: path, Links: n}
	}
	dir, prefix := filepath.Dir(target), tempPrefix(target)
	removeStale(dir, prefix, time.Now().Add(-staleAfter))
	tmp, err := os.CreateTemp(dir, prefix+"*")
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
	if err := os.Rename(name, target); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// HardLinkError is a file WriteAtomic will not replace: other names share its contents.
type HardLinkError struct {
	Path  string
	Links int
}

func (e *HardLinkError) Error() string {
	return fmt.Sprintf("%s has %d hard links: replacing it would leave the other names unfixed (fix it by hand, or see the change with --diff)", e.Path, e.Links)
}

// staleAfter is how old a temporary file must be to be taken for one an interrupted run
// left behind, not one a run going on now is writing.
const staleAfter = time.Minute

// tempPrefix is the name of a temporary file for path, before its random part.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".cachelint-" }

// removeStale removes the temporary files named prefix+digits in dir last changed before
// cutoff. What cannot be removed stays; the write goes on.
func removeStale(dir, prefix string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
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
