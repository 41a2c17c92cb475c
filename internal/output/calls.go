package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cachelint/cachelint/internal/report"
)

// CallFormats are the formats of `cachelint calls`.
var CallFormats = []string{"text", "json"}

// PrintCalls writes the call records as a table (text) or as the JSON array of SPEC §6.
// quiet leaves out the table's closing count.
func PrintCalls(w io.Writer, format string, recs []report.CallRecord, quiet bool) error {
	switch format {
	case "json":
		return WriteJSON(w, recs)
	case "text":
		return writeCallsTable(w, recs, quiet)
	}
	return fmt.Errorf("unknown calls format %q", format)
}

// WriteJSON writes v as indented JSON without HTML escaping.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func writeCallsTable(w io.Writer, recs []report.CallRecord, quiet bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LOCATION\tCALLEE\tROLE\tFREQUENCY\tPATTERN\tRULE\tLOOP")
	for _, r := range recs {
		rule, loop := "-", "-"
		if r.Rule != nil {
			rule = *r.Rule
		}
		if r.Loop != nil {
			loop = fmt.Sprintf("line %d", r.Loop.Line)
			if r.Loop.File != r.File {
				loop = fmt.Sprintf("%s:%d", r.Loop.File, r.Loop.Line)
			}
			if r.Loop.Cell != nil {
				loop = fmt.Sprintf("cell %d:line %d", *r.Loop.Cell, *r.Loop.CellLine)
			}
		}
		freq := r.Frequency
		if r.Period != nil {
			freq = fmt.Sprintf("%s (every %d)", freq, *r.Period)
		}
		callee := r.Callee
		if len(r.Via) > 0 {
			callee = strings.Join(r.Via, " -> ") + " -> " + r.Callee
		}
		// Located as check's text formats locate a finding: by cell, line and column.
		where := fmt.Sprintf("%s:%d:%d", r.File, r.Line, r.Column)
		if r.Cell != nil {
			where = fmt.Sprintf("%s:cell %d:line %d:%d", r.File, *r.Cell, *r.CellLine, r.CellColumn)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", where, callee, r.Role, freq, r.Pattern, rule, loop)
	}
	if err := tw.Flush(); err != nil || quiet {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d cache-emptying call(s)\n", len(recs))
	return err
}
