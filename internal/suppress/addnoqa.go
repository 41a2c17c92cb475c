package suppress

import (
	"bytes"
	"maps"
	"slices"
	"sort"
	"strings"
)

// AddNoqa adds `# noqa: CODE` comments so that the findings in want (1-based line -> codes)
// are suppressed, the way `ruff check --add-noqa` does, and returns the new text and the
// number of lines changed.
//
// A code already suppressed (by any directive, file-level ones included) is skipped, so the
// operation is idempotent. On a line that has a `# noqa: X` the codes are merged and sorted
// (`# noqa: CL001, X`), keeping any explanation after them; otherwise `  # noqa: CODE` is
// appended after the line's code and any comment it has. A finding inside a multi-line string
// or a backslash-continued line gets its comment on the construct's last line. Line endings
// (LF or CRLF, per line) and a missing final newline are kept. Lines out of range, lines that
// end inside an unterminated string (where no comment can go) and codes that are not
// upper-case letters followed by digits are left alone.
func AddNoqa(src []byte, want map[int][]string) ([]byte, int) {
	d := Parse(src)
	add := map[int]map[string]bool{}
	for line, codes := range want {
		if line < 1 || line > len(d.lines) {
			continue
		}
		target := d.NoqaLine(line)
		for _, code := range codes {
			if !isCode(code) || d.match(code, line) != nil {
				continue
			}
			if add[target] == nil {
				add[target] = map[string]bool{}
			}
			add[target][code] = true
		}
	}
	targets := make([]int, 0, len(add))
	for t := range add {
		if d.lines[t-1].commentable {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return src, 0
	}
	sort.Ints(targets)

	var out bytes.Buffer
	out.Grow(len(src) + 16*len(targets))
	last := 0
	for _, t := range targets {
		ln := d.lines[t-1]
		codes := add[t]
		body := src[ln.start:ln.end]
		var keep []byte // the part of the line before the new directive
		var tail []byte // what follows the directive on the line (an explanation)
		if ln.noqa != nil && ln.noqa.kind == noqaCodes {
			for _, c := range ln.noqa.codes {
				codes[c] = true
			}
			keep, tail = body[:ln.noqa.start], body[ln.noqa.end:]
		} else {
			keep = body
		}
		trimmed := bytes.TrimRight(keep, " \t\f\v")
		out.Write(src[last:ln.start])
		out.Write(trimmed)
		if len(bytes.TrimLeft(trimmed, " \t\f\v\xef\xbb\xbf")) > 0 {
			out.WriteString("  ")
		} else if len(trimmed) == 0 {
			out.Write(keep) // keep the indentation of a comment on its own line
		}
		out.WriteString("# noqa: ")
		out.WriteString(strings.Join(slices.Sorted(maps.Keys(codes)), ", "))
		out.Write(tail)
		last = ln.end
	}
	out.Write(src[last:])
	return out.Bytes(), len(targets)
}
