package cli

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// defaultWidth is the width `explain` wraps to when the output is no terminal.
const defaultWidth = 80

// minWidth keeps a very narrow terminal from wrapping every word onto its own line.
const minWidth = 40

// outputWidth is the width to wrap text for w: $COLUMNS when set (as man and ls read it),
// else the terminal's width when w is a terminal, else 80.
func outputWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return max(n, minWidth)
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return max(n, minWidth)
		}
	}
	return defaultWidth
}

// linkDef is a Markdown link reference definition: "[1]: https://...".
var linkDef = regexp.MustCompile(`^\[[^\]]+\]:\s`)

// listItem is a Markdown list marker with the spaces after it: "- ", "* ", "12. ".
var listItem = regexp.MustCompile(`^(\s*)([-*+]|\d+[.)])\s+`)

// wrapMarkdown re-flows the prose of a Markdown document to width columns (code points)
// and keeps the rest as written: fenced and indented code, tables, headings and link
// definitions are never broken, since a broken code line or table row would be wrong. A
// list item's continuation lines hang under its text; a block quote keeps its "> ". A
// word longer than the width stays whole on its own line.
func wrapMarkdown(doc string, width int) string {
	var out strings.Builder
	var para []string     // words of the paragraph being gathered
	first, rest := "", "" // the paragraph's first-line prefix and continuation prefix
	flush := func() {
		if len(para) > 0 {
			writeWrapped(&out, para, first, rest, width)
		}
		para, first, rest = nil, "", ""
	}
	fence := ""
	for _, line := range strings.Split(strings.TrimSuffix(doc, "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			out.WriteString(line + "\n")
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			flush()
			fence = trimmed[:3]
			out.WriteString(line + "\n")
			continue
		case trimmed == "":
			flush()
			out.WriteString("\n")
			continue
		case strings.HasPrefix(trimmed, "#"), strings.HasPrefix(trimmed, "|"), linkDef.MatchString(trimmed):
			// Headings, table rows, link definitions: one line each, as written.
			flush()
			out.WriteString(line + "\n")
			continue
		}
		if m := listItem.FindStringSubmatch(line); m != nil {
			flush()
			first = m[0]
			rest = strings.Repeat(" ", utf8.RuneCountInString(m[0]))
			para = strings.Fields(line[len(m[0]):])
			continue
		}
		if q, ok := strings.CutPrefix(trimmed, ">"); ok {
			if len(para) == 0 || first != "> " {
				flush()
				first, rest = "> ", "> "
			}
			para = append(para, strings.Fields(q)...)
			continue
		}
		if len(para) == 0 && strings.HasPrefix(line, "    ") {
			// Indented code: verbatim.
			out.WriteString(line + "\n")
			continue
		}
		para = append(para, strings.Fields(line)...)
	}
	flush()
	return out.String()
}

// writeWrapped writes words greedily into lines of at most width code points, the first
// line after first and the others after rest.
func writeWrapped(out *strings.Builder, words []string, first, rest string, width int) {
	prefix := first
	line := prefix
	n := utf8.RuneCountInString(prefix)
	empty := true
	for _, w := range words {
		wl := utf8.RuneCountInString(w)
		if !empty && n+1+wl > width {
			out.WriteString(line + "\n")
			prefix = rest
			line, n, empty = prefix, utf8.RuneCountInString(prefix), true
		}
		if !empty {
			line += " "
			n++
		}
		line += w
		n += wl
		empty = false
	}
	out.WriteString(line + "\n")
}
