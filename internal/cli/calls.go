package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// CallRecord is one line of `cachelint calls --format json`: SPEC §6, a stable interface.
type CallRecord struct {
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Column    int      `json:"column"`
	Callee    string   `json:"callee"`
	Via       []string `json:"via"`
	Role      string   `json:"role"`
	Frequency string   `json:"frequency"`
	Period    *int     `json:"period"`
	Pattern   string   `json:"pattern"`
	Rule      *string  `json:"rule"`
	Loop      *LoopRef `json:"loop"`
	Reason    string   `json:"reason"`
	// Cell and CellLine locate a notebook call for the text table.
	Cell, CellLine int `json:"-"`
}

// LoopRef locates the loop that governs a call.
type LoopRef struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func runCalls(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	fs := newFlagSet("calls", "calls [flags] [PATH...]", stdout)
	cf.register(fs)
	format := fs.String("format", "text", "text or json")
	fs.StringVar(format, "output-format", "text", "alias of --format")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return usageErr("unknown --format %q (want text or json)", *format)
	}
	pr, err := analyse(ctx, paths, &cf, stderr, nil)
	if err != nil {
		return err
	}
	pr.warnUnreadable(stderr)
	recs := pr.callRecords()
	if *format == "json" {
		err = writeJSON(stdout, recs)
	} else {
		err = writeCallsTable(stdout, recs)
	}
	if err != nil {
		return err
	}
	if errs := pr.internalErrors(); len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(stderr, "cachelint: %s\n", e)
		}
		return &exitError{code: exitUsage}
	}
	return nil
}

func (pr *project) callRecords() []CallRecord {
	out := []CallRecord{}
	if pr.cls == nil {
		return out
	}
	for _, r := range pr.cls.Records {
		if !pr.report[r.File.Path] {
			continue
		}
		line, col := r.File.Position(r.Call.Node.Start)
		rec := CallRecord{
			File: r.File.Path, Line: line, Column: col, Callee: r.Target.Spelling, Via: []string{},
			Role: r.Role, Frequency: string(r.Frequency), Pattern: string(r.Pattern), Reason: r.Reason,
		}
		if r.Period > 0 {
			p := r.Period
			rec.Period = &p
		}
		if r.Rule != "" {
			rule := r.Rule
			rec.Rule = &rule
		}
		if r.Loop != nil {
			rec.Loop = &LoopRef{File: r.File.Path, Line: r.Loop.Node.Line()}
		}
		for _, e := range r.Via {
			rec.Via = append(rec.Via, moduleName(pr.root, pr.cwd, e.CalleeFile.Path)+e.Callee.QualName)
		}
		if info := pr.nb[r.File.Path]; info != nil {
			rec.Cell, rec.CellLine, _, _ = info.nb.Locate(line)
			rec.Line, rec.Column = info.nb.JSONPos(line, col)
			rec.Reason = info.cellRefs(rec.Reason)
			if rec.Loop != nil {
				rec.Loop.Line, _ = info.nb.JSONPos(rec.Loop.Line, 1)
			}
		}
		out = append(out, rec)
	}
	return out
}

// moduleName renders a file as a dotted module prefix ("utils.memory.") relative to the
// project root, for `via` chains.
func moduleName(root, cwd, file string) string {
	rel := displayPath(root, absFrom(cwd, file))
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), ".ipynb")
	rel = strings.TrimSuffix(rel, "/__init__")
	rel = strings.TrimPrefix(rel, "src/")
	if strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "..") {
		rel = strings.TrimSuffix(path.Base(rel), ".py")
	}
	return strings.ReplaceAll(rel, "/", ".") + "."
}

func writeJSON(w io.Writer, v any) error {
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

func writeCallsTable(w io.Writer, recs []CallRecord) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LOCATION\tCALLEE\tROLE\tFREQUENCY\tPATTERN\tRULE\tLOOP")
	for _, r := range recs {
		rule, loop := "-", "-"
		if r.Rule != nil {
			rule = *r.Rule
		}
		if r.Loop != nil {
			loop = fmt.Sprintf("line %d", r.Loop.Line)
		}
		freq := r.Frequency
		if r.Period != nil {
			freq = fmt.Sprintf("%s (every %d)", freq, *r.Period)
		}
		callee := r.Callee
		if len(r.Via) > 0 {
			callee = strings.Join(r.Via, " -> ") + " -> " + r.Callee
		}
		where := fmt.Sprintf("%s:%d:%d", r.File, r.Line, r.Column)
		if r.Cell > 0 {
			where = fmt.Sprintf("%s:cell %d:line %d", r.File, r.Cell, r.CellLine)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", where, callee, r.Role, freq, r.Pattern, rule, loop)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d cache-emptying call(s)\n", len(recs))
	return err
}

func absFrom(cwd, file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(cwd, filepath.FromSlash(file))
}
