package output

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

// GitHub's runner reads a workflow command per line and ends its properties at the first
// "::"; escaping line breaks everywhere and ':' ',' in properties is what keeps a file name
// or message from starting a second command (actions/toolkit's command.ts escapes the
// same characters).
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

func githubCommand(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "error"
	case rules.Info:
		return "notice"
	}
	return "warning"
}

func printGitHub(b *bytes.Buffer, fs []report.Finding, _ *report.Report, opts Options) error {
	for _, f := range fs {
		props := []string{"file=" + escapeProperty(githubPath(f.File, opts))}
		add := func(name string, v int) {
			if v > 0 {
				props = append(props, name+"="+strconv.Itoa(v))
			}
		}
		add("line", f.Line)
		add("col", f.Column)
		add("endLine", f.EndLine)
		add("endColumn", f.EndColumn)
		props = append(props, "title="+escapeProperty("cachelint "+f.Code))
		fmt.Fprintf(b, "::%s %s::%s\n", githubCommand(f.Severity), strings.Join(props, ","), escapeData(f.Message))
	}
	if opts.StepSummary != nil {
		if _, err := opts.StepSummary.Write(stepSummary(fs, opts)); err != nil {
			return fmt.Errorf("write step summary: %w", err)
		}
	}
	return nil
}

// githubPath is file as the runner reads an annotation's path: relative to
// opts.Workspace when the file is inside it. A relative path is relative to opts.Cwd; one
// outside the workspace is written absolute, which the runner keeps as it is.
func githubPath(file string, opts Options) string {
	if opts.Workspace == "" {
		return slashPath(file)
	}
	abs := file
	if !filepath.IsAbs(abs) {
		if opts.Cwd == "" {
			return slashPath(file)
		}
		abs = filepath.Join(opts.Cwd, file)
	}
	rel, err := filepath.Rel(opts.Workspace, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return slashPath(abs)
	}
	return filepath.ToSlash(rel)
}

// stepSummary renders the Markdown appended to $GITHUB_STEP_SUMMARY.
func stepSummary(fs []report.Finding, opts Options) []byte {
	var b bytes.Buffer
	b.WriteString("## cachelint\n\n")
	if len(fs) == 0 {
		b.WriteString("All checks passed!\n\n")
		return b.Bytes()
	}
	b.WriteString(foundLine(fs) + "\n\n")
	b.WriteString("| Code | Location | Message |\n| --- | --- | --- |\n")
	for _, f := range fs {
		loc := githubPath(f.File, opts) + ":"
		if f.Cell > 0 {
			loc += "cell " + strconv.Itoa(f.Cell) + ":line " + strconv.Itoa(f.CellLine)
		} else {
			loc += strconv.Itoa(f.Line)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", markdownCell(f.Code), markdownCell(loc), markdownCell(f.Message))
	}
	b.WriteByte('\n')
	return b.Bytes()
}

var markdownCellEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

// markdownCell keeps text inside one table cell: a raw '|' would end the cell and a line
// break would end the row. Backslashes are doubled too, because GFM reads "\\|" as an
// escaped backslash followed by a cell-ending pipe.
func markdownCell(s string) string {
	return markdownCellEscaper.Replace(s)
}
