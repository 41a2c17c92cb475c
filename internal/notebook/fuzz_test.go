package notebook

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary bytes to the notebook reader. It must never panic, and on a
// notebook it accepts the program, the cell table and the position map must agree.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"train.ipynb", "escaped.ipynb"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"cells": [{"cell_type": "code", "source": ["a\\u00e9\\ud83d\\ude00\\ud800x", "\xff\"\\\\"]}]}`))
	f.Add([]byte(`{"worksheets": [{"cells": [{"cell_type": "code", "input": "%%time\n!ls\nx?"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nb, err := Parse(data)
		if err != nil {
			if nb != nil || !strings.HasPrefix(err.Error(), "read notebook: ") {
				t.Fatalf("error %v with notebook %v", err, nb != nil)
			}
			return
		}
		lines := bytes.Count(nb.Source, []byte("\n"))
		total := 0
		for i, c := range nb.Cells {
			if c.StartLine != total+1 || nb.CellStartLines[i] != c.StartLine {
				t.Fatalf("cell %d starts at %d, want %d", i, c.StartLine, total+1)
			}
			total += c.Lines
		}
		if total != lines || len(nb.lines) != lines {
			t.Fatalf("cells hold %d lines, program %d, map %d", total, lines, len(nb.lines))
		}
		// The position decoder must read each source string exactly as encoding/json did.
		for _, p := range nb.parts {
			var b strings.Builder
			for r := p.quote + 1; ; {
				next, ru, _, ok := nb.decodeAt(r)
				if !ok {
					break
				}
				b.WriteRune(ru)
				r = next
			}
			if b.String() != p.text {
				t.Fatalf("position decoder read %q, encoding/json %q", b.String(), p.text)
			}
		}
		for l := 1; l <= lines; l++ {
			cell, cellLine, jl, jc := nb.Locate(l)
			if cell < 1 || cellLine < 1 || jl < 1 || jc < 1 {
				t.Fatalf("Locate(%d) = %d %d %d %d", l, cell, cellLine, jl, jc)
			}
			for _, col := range []int{2, 7, 1000} {
				if jl, jc := nb.JSONPos(l, col); jl < 1 || jl > len(nb.nl)+1 || jc < 1 || jc > utf8.RuneCount(data)+1 {
					t.Fatalf("JSONPos(%d, %d) = %d:%d outside the file", l, col, jl, jc)
				}
			}
		}
	})
}
