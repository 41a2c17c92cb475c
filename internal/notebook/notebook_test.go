package notebook

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const wantProgram = "" +
	"\n" + // 1  !pip install torch
	"\n" + // 2  %matplotlib inline
	"import torch\n" + // 3
	"\n" + // 4  files = !ls
	"\n" + // 5  torch.cuda.is_available?
	"\n\n\n" + // 6-8  %%bash cell
	"\n" + // 9  %%time
	"for step, batch in enumerate(loader):\n" + // 10
	"    loss = model(batch)  # café \"q\"\n" + // 11
	"    pass\n" + // 12  %time optimizer.step()
	"    torch.cuda.empty_cache()\n" + // 13
	"del model\n" + // 14  (source given as one string)
	"torch.cuda.empty_cache()\n" + // 15
	"\n\n" + // 16-17  unterminated string: cell skipped
	"x = (1 +\n" + // 18
	"     2)\n" + // 19  starts inside brackets: not a magic
	"print(x % 3, \"é\\\\\")  # 😀 tail\n" + // 20
	"\n\n" + // 21-22  !echo a \ (continued)
	"y = 1\n" // 23  split across two list items

func read(t *testing.T, name string) ([]byte, *Notebook) {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return data, nb
}

func TestProgram(t *testing.T) {
	for _, name := range []string{"train.ipynb", "escaped.ipynb"} {
		t.Run(name, func(t *testing.T) {
			_, nb := read(t, name)
			if string(nb.Source) != wantProgram {
				t.Errorf("Source =\n%s\nwant\n%s", nb.Source, wantProgram)
			}
			wantCells := []Cell{
				{Index: 2, StartLine: 1, Lines: 5},
				{Index: 3, StartLine: 6, Lines: 3, Skipped: true},
				{Index: 4, StartLine: 9, Lines: 5},
				{Index: 5, StartLine: 14, Lines: 2},
				{Index: 6, StartLine: 16, Lines: 0},
				{Index: 8, StartLine: 16, Lines: 2, Skipped: true},
				{Index: 9, StartLine: 18, Lines: 6},
			}
			if !reflect.DeepEqual(nb.Cells, wantCells) {
				t.Errorf("Cells =\n%+v\nwant\n%+v", nb.Cells, wantCells)
			}
			if !reflect.DeepEqual(nb.CellStartLines, []int{1, 6, 9, 14, 16, 16, 18}) {
				t.Errorf("CellStartLines = %v", nb.CellStartLines)
			}
			if nb.Language != "python" {
				t.Errorf("Language = %q", nb.Language)
			}
			if len(nb.Warnings) != 1 || !strings.HasPrefix(nb.Warnings[0], "cell 8: ends inside a string") {
				t.Errorf("Warnings = %q", nb.Warnings)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	data, nb := read(t, "train.ipynb")
	jsonLines := strings.Split(string(data), "\n")
	tests := []struct {
		line, cell, cellLine int
		json                 string // the JSON text that starts at the reported position
	}{
		{3, 2, 3, `import torch\n",`},
		{13, 4, 5, `    torch.cuda.empty_cache()\n"`},
		{14, 5, 1, `del model\ntorch.cuda.empty_cache()"`},
		{15, 5, 2, `torch.cuda.empty_cache()"`}, // the second line of a one-string source
		{23, 9, 6, `y = ",`},
	}
	for _, tt := range tests {
		cell, cellLine, jl, jc := nb.Locate(tt.line)
		if cell != tt.cell || cellLine != tt.cellLine {
			t.Errorf("Locate(%d) = cell %d line %d, want cell %d line %d", tt.line, cell, cellLine, tt.cell, tt.cellLine)
			continue
		}
		if jl < 1 || jl > len(jsonLines) {
			t.Errorf("Locate(%d): JSON line %d out of range", tt.line, jl)
			continue
		}
		rest := string([]rune(jsonLines[jl-1])[jc-1:])
		if !strings.HasPrefix(rest, tt.json) {
			t.Errorf("Locate(%d) points at %q, want %q", tt.line, rest, tt.json)
		}
	}
	for _, bad := range []int{0, -1, 24} {
		if c, l, jl, jc := nb.Locate(bad); c|l|jl|jc != 0 {
			t.Errorf("Locate(%d) = %d %d %d %d, want zeros", bad, c, l, jl, jc)
		}
	}
}

// TestJSONPosEveryCharacter checks, for every character of every line that reached the
// program unchanged, that JSONPos points at the JSON text that encodes that very
// character: escapes, non-ASCII text and surrogate pairs included.
func TestJSONPosEveryCharacter(t *testing.T) {
	for _, name := range []string{"train.ipynb", "escaped.ipynb"} {
		data, nb := read(t, name)
		jsonLines := bytes.Split(data, []byte("\n"))
		checked := 0
		for i, l := range strings.Split(strings.TrimSuffix(string(nb.Source), "\n"), "\n") {
			if strings.TrimSpace(l) == "" || strings.TrimSpace(l) == "pass" {
				continue
			}
			for c, want := range []rune(l) {
				jl, jc := nb.JSONPos(i+1, c+1)
				off := lineOffset(data, jl) + byteCol(jsonLines[jl-1], jc)
				_, got, _, ok := nb.decodeAt(off)
				if !ok || got != want {
					t.Fatalf("%s: JSONPos(%d, %d) = %d:%d holds %q, want %q", name, i+1, c+1, jl, jc, got, want)
				}
				checked++
			}
		}
		if checked < 100 {
			t.Fatalf("%s: only %d characters checked", name, checked)
		}
	}
}

func lineOffset(data []byte, line int) int {
	off := 0
	for ; line > 1; line-- {
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	return off
}

func byteCol(line []byte, col int) int {
	off := 0
	for ; col > 1; col-- {
		_, n := utf8.DecodeRune(line[off:])
		off += n
	}
	return off
}

func TestJSONPosPastEndOfLine(t *testing.T) {
	_, nb := read(t, "train.ipynb")
	end1, endCol1 := nb.JSONPos(3, 13) // just past "import torch"
	end2, endCol2 := nb.JSONPos(3, 500)
	if end1 != end2 || endCol1 != endCol2 {
		t.Errorf("column past the end: %d:%d, want the line end %d:%d", end2, endCol2, end1, endCol1)
	}
}

func TestMagics(t *testing.T) {
	tests := []struct {
		name string
		cell []string
		want string
	}{
		{"line magic", []string{"%load_ext autoreload\n", "x = 1"}, "\nx = 1\n"},
		{"indented magic keeps the block valid", []string{"for i in r:\n", "    %time f(i)\n"}, "for i in r:\n    pass\n"},
		{"shell", []string{"!nvidia-smi\n", "  ! ls"}, "\n  pass\n"},
		{"assigned shell", []string{"out = !ls -la\n", "a, b = %sx echo 1\n"}, "\n\n"},
		{"help", []string{"torch.cuda.empty_cache?\n", "??torch\n", "x  # what?"}, "\n\nx  # what?\n"},
		{"modulo continuation is code", []string{"y = (a\n", "     % b)"}, "y = (a\n     % b)\n"},
		{"percent in a string", []string{"s = '''\n", "%not a magic\n", "'''"}, "s = '''\n%not a magic\n'''\n"},
		{"not-equal is code", []string{"x = a != b"}, "x = a != b\n"},
		{"comparison then bang", []string{"x == !y"}, "x == !y\n"},
		{"magic with continuation", []string{"!pip install \\\n", "    torch\n", "x = 1\n"}, "\n\nx = 1\n"},
		{"cell magic not python", []string{"\n", "%%writefile a.py\n", "import torch\n"}, "\n\n\n"},
		{"cell magic with python body", []string{"%%timeit -n 3\n", "torch.cuda.empty_cache()\n"}, "\ntorch.cuda.empty_cache()\n"},
		{"cell magic later is a line magic", []string{"x = 1\n", "%%time\n"}, "x = 1\n\n"},
		{"unclosed bracket skips the cell", []string{"f(\n"}, "\n"},
		{"crlf", []string{"!ls\r\n", "x = 1\r\n"}, "\nx = 1\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nb, err := Parse(notebookJSON(t, tt.cell))
			if err != nil {
				t.Fatal(err)
			}
			if string(nb.Source) != tt.want {
				t.Errorf("Source = %q, want %q", nb.Source, tt.want)
			}
		})
	}
}

// notebookJSON builds an nbformat 4 notebook with one code cell.
func notebookJSON(t *testing.T, source []string) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": [`)
	for i, s := range source {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(s))
	}
	b.WriteString("]}]}")
	return []byte(b.String())
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func TestTolerated(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"no cells", `{"nbformat": 4, "metadata": {}}`, ""},
		{"null cells", `{"cells": null}`, ""},
		{"missing source", `{"cells": [{"cell_type": "code"}]}`, ""},
		{"null source", `{"cells": [{"cell_type": "code", "source": null}]}`, ""},
		{"string source", `{"cells": [{"cell_type": "code", "source": "a = 1\nb = 2\n"}]}`, "a = 1\nb = 2\n"},
		{"missing cell type", `{"cells": [{"source": "a = 1"}, {"cell_type": "code", "source": "b = 2"}]}`, "b = 2\n"},
		{"unknown fields and weird metadata", `{"metadata": [1], "x": {"y": [true, null]}, "cells": [{"cell_type": "code", "source": ["a"], "outputs": {"z": 1}}]}`, "a\n"},
		{"nbformat 3", `{"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "heading", "source": ["Title"]}, {"cell_type": "code", "input": ["a = 1\n", "%time b"], "language": "python"}]}]}`, "a = 1\n\n"},
		{"several worksheets", `{"worksheets": [{"cells": [{"cell_type": "code", "input": "a"}]}, {"cells": [{"cell_type": "code", "input": "b"}]}]}`, "a\nb\n"},
	}
	for _, tt := range tests {
		nb, err := Parse([]byte(tt.json))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(nb.Source) != tt.want {
			t.Errorf("%s: Source = %q, want %q", tt.name, nb.Source, tt.want)
		}
	}
}

func TestNBFormat3CellNumbers(t *testing.T) {
	nb, err := Parse([]byte(`{"worksheets": [{"cells": [{"cell_type": "markdown", "source": "x"}, {"cell_type": "code", "input": "a\nb"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c, l, _, _ := nb.Locate(2); c != 2 || l != 2 {
		t.Errorf("Locate(2) = cell %d line %d, want cell 2 line 2", c, l)
	}
}

func TestLanguage(t *testing.T) {
	nb, err := Parse([]byte(`{"metadata": {"kernelspec": {"language": "R"}}, "cells": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if nb.Language != "r" {
		t.Errorf("Language = %q, want r", nb.Language)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"malformed", "{\n  \"cells\": [\n    {\"cell_type\": \"code\",, }\n  ]\n}", "line 3, column"},
		{"truncated", `{"cells": [{"cell_type": "code", "source": ["a`, "unexpected end of file"},
		{"empty", ``, "unexpected end of file"},
		{"not an object", `[1, 2]`, "a notebook must be a JSON object, got a list"},
		{"cells not a list", `{"cells": {"a": 1}}`, `"cells" must be a list, got an object`},
		{"trailing data", `{"cells": []} {}`, "unexpected data after"},
		{"invalid utf-8 escapes", `{"cells": [{"cell_type": "code", "source": "\x"}]}`, "invalid JSON"},
		// Inside values skipped whole (outputs, metadata): the position is still the file's.
		{"malformed output", "{\"cells\": [{\"cell_type\": \"code\", \"outputs\": [{\"x\": \n\n 1 2}], \"source\": \"a\"}]}", "line 3, column 4: invalid character '2'"},
		{"malformed metadata", `{"metadata": {"a": [1, }], "cells": []}`, "line 1, column 24: invalid character '}'"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestMalformedCells: a cell whose JSON is valid but not a cell's is left out with a
// message naming it, and the code cells around it are read as usual.
func TestMalformedCells(t *testing.T) {
	good := `{"cell_type": "code", "source": ["import torch\n", "torch.cuda.empty_cache()\n"]}`
	tests := []struct {
		name, cell, want string
	}{
		{"cell not an object", `[1, {"a": 2}]`, "cell 2 left out: line 1, column 95: cell 2 must be an object, got a list"},
		{"source a number", `{"cell_type": "code", "source": 3}`, `cell 2 left out: line 1, column 127: cell 2: "source" must be a string or a list of strings, got a number`},
		{"source item not a string", `{"cell_type": "code", "source": ["a", ["b"], "c"], "metadata": {}}`, `cell 2 left out: line 1, column 133: cell 2: "source" item 2 must be a string, got a list`},
		{"cell type not a string", `{"cell_type": {"x": 4}, "source": "y = 1"}`, `cell 2 left out: line 1, column 109: cell 2: "cell_type" must be a string, got an object`},
	}
	for _, tt := range tests {
		nb, err := Parse([]byte(`{"cells": [` + good + `, ` + tt.cell + `, ` + good + `]}`))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if len(nb.Malformed) != 1 || nb.Malformed[0] != tt.want {
			t.Errorf("%s: malformed %q, want %q", tt.name, nb.Malformed, tt.want)
		}
		if want := "import torch\ntorch.cuda.empty_cache()\n"; string(nb.Source) != want+want || len(nb.Cells) != 2 || nb.Cells[1].Index != 3 {
			t.Errorf("%s: program %q, cells %+v", tt.name, nb.Source, nb.Cells)
		}
	}
}

func TestHugeOutputs(t *testing.T) {
	// Outputs are skipped, not kept: a notebook with megabytes of image data still parses
	// and its program holds only the code.
	big := strings.Repeat("QUJD", 4<<20)
	data := []byte(`{"cells": [{"cell_type": "code", "outputs": [{"data": {"image/png": "` + big + `"}}], "source": ["torch.cuda.empty_cache()"]}]}`)
	nb, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if string(nb.Source) != "torch.cuda.empty_cache()\n" {
		t.Errorf("Source = %q", nb.Source)
	}
	if _, _, jl, jc := nb.Locate(1); jl != 1 || jc != len(data)-len(`torch.cuda.empty_cache()"]}]}`)+1 {
		t.Errorf("Locate(1) JSON position = %d:%d", jl, jc)
	}
}

// TestLoneCRLines: a lone '\r' ends a cell's line, as Python reads it, so the program's
// lines and the parser's agree.
func TestLoneCRLines(t *testing.T) {
	nb, err := Parse([]byte(`{"cells": [{"cell_type": "code", "source": "a = 1\rb = 2\r\nc = 3\n"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(nb.Source) != "a = 1\nb = 2\r\nc = 3\n" || nb.Cells[0].Lines != 3 {
		t.Errorf("program %q, %d lines", nb.Source, nb.Cells[0].Lines)
	}
	if c, l, _, _ := nb.Locate(3); c != 1 || l != 3 {
		t.Errorf("Locate(3) = cell %d line %d, want cell 1 line 3", c, l)
	}
}
