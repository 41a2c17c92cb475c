package engine

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/cachelint/cachelint/internal/notebook"
	"github.com/cachelint/cachelint/internal/report"
)

// notebookInfo is a notebook turned into one Python program of its code cells, with the
// map back to cells and to the .ipynb JSON.
type notebookInfo struct {
	source []byte
	nb     *notebook.Notebook
}

func readNotebook(data []byte) (*notebookInfo, error) {
	nb, err := notebook.Parse(data)
	if err != nil {
		return nil, err
	}
	if nb.Language != "" && nb.Language != "python" {
		// An R or Julia notebook: nothing of ours to analyse.
		return &notebookInfo{source: nil, nb: nb}, nil
	}
	return &notebookInfo{source: nb.Source, nb: nb}, nil
}

// mapNotebook rewrites a finding's position in a notebook's program: text output shows
// `cell 3:line 2`, machine formats point into the JSON file.
func (pr *project) mapNotebook(f *report.Finding) {
	pr.nbMu.Lock()
	info := pr.nb[f.File]
	pr.nbMu.Unlock()
	if info == nil {
		return
	}
	progLine, progCol, progEndLine, progEndCol := f.Line, f.Column, f.EndLine, f.EndColumn
	cell, cellLine, _, _ := info.nb.Locate(progLine)
	f.FrameLine = progLine
	f.Cell, f.CellLine = cell, cellLine
	f.CellColumn = progCol
	if progEndLine == progLine {
		f.CellEndColumn = progEndCol
	}
	f.Line, f.Column = info.nb.JSONPos(progLine, progCol)
	f.EndLine, f.EndColumn = info.nb.JSONPos(progEndLine, progEndCol)
	// Fixes cannot be applied to the JSON text as they stand.
	f.Fix = nil
	f.Message = info.cellRefs(f.Message)
}

var reLineRef = regexp.MustCompile(`\bline (\d+)\b`)

// cellRefs rewrites "line 12" in a message about the program into "cell 3:line 2".
func (info *notebookInfo) cellRefs(msg string) string {
	return reLineRef.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(m[len("line "):])
		if err != nil {
			return m
		}
		cell, cellLine, _, _ := info.nb.Locate(n)
		if cell == 0 {
			return m
		}
		return fmt.Sprintf("cell %d:line %d", cell, cellLine)
	})
}
