package output

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

// gitlabIssue is one GitLab Code Quality entry (the Code Climate subset GitLab reads).
type gitlabIssue struct {
	Description string         `json:"description"`
	CheckName   string         `json:"check_name"`
	Fingerprint string         `json:"fingerprint"`
	Severity    string         `json:"severity"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
	End   int `json:"end,omitempty"`
}

// gitlabSeverity maps onto GitLab's info/minor/major/critical/blocker; critical and
// blocker are left for security findings, which cachelint does not make.
func gitlabSeverity(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "major"
	case rules.Warning:
		return "minor"
	}
	return "info"
}

func printGitLab(b *bytes.Buffer, fs []report.Finding, _ *report.Report, opts Options) error {
	prints := fingerprints(fs, opts)
	out := make([]gitlabIssue, 0, len(fs))
	for i, f := range fs {
		lines := gitlabLines{Begin: max(f.Line, 1)}
		if f.EndLine > lines.Begin {
			lines.End = f.EndLine
		}
		out = append(out, gitlabIssue{
			Description: f.Code + ": " + f.Message,
			CheckName:   f.Code,
			Fingerprint: prints[i],
			Severity:    gitlabSeverity(f.Severity),
			Location:    gitlabLocation{Path: gitlabPath(f.File, opts.Cwd), Lines: lines},
		})
	}
	if err := encoder(b, true).Encode(out); err != nil {
		return fmt.Errorf("encode code quality report: %w", err)
	}
	return nil
}

// gitlabPath gives the path relative to the project directory, which is what GitLab
// matches against the merge request's diff.
func gitlabPath(file, cwd string) string {
	if cwd != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(cwd, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return slashPath(file)
}
