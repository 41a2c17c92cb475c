package output

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cachelint/cachelint/internal/report"
)

// jsonFinding is the stable `check --format json` record (SPEC §6). Field order is the
// order users read; fix and cost are null when absent, related is [] when empty.
type jsonFinding struct {
	Code      string `json:"code"`
	Name      string `json:"name"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	report.CellJSON
	URL     *string       `json:"url"`
	Fix     *jsonFix      `json:"fix"`
	Related []jsonRelated `json:"related"`
	Cost    *string       `json:"cost"`
}

type jsonFix struct {
	Applicability string     `json:"applicability"`
	Message       string     `json:"message"`
	Edits         []jsonEdit `json:"edits"`
}

type jsonEdit struct {
	Content   string `json:"content"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
}

type jsonRelated struct {
	File string `json:"file"`
	Line int    `json:"line"`
	report.CellJSON
	Message string `json:"message"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toJSON(f report.Finding) jsonFinding {
	out := jsonFinding{
		Code:      f.Code,
		Name:      f.Name,
		Severity:  string(f.Severity),
		Message:   f.Message,
		File:      slashPath(f.File),
		Line:      f.Line,
		Column:    f.Column,
		EndLine:   f.EndLine,
		EndColumn: f.EndColumn,
		CellJSON:  report.CellPos{Cell: f.Cell, CellLine: f.CellLine}.JSON(),
		URL:       nullable(f.URL),
		Related:   []jsonRelated{},
		Cost:      nullable(f.Cost),
	}
	if f.Fix != nil {
		fix := &jsonFix{Applicability: f.Fix.Applicability, Message: f.Fix.Message, Edits: []jsonEdit{}}
		for _, e := range f.Fix.Edits {
			fix.Edits = append(fix.Edits, jsonEdit{
				Content: e.NewText, Line: e.Line, Column: e.Column, EndLine: e.EndLine, EndColumn: e.EndColumn,
			})
		}
		out.Fix = fix
	}
	for _, r := range f.Related {
		out.Related = append(out.Related, jsonRelated{File: slashPath(r.File), Line: r.Line, CellJSON: r.JSON(), Message: r.Message})
	}
	return out
}

// encoder writes JSON without HTML escaping: messages quote Python source such as
// `a < b`, and ruff prints those characters as they are.
func encoder(b *bytes.Buffer, indent bool) *json.Encoder {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	return enc
}

func printJSON(b *bytes.Buffer, fs []report.Finding, _ *report.Report, _ Options) error {
	out := make([]jsonFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, toJSON(f))
	}
	if err := encoder(b, true).Encode(out); err != nil {
		return fmt.Errorf("encode findings: %w", err)
	}
	return nil
}

func printJSONLines(b *bytes.Buffer, fs []report.Finding, _ *report.Report, _ Options) error {
	enc := encoder(b, false)
	for _, f := range fs {
		if err := enc.Encode(toJSON(f)); err != nil {
			return fmt.Errorf("encode finding %s:%d: %w", f.File, f.Line, err)
		}
	}
	return nil
}
