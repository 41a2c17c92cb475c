package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cachelint/cachelint/internal/lazyregexp"
	"github.com/cachelint/cachelint/internal/suppress/pylex"
)

// Cell is one code cell's place in the program.
type Cell struct {
	// Index is the cell's 1-based position among all cells of the notebook.
	Index int
	// StartLine is the program line of the cell's first line; Lines is how many lines it
	// has (0 for an empty cell, whose StartLine is then the next cell's).
	StartLine int
	Lines     int
	// Skipped reports that the whole cell was blanked (a non-Python cell magic, or a cell
	// that ends inside a string or bracket).
	Skipped bool
}

// Notebook is a parsed .ipynb file.
type Notebook struct {
	// Source is the Python program: every code cell's lines in order, each cell ending
	// with a newline.
	Source []byte
	// Cells are the code cells, in order; CellStartLines[i] is Cells[i].StartLine.
	Cells          []Cell
	CellStartLines []int
	// Language is the notebook's declared language (metadata.language_info.name, else
	// metadata.kernelspec.language), lower-cased; "" when it declares none. Callers should
	// skip notebooks whose language is set and is not "python".
	Language string
	// Warnings describe cells that were blanked because they cannot be Python.
	Warnings []string
	// Malformed say which cells were left out because their JSON is not a cell's (a
	// "source" that is a number, a cell that is not an object): the other cells are read.
	Malformed []string

	data  []byte
	nl    []int // offsets of the '\n' bytes of data
	lines []progLine
	parts []piece
}

func readJSON(data []byte, tokens bool) (*reader, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	r := &reader{data: data, dec: dec, tokens: tokens}
	return r, r.parse()
}

// progLine is where one program line came from.
type progLine struct {
	cell     int // index into Cells
	cellLine int
	part     int // index into parts of the JSON string holding the line's first character
	from     int // byte offset in that string's decoded text where the line starts
}

// Parse reads a notebook.
func Parse(data []byte) (*Notebook, error) {
	r, err := readJSON(data, false)
	if err != nil {
		// Read again token by token, which knows where in the file it failed: a value
		// skipped whole reports no usable offset.
		_, err = readJSON(data, true)
		return nil, fmt.Errorf("read notebook: %w", err)
	}
	nb := &Notebook{data: data, nl: newlines(data)}
	nb.Language = strings.ToLower(r.language)
	if nb.Language == "" {
		nb.Language = strings.ToLower(r.kernel)
	}
	var src bytes.Buffer
	for _, c := range r.cells {
		if c.bad != nil && c.typ != "markdown" && c.typ != "raw" {
			nb.Malformed = append(nb.Malformed, fmt.Sprintf("cell %d left out: %v", c.index, c.bad))
			continue
		}
		if c.typ != "code" || c.bad != nil {
			continue
		}
		nb.addCell(&src, c)
	}
	nb.Source = src.Bytes()
	if nb.Source == nil {
		nb.Source = []byte{}
	}
	return nb, nil
}

// addCell appends a code cell's lines to the program.
func (nb *Notebook) addCell(src *bytes.Buffer, c rawCell) {
	ci := len(nb.Cells)
	cell := Cell{Index: c.index, StartLine: len(nb.lines) + 1}
	first := len(nb.parts)
	for _, p := range c.pieces {
		p.cell = ci
		nb.parts = append(nb.parts, p)
	}

	var text strings.Builder
	for _, p := range c.pieces {
		text.WriteString(p.text)
	}
	lines := splitLines(text.String())
	// Record where each line starts in the JSON strings.
	part, partStart, off := first, 0, 0
	for i, l := range lines {
		for part < len(nb.parts)-1 && off >= partStart+len(nb.parts[part].text) {
			partStart += len(nb.parts[part].text)
			part++
		}
		nb.lines = append(nb.lines, progLine{cell: ci, cellLine: i + 1, part: part, from: off - partStart})
		off += len(l) + 1
	}
	cell.Lines = len(lines)

	out, skipped, warn := transform(lines)
	cell.Skipped = skipped
	if warn != "" {
		nb.Warnings = append(nb.Warnings, fmt.Sprintf("cell %d: %s", c.index, warn))
	}
	for _, l := range out {
		src.WriteString(l)
		src.WriteByte('\n')
	}
	nb.Cells = append(nb.Cells, cell)
	nb.CellStartLines = append(nb.CellStartLines, cell.StartLine)
}

// splitLines splits a cell's text into lines without their line end, a '\n' or a lone '\r'
// as Python reads them (a "\r\n" keeps its '\r' in the line); an empty cell has none.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	var lines []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\r' && (i+1 == len(s) || s[i+1] != '\n') {
			lines = append(lines, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// pythonCellMagics run their body as Python, so the body is analysed.
var pythonCellMagics = map[string]bool{
	"time": true, "timeit": true, "capture": true, "prun": true, "debug": true,
	"memit": true, "mprun": true,
}

// assignMagic matches `x = !ls` and `a, b = %sx cmd`.
var assignMagic = lazyregexp.New(`^[\p{L}_][\p{L}\p{N}_.]*(\s*,\s*[\p{L}_][\p{L}\p{N}_.]*)*\s*=\s*[!%]`)

// transform blanks the IPython-only lines of a cell, or the whole cell, and returns the
// lines to emit (as many as it was given), whether the whole cell went, and a warning when
// that was because the cell is broken.
func transform(lines []string) (out []string, skipped bool, warn string) {
	out = make([]string, len(lines))
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	if first < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[first], " \t"), "%%") {
		name := strings.TrimLeft(lines[first], " \t")[2:]
		if i := strings.IndexAny(name, " \t\r"); i >= 0 {
			name = name[:i]
		}
		if !pythonCellMagics[name] {
			return out, true, "" // not Python: every line blank
		}
		copy(out, lines)
		out[first] = ""
	} else {
		copy(out, lines)
	}

	var sc pylex.Scanner
	for i := 0; i < len(out); i++ {
		l := out[i]
		if sc.Clean() {
			code := strings.TrimLeft(l, " \t\f")
			if strings.HasPrefix(code, "%") || strings.HasPrefix(code, "!") || assignMagic.MatchString(code) {
				out[i] = blank(l)
				// IPython joins backslash-continued lines into the magic; their
				// indentation means nothing, so they become empty.
				for strings.HasSuffix(strings.TrimRight(l, "\r"), "\\") && i+1 < len(out) {
					i++
					l = out[i]
					out[i] = ""
				}
				continue
			}
			look := sc.Clone()
			info := look.Line([]byte(l))
			if look.Clean() && isHelp(l, info.Comment) {
				out[i] = blank(l)
				continue
			}
			sc = *look
			continue
		}
		sc.Line([]byte(l))
	}
	if !sc.Clean() {
		for i := range out {
			out[i] = ""
		}
		return out, true, "ends inside a string, a bracket or a backslash continuation; cell skipped"
	}
	return out, false, ""
}

// isHelp reports whether a line is IPython help: `obj?`, `obj??`, `?obj`.
func isHelp(l string, comment int) bool {
	if comment >= 0 {
		l = l[:comment]
	}
	code := strings.Trim(l, " \t\f\r")
	return strings.HasPrefix(code, "?") || strings.HasSuffix(code, "?")
}

// blank replaces a line, keeping an indented line a valid statement of its block.
func blank(l string) string {
	indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
	if indent == "" {
		return ""
	}
	return indent + "pass"
}

// Locate maps a 1-based program line to its cell (Cell.Index), its line in that cell, and
// the 1-based line and column in the .ipynb file of the line's first character inside the
// JSON string literal that holds it: for the usual list-of-lines source that is the
// character after the opening quote. All zero when programLine is out of range.
func (nb *Notebook) Locate(programLine int) (cell, cellLine, jsonLine, jsonCol int) {
	if programLine < 1 || programLine > len(nb.lines) {
		return 0, 0, 0, 0
	}
	pl := nb.lines[programLine-1]
	jsonLine, jsonCol = nb.JSONPos(programLine, 1)
	return nb.Cells[pl.cell].Index, pl.cellLine, jsonLine, jsonCol
}

// JSONPos maps a 1-based program line and column (in code points) to the 1-based line and
// column (in code points) in the .ipynb file of the JSON text that encodes that character,
// following escapes (`\"`, `\n`, `\u00e9`) and lines split across list items. A column past
// the end of the line maps to the end of its last string. Zeros when the line is out of
// range.
func (nb *Notebook) JSONPos(programLine, programCol int) (line, col int) {
	if programLine < 1 || programLine > len(nb.lines) {
		return 0, 0
	}
	pl := nb.lines[programLine-1]
	part := pl.part
	raw := nb.parts[part].quote + 1
	for n := pl.from; n > 0; {
		next, _, size, ok := nb.decodeAt(raw)
		if !ok {
			break
		}
		raw, n = next, n-size
	}
	for n := max(programCol, 1) - 1; ; {
		next, r, _, ok := nb.decodeAt(raw)
		if !ok {
			// At a closing quote the line goes on in the next string of the same cell (a
			// list item without a trailing newline), or this is its end.
			if part+1 >= len(nb.parts) || nb.parts[part+1].cell != pl.cell {
				break
			}
			part++
			raw = nb.parts[part].quote + 1
			continue
		}
		if n == 0 || r == '\n' {
			break
		}
		raw, n = next, n-1
	}
	return position(nb.data, nb.nl, raw)
}

// decodeAt decodes the JSON string character at raw offset r the way encoding/json does
// (invalid UTF-8 and lone surrogates become U+FFFD) and returns the offset after it, the
// character, and the number of bytes it decodes to; ok is false at the closing quote.
func (nb *Notebook) decodeAt(r int) (next int, ru rune, size int, ok bool) {
	d := nb.data
	if r >= len(d) || d[r] == '"' {
		return r, 0, 0, false
	}
	if d[r] != '\\' {
		ru, n := utf8.DecodeRune(d[r:])
		return r + n, ru, utf8.RuneLen(ru), true
	}
	if r+1 >= len(d) {
		return r, 0, 0, false
	}
	if e, simple := simpleEscapes[d[r+1]]; simple {
		return r + 2, e, 1, true
	}
	ru, ok = hex4(d, r+2)
	if d[r+1] != 'u' || !ok {
		return r + 2, utf8.RuneError, 1, true // not valid JSON; the decoder rejected it already
	}
	switch {
	case ru >= 0xD800 && ru < 0xDC00:
		if r+11 < len(d) && d[r+6] == '\\' && d[r+7] == 'u' {
			if lo, ok := hex4(d, r+8); ok && lo >= 0xDC00 && lo < 0xE000 {
				return r + 12, 0x10000 + (ru-0xD800)<<10 + (lo - 0xDC00), 4, true
			}
		}
		return r + 6, utf8.RuneError, 3, true
	case ru >= 0xDC00 && ru < 0xE000:
		return r + 6, utf8.RuneError, 3, true
	}
	return r + 6, ru, utf8.RuneLen(ru), true
}

var simpleEscapes = map[byte]rune{
	'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t',
}

func hex4(d []byte, at int) (rune, bool) {
	if at+4 > len(d) {
		return 0, false
	}
	var v rune
	for _, c := range d[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			v = v<<4 | rune(c|0x20-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// position converts a byte offset in data to a 1-based line and code-point column.
func position(data []byte, nl []int, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	i := sort.SearchInts(nl, off) // newlines before off
	start := 0
	if i > 0 {
		start = nl[i-1] + 1
	}
	return i + 1, utf8.RuneCount(data[start:off]) + 1
}
