package output

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cachelint/cachelint/internal/report"
)

// tabStop is the width tabs expand to in code frames (ruff's default tab-size).
const tabStop = 4

func printFull(b *bytes.Buffer, fs []report.Finding, rep *report.Report, opts Options) error {
	pal := newPalette(opts.Color)
	src := &frameSources{rep: rep, files: map[string]*sourceText{}}
	for _, f := range fs {
		writeHeader(b, f, pal, true, opts)
		writeFrame(b, f, src, pal)
		b.WriteByte('\n')
	}
	writeSummary(b, fs, opts, pal)
	return nil
}

func printConcise(b *bytes.Buffer, fs []report.Finding, _ *report.Report, opts Options) error {
	pal := newPalette(opts.Color)
	for _, f := range fs {
		writeHeader(b, f, pal, false, opts)
	}
	writeSummary(b, fs, opts, pal)
	return nil
}

// textColumns gives the span to show in text output: the cell's own columns for a
// notebook when the producer supplied them, else the finding's columns.
func textColumns(f report.Finding) (col, endCol int) {
	if f.Cell > 0 && f.CellColumn > 0 {
		return f.CellColumn, f.CellEndColumn
	}
	return f.Column, f.EndColumn
}

// humanLocation is "file:line:col", or "nb.ipynb:cell 3:line 2:col" for a notebook.
func humanLocation(f report.Finding, pal palette, withColumn bool) string {
	sep := pal.sep.Sprint(":")
	var sb strings.Builder
	sb.WriteString(pal.path.Sprint(printable(f.File)))
	sb.WriteString(sep)
	if f.Cell > 0 {
		sb.WriteString("cell " + strconv.Itoa(f.Cell))
		sb.WriteString(sep)
		sb.WriteString("line " + strconv.Itoa(f.CellLine))
	} else {
		sb.WriteString(strconv.Itoa(f.Line))
	}
	if withColumn {
		col, _ := textColumns(f)
		sb.WriteString(sep)
		sb.WriteString(strconv.Itoa(col))
	}
	return sb.String()
}

// writeHeader writes "file:line:col: CODE [*] [severity] message": the [*] marks a finding
// that --fix would fix under the current --unsafe-fixes setting, as ruff marks it, so the
// markers add up to the summary's "[*] N fixable".
func writeHeader(b *bytes.Buffer, f report.Finding, pal palette, withSeverity bool, opts Options) {
	b.WriteString(humanLocation(f, pal, true))
	b.WriteString(pal.sep.Sprint(":"))
	b.WriteString(" ")
	b.WriteString(pal.code.Sprint(f.Code))
	if applicable, _ := fixState(f, opts.UnsafeFixes); applicable {
		b.WriteString(" [" + pal.fixable.Sprint("*") + "]")
	}
	if withSeverity && f.Severity != "" {
		b.WriteString(" ")
		b.WriteString(pal.forSeverity(f.Severity).Sprint("[" + string(f.Severity) + "]"))
	}
	b.WriteString(" ")
	b.WriteString(printableMultiline(f.Message))
	b.WriteByte('\n')
}

// writeFrame writes the code frame and the "= note/help/cost" lines of one finding.
func writeFrame(b *bytes.Buffer, f report.Finding, src *frameSources, pal palette) {
	frameLine := f.FrameLine
	if frameLine == 0 {
		frameLine = f.Line
	}
	lines := src.of(f.File)
	hasFrame := frameLine >= 1 && frameLine <= lines.count()
	// The gutter numbers lines as the header does: in a notebook, by line of the cell, and
	// the line above is shown only when it is in the same cell.
	shownLine := frameLine
	if f.Cell > 0 && f.CellLine > 0 {
		shownLine = f.CellLine
	}

	width := len(strconv.Itoa(max(shownLine, 1)))
	pad := strings.Repeat(" ", width)
	bar := pal.gutter.Sprint("|")
	emptyGutter := pad + " " + bar

	if hasFrame {
		b.WriteString(emptyGutter + "\n")
		if frameLine > 1 && shownLine > 1 {
			writeSourceLine(b, shownLine-1, width, lines.line(frameLine-1), pal)
		}
		text := lines.line(frameLine)
		writeSourceLine(b, shownLine, width, text, pal)

		col, endCol := textColumns(f)
		if f.EndLine > f.Line {
			// Only the first line is shown: underline from the column to its end.
			endCol = utf8.RuneCountInString(text) + 1
		}
		start, n := caretSpan(text, col, endCol)
		sev := pal.forSeverity(f.Severity)
		b.WriteString(emptyGutter + " " + strings.Repeat(" ", start) + sev.Sprint(strings.Repeat("^", n)))
		if f.Label != "" {
			b.WriteString(" " + sev.Sprint(printable(f.Label)))
		}
		b.WriteByte('\n')
		b.WriteString(emptyGutter + "\n")
	}

	eq := pad + " " + pal.gutter.Sprint("=") + " "
	for _, r := range f.Related {
		loc := printable(r.File) + ":" + strconv.Itoa(r.Line)
		col := r.Column
		if r.Cell > 0 {
			loc = printable(r.File) + ":cell " + strconv.Itoa(r.Cell) + ":line " + strconv.Itoa(r.CellLine)
			col = r.CellColumn
		}
		if col > 0 {
			loc += ":" + strconv.Itoa(col)
		}
		b.WriteString(eq + pal.help.Sprint("note") + ": " + loc + ": " + printableMultiline(r.Message) + "\n")
	}
	if f.Help != "" {
		b.WriteString(eq + pal.help.Sprint("help") + ": " + printableMultiline(f.Help) + "\n")
	}
	if f.Cost != "" {
		b.WriteString(eq + pal.help.Sprint("cost") + ": " + printableMultiline(f.Cost) + "\n")
	}
}

func writeSourceLine(b *bytes.Buffer, n, width int, text string, pal palette) {
	shown := expand(text)
	num := pal.gutter.Sprint(fmt.Sprintf("%*d", width, n))
	if shown == "" {
		b.WriteString(num + " " + pal.gutter.Sprint("|") + "\n")
		return
	}
	b.WriteString(num + " " + pal.gutter.Sprint("|") + " " + shown + "\n")
}

// frameSources are the texts of the files whose findings print frames, each read and its
// lines found once (splitting a file's whole text for each of its findings was most of a
// warm run's printing: 13 ms for 140 findings).
type frameSources struct {
	rep   *report.Report
	files map[string]*sourceText
}

// sourceText is a file's text and where each of its lines starts (lines end at "\n").
type sourceText struct {
	src    []byte
	starts []int
}

// of returns file's text (no lines when the report has none for it).
func (fs *frameSources) of(file string) *sourceText {
	if t, ok := fs.files[file]; ok {
		return t
	}
	t := &sourceText{}
	if fs.rep != nil && fs.rep.Source != nil {
		if src := fs.rep.Source(file); src != nil {
			t.src, t.starts = src, []int{0}
			for i, c := range src {
				if c == '\n' {
					t.starts = append(t.starts, i+1)
				}
			}
		}
	}
	fs.files[file] = t
	return t
}

// count is the number of lines.
func (t *sourceText) count() int { return len(t.starts) }

// line is line n (1-based, at most count) without its terminator.
func (t *sourceText) line(n int) string {
	end := len(t.src)
	if n < len(t.starts) {
		end = t.starts[n] - 1
	}
	return strings.TrimSuffix(string(t.src[t.starts[n-1]:end]), "\r")
}

// displayOffsets returns, for each code point index i of text (and len), the display
// column before it once tabs are expanded; every other code point is one column wide.
func displayOffsets(text string) []int {
	offs := make([]int, 0, len(text)+1)
	cur := 0
	for _, r := range text {
		offs = append(offs, cur)
		if r == '\t' {
			cur += tabStop - cur%tabStop
		} else {
			cur++
		}
	}
	return append(offs, cur)
}

// caretSpan converts a 1-based code point span [col, endCol) into the display column where
// carets start and how many to draw (at least one, so an empty span is still visible).
func caretSpan(text string, col, endCol int) (start, n int) {
	offs := displayOffsets(text)
	last := len(offs) - 1
	at := func(c int) int {
		i := max(c-1, 0)
		if i > last {
			return offs[last] + (i - last)
		}
		return offs[i]
	}
	start = at(col)
	end := at(endCol)
	return start, max(end-start, 1)
}

// expand replaces tabs with spaces up to the next tab stop and control characters with
// their Unicode pictures, keeping one column per code point so carets stay aligned and
// the source cannot write terminal escapes.
func expand(text string) string {
	var sb strings.Builder
	cur := 0
	for _, r := range text {
		if r == '\t' {
			w := tabStop - cur%tabStop
			sb.WriteString(strings.Repeat(" ", w))
			cur += w
			continue
		}
		sb.WriteRune(picture(r))
		cur++
	}
	return sb.String()
}

// picture maps a C0 control character or DEL to its Unicode control picture (U+2400...).
func picture(r rune) rune {
	switch {
	case r < 0x20:
		return 0x2400 + r
	case r == 0x7f:
		return 0x2421
	}
	return r
}

// printable neutralises control characters (tabs included) in one-line text such as
// file names and labels.
func printable(s string) string {
	return strings.Map(picture, s)
}

// printableMultiline keeps line breaks in messages but neutralises every other control
// character; a message is ours, but it quotes user source.
func printableMultiline(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		return picture(r)
	}, s)
}
