package engine

import (
	"bytes"
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
// `cell 3:line 2`, machine formats point into the JSON file. Its related locations in a
// notebook are mapped the same way.
func (pr *project) mapNotebook(f *report.Finding) {
	for i := range f.Related {
		r := &f.Related[i]
		if info := pr.notebook(r.File); info != nil {
			r.CellPos = info.cellPos(r.Line, r.Column)
			r.Line, r.Column = info.nb.JSONPos(r.Line, max(r.Column, 1))
		}
	}
	info := pr.notebook(f.File)
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
	f.Message = info.cellRefs(f.File, f.Message)
}

// cellPos is a program position by cell.
func (info *notebookInfo) cellPos(line, col int) report.CellPos {
	cell, cellLine, _, _ := info.nb.Locate(line)
	return report.CellPos{Cell: cell, CellLine: cellLine, CellColumn: col}
}

// notebook is the notebook file was analysed as, nil when file is no notebook. While the
// run reads files, only a notebook's program is kept: a project's notebooks can hold
// hundreds of megabytes of outputs, most of them in notebooks never parsed. What is
// reported in a notebook is mapped to its cells once the analysis is done, so the notebook
// is read again then, once. One that no longer holds the program analysed (edited in
// between) gives nil: its positions stay the program's.
func (pr *project) notebook(file string) *notebookInfo {
	if !pr.isNotebook(file) {
		return nil
	}
	pr.nbMu.Lock()
	defer pr.nbMu.Unlock()
	if info, ok := pr.nb[file]; ok {
		return info
	}
	data, err := pr.rawFile(file)
	var info *notebookInfo
	if err == nil {
		info, err = readNotebook(data)
	}
	if err != nil || pr.facts != nil && pr.facts.Files[file] != nil && !bytes.Equal(info.source, pr.facts.Files[file].Src) {
		info = nil
	}
	pr.nb[file] = info
	return info
}

// cellRefs rewrites the program positions a message quotes into cells: "line 12" and
// "nb.ipynb:12" (a helper's call in the same notebook) become "cell 3:line 2" and
// "nb.ipynb:cell 3:line 2". One pass, so a rewritten reference is never read again.
func (info *notebookInfo) cellRefs(file, msg string) string {
	re := regexp.MustCompile(`(` + regexp.QuoteMeta(file) + `:|\bline )(\d+)\b`)
	return re.ReplaceAllStringFunc(msg, func(m string) string {
		sub := re.FindStringSubmatch(m)
		n, err := strconv.Atoi(sub[2])
		if err != nil {
			return m
		}
		cell, cellLine, _, _ := info.nb.Locate(n)
		if cell == 0 {
			return m
		}
		prefix := ""
		if sub[1] != "line " {
			prefix = sub[1]
		}
		return fmt.Sprintf("%scell %d:line %d", prefix, cell, cellLine)
	})
}
