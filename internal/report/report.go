// Package report holds what flows from the engine to the printers: findings and call records.
package report

import (
	"time"

	"github.com/cachelint/cachelint/rules"
)

// Edit replaces the code between two 1-based positions (columns in Unicode code points,
// end exclusive) and, for machine formats, the equivalent byte offsets.
type Edit struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Start     int    `json:"-"` // byte offset
	End       int    `json:"-"` // byte offset, exclusive
	NewText   string `json:"content"`
}

// Fix is a suggested change.
type Fix struct {
	Message       string `json:"message"`
	Applicability string `json:"applicability"` // "safe" or "unsafe"
	Edits         []Edit `json:"edits"`
}

// Related is a secondary location (e.g. the helper's own empty_cache call, the loop).
type Related struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
	// CellPos locates it in a notebook's cells; Line and Column then point into the JSON.
	CellPos `json:"-"`
}

// CellPos is a position in a notebook by cell: Cell (1-based; 0 outside notebooks), the line
// in that cell and the column in that line (code points), as text output shows them
// ("nb.ipynb:cell 3:line 2:5").
type CellPos struct {
	Cell, CellLine, CellColumn int
}

// CellJSON is a notebook position as the machine formats write it beside the file line:
// `"cell": 3, "cell_line": 2`, both null outside notebooks.
type CellJSON struct {
	Cell     *int `json:"cell"`
	CellLine *int `json:"cell_line"`
}

// JSON gives the position's cell and line for a JSON record.
func (p CellPos) JSON() CellJSON {
	if p.Cell <= 0 {
		return CellJSON{}
	}
	cell, line := p.Cell, p.CellLine
	return CellJSON{Cell: &cell, CellLine: &line}
}

// Finding is one reported problem.
type Finding struct {
	Code     string
	Name     string
	Severity rules.Severity
	Message  string
	// File is the path as shown to the user (relative to the working directory when
	// possible), with forward slashes.
	File      string
	Line      int // 1-based
	Column    int // 1-based, in Unicode code points
	EndLine   int
	EndColumn int
	URL       string
	Fix       *Fix
	Related   []Related
	// Label is the short note printed under the caret in the code frame.
	Label string
	// Help is the `= help:` line.
	Help string
	// Cost is the `= cost:` line, set only with --cost-profile.
	Cost string
	// Cell and CellLine locate the finding in a notebook (Cell 1-based; 0 when the file is
	// not a notebook). Line/Column then refer to the notebook's JSON file.
	Cell     int
	CellLine int
	// CellColumn and CellEndColumn are the columns of the span in that cell line (code
	// points, end exclusive), used by text output; 0 means "same as Column/EndColumn",
	// which is only right when the JSON string holds no escapes before the span.
	CellColumn    int
	CellEndColumn int
	// FrameLine is the line of Source(File) that the code frame shows; 0 means Line.
	// Notebooks set it to the line in the cell-concatenated program.
	FrameLine int
	// Function is the dotted name of the enclosing function ("" at module level); it feeds
	// baseline fingerprints.
	Function string
	// Snippet is the normalised source of the reported statement, for fingerprints.
	Snippet string
	// Period is a CL002 gate's period (0 when unknown), for the cost line.
	Period int
}

// Report is what one `check` run produced.
type Report struct {
	Findings []Finding
	// Source returns the text of a file as shown in findings (for code frames); nil when
	// unavailable.
	Source func(file string) []byte
	// FilesChecked is the number of files in report scope.
	FilesChecked int
}

// CallRecord is one classified cache-emptying call: a line of `cachelint calls --format
// json` (SPEC §6, a stable interface).
type CallRecord struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// CellJSON locates a notebook call by cell and line in the cell (null outside
	// notebooks); Line and Column then point into the notebook's JSON. CellColumn is its
	// column in that line, for the text table.
	CellJSON
	CellColumn int      `json:"-"`
	Callee     string   `json:"callee"`
	Via        []string `json:"via"`
	Role       string   `json:"role"`
	Frequency  string   `json:"frequency"`
	Period     *int     `json:"period"`
	Pattern    string   `json:"pattern"`
	Rule       *string  `json:"rule"`
	Loop       *LoopRef `json:"loop"`
	Reason     string   `json:"reason"`
}

// LoopRef locates the loop that governs a call, by cell too in a notebook.
type LoopRef struct {
	File string `json:"file"`
	Line int    `json:"line"`
	CellJSON
}

// Costs are what a probe profile measured, independent of any rule: the cost of one
// cache-emptying call on the user's GPU and, when the user gave it, their step time.
type Costs struct {
	// PerCall is the modelled cost of one call.
	PerCall time.Duration
	// Step is the user's step time (0: not given).
	Step time.Duration
	// Device is the GPU's name; Segments how many cached segments the replay freed.
	Device   string
	Segments int
	// Measured is set when `cachelint trace` measured this very call site in a run.
	Measured *Measured
}

// Measured is what a trace measured at one call site: its calls alternated with windows
// of steps without them.
type Measured struct {
	// PerStep is the step time its calls add; CallsPerStep how often it ran.
	PerStep      time.Duration
	CallsPerStep float64
	// Pairs is the number of window pairs the median is over.
	Pairs int
}

// PerStep is the cost per step of a call made once every period steps (period 1: every
// step).
func (c *Costs) PerStep(period int) time.Duration {
	return c.PerCall / time.Duration(max(period, 1))
}
