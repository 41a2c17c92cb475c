package suppress

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/cachelint/cachelint/internal/suppress/pylex"
	"github.com/cachelint/cachelint/rules"
)

// Warning is a directive that was not understood or is misplaced; it suppresses nothing.
type Warning struct {
	Line    int // 1-based
	Message string
}

// Unused is a directive, or some of its codes, that suppressed no finding.
type Unused struct {
	Line      int    // 1-based
	Directive string // the directive as written, e.g. "# noqa: CL001, E501"
	// Codes lists the cachelint codes that suppressed nothing; empty for a file-level
	// blanket directive that suppressed nothing.
	Codes []string
}

type kind uint8

const (
	noqaAll   kind = iota // # noqa
	noqaCodes             // # noqa: CODES
	ignore                // # cachelint: ignore[CODES]
	fileAll               // # cachelint: noqa-file
	fileCodes             // # cachelint: noqa-file: CODES
)

type directive struct {
	kind  kind
	line  int
	codes []string
	text  string
	// start and end are byte offsets within the line of the directive's '#' and of the end
	// of its last code; AddNoqa rewrites that range when merging codes.
	start, end int
	used       map[string]bool
	usedAll    bool
}

func (d *directive) covers(code string) bool {
	switch d.kind {
	case noqaAll, fileAll:
		return true
	}
	for _, c := range d.codes {
		if c == code {
			return true
		}
	}
	return false
}

func (d *directive) markUsed(code string) {
	d.usedAll = true
	if d.used == nil {
		d.used = map[string]bool{}
	}
	d.used[code] = true
}

// srcLine is what AddNoqa and the own-line rule need to know about one source line.
type srcLine struct {
	start, end int // content bytes, without the line ending
	// commentable reports that a comment can be appended: the line does not end inside a
	// string literal or with a backslash continuation.
	commentable bool
	// code reports that the line holds code (not blank, not only a comment, not the inside
	// of a string literal).
	code bool
	noqa *directive // the line's first valid `# noqa` directive, if any
}

type span struct{ first, last int }

// Directives holds the suppression comments of one file. It records which directives were
// used, so a value belongs to one goroutine and one pass over the file's findings.
type Directives struct {
	lines    []srcLine // lines[0] is line 1
	byLine   map[int][]*directive
	nextLine map[int][]*directive // own-line `cachelint: ignore` directives, by target line
	file     []*directive
	all      []*directive
	spans    []span
	warnings []Warning
}

// Parse reads the suppression directives of a Python file. It never fails: anything it
// cannot understand becomes a Warning.
func Parse(src []byte) *Directives {
	d := &Directives{byLine: map[int][]*directive{}, nextLine: map[int][]*directive{}}
	var sc pylex.Scanner
	var ownLine []*directive
	prevInString, prevStringLine := false, 0
	for off, n := 0, 1; off < len(src); n++ {
		next := len(src)
		end := bytes.IndexByte(src[off:], '\n')
		if end >= 0 {
			next = off + end + 1
		} else {
			end = len(src) - off
		}
		content := src[off : off+end]
		info := sc.Line(content)
		body := bytes.TrimSuffix(content, []byte("\r"))
		ln := srcLine{start: off, end: off + len(body), commentable: !info.InString && !info.Continues && !info.Unterminated}
		lead := leadingSpace(body, n == 1)
		ln.code = !prevInString && lead < len(body) && body[lead] != '#'
		if prevInString && (!info.InString || info.StringLine != prevStringLine) {
			d.spans = append(d.spans, span{prevStringLine, n})
		}
		if info.Continues {
			d.spans = append(d.spans, span{n, n + 1})
		}
		prevInString, prevStringLine = info.InString, info.StringLine
		if info.Comment >= 0 {
			own := info.Clean && info.Comment == lead
			for _, dir := range d.parseComment(n, body, info.Comment, own) {
				switch {
				case dir.kind == fileAll || dir.kind == fileCodes:
					d.file = append(d.file, dir)
				case dir.kind == ignore && own:
					ownLine = append(ownLine, dir)
				default:
					d.byLine[n] = append(d.byLine[n], dir)
					if ln.noqa == nil && (dir.kind == noqaAll || dir.kind == noqaCodes) {
						ln.noqa = dir
					}
				}
				d.all = append(d.all, dir)
			}
		}
		d.lines = append(d.lines, ln)
		off = next
	}
	d.spans = mergeSpans(d.spans)
	for _, dir := range ownLine {
		target := 0
		for j := dir.line + 1; j <= len(d.lines); j++ {
			if d.lines[j-1].code {
				target = j
				break
			}
		}
		if target == 0 {
			d.warn(dir.line, "`# cachelint: ignore[...]` on its own line applies to the next line of code, and there is none")
			continue
		}
		d.nextLine[target] = append(d.nextLine[target], dir)
	}
	return d
}

// ParseDirectives is Parse for a file's findings only (Suppressed, Unused, Warnings): a
// file in which no `#` is followed by `noqa` or `cachelint` has no directive, and it is not
// lexed (a warm run checks the suppressions of every file with a finding: lexing them was
// half of its time on a large project). AddNoqa needs Parse.
func ParseDirectives(src []byte) *Directives {
	if mayHaveDirective(src) {
		return Parse(src)
	}
	return &Directives{}
}

// mayHaveDirective reports whether some `#` in src is followed, after spaces, by `noqa` (in
// any case) or `cachelint`: what parseComment looks for, wherever it stands.
func mayHaveDirective(src []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '#')
		if j < 0 {
			return false
		}
		i += j + 1
		k := skipSpace(src, i)
		if hasPrefixFold(src[k:], "noqa") || bytes.HasPrefix(src[k:], []byte("cachelint")) {
			return true
		}
	}
}

// leadingSpace returns the length of the line's indentation; a byte-order mark at the start
// of the file counts as indentation.
func leadingSpace(b []byte, first bool) int {
	i := 0
	if first && bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\f') {
		i++
	}
	return i
}

// mergeSpans sorts spans and joins overlapping ones, so that a backslash continuation into
// a multi-line string (or the reverse) maps to the end of the whole construct.
func mergeSpans(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].first < spans[j].first })
	var out []span
	for _, s := range spans {
		if k := len(out) - 1; k >= 0 && s.first <= out[k].last {
			out[k].last = max(out[k].last, s.last)
			continue
		}
		out = append(out, s)
	}
	return out
}

// NoqaLine returns the line whose comment governs findings reported on line: the line
// itself, or the last line of the multi-line string or backslash-continued line it is in.
func (d *Directives) NoqaLine(line int) int {
	i := sort.Search(len(d.spans), func(i int) bool { return d.spans[i].last >= line })
	if i < len(d.spans) && d.spans[i].first <= line {
		last := d.spans[i].last
		if last > len(d.lines) {
			last = len(d.lines)
		}
		return last
	}
	return line
}

// Suppressed reports whether a finding with code on the given 1-based line is suppressed,
// and records the directive that suppressed it as used.
func (d *Directives) Suppressed(code string, line int) bool {
	if dir := d.match(code, line); dir != nil {
		dir.markUsed(code)
		return true
	}
	return false
}

func (d *Directives) match(code string, line int) *directive {
	for _, dir := range d.file {
		if dir.covers(code) {
			return dir
		}
	}
	for _, dir := range d.byLine[d.NoqaLine(line)] {
		if dir.covers(code) {
			return dir
		}
	}
	for _, dir := range d.nextLine[line] {
		if dir.covers(code) {
			return dir
		}
	}
	return nil
}

// Warnings returns the malformed or misplaced directives, by line.
func (d *Directives) Warnings() []Warning {
	out := append([]Warning(nil), d.warnings...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// Unused returns the directives that suppressed none of the findings passed to Suppressed.
// Blanket `# noqa` comments and other tools' codes are left out: they may serve another
// linter. Call it after every finding of the file (for the rules that ran) went through
// Suppressed; a directive for a rule that was not selected would otherwise look unused.
func (d *Directives) Unused() []Unused {
	var out []Unused
	for _, dir := range d.all {
		switch dir.kind {
		case noqaAll:
			continue
		case fileAll:
			if !dir.usedAll {
				out = append(out, Unused{Line: dir.line, Directive: dir.text})
			}
			continue
		}
		var codes []string
		for _, c := range dir.codes {
			if ours(c) && !dir.used[c] {
				codes = append(codes, c)
			}
		}
		if len(codes) > 0 {
			out = append(out, Unused{Line: dir.line, Directive: dir.text, Codes: codes})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// ours reports whether code is a cachelint code (CL followed by digits).
func ours(code string) bool {
	if len(code) < 3 || !strings.HasPrefix(code, "CL") {
		return false
	}
	for i := 2; i < len(code); i++ {
		if code[i] < '0' || code[i] > '9' {
			return false
		}
	}
	return true
}

func (d *Directives) warn(line int, format string, args ...any) {
	d.warnings = append(d.warnings, Warning{Line: line, Message: fmt.Sprintf(format, args...)})
}

// parseComment finds the directives in the comment that starts at body[at]. A comment can
// hold several (`# cachelint: ignore[CL002]  # noqa: E501`); of several `# noqa`s only the
// first valid one counts, as in ruff, so an invalid one does not hide a valid one after it.
func (d *Directives) parseComment(n int, body []byte, at int, own bool) []*directive {
	var out []*directive
	sawNoqa := false
	for i := at; i < len(body); i++ {
		if body[i] != '#' {
			continue
		}
		j := skipSpace(body, i+1)
		switch {
		case !sawNoqa && hasPrefixFold(body[j:], "noqa"):
			dir, err := lexNoqa(body, i, j+len("noqa"))
			if err != "" {
				d.warn(n, "invalid `# noqa` directive: %s", err)
				continue
			}
			dir.line = n
			sawNoqa = true
			out = append(out, dir)
		case bytes.HasPrefix(body[j:], []byte("cachelint")):
			if dir := d.lexCachelint(n, body, i, j+len("cachelint"), own); dir != nil {
				out = append(out, dir)
			}
		}
	}
	return out
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' }

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.EqualFold(string(b[:len(prefix)]), prefix)
}

const codesHint = "expected `:` followed by a comma-separated list of codes (e.g. `# noqa: CL001, CL002`)"

// lexNoqa reads a `# noqa` directive whose '#' is at body[hash] and whose "noqa" ends at p.
func lexNoqa(body []byte, hash, p int) (*directive, string) {
	all := &directive{kind: noqaAll, start: hash, end: p, text: string(body[hash:p])}
	switch {
	case p == len(body) || body[p] == '#':
		return all, ""
	case body[p] == ':':
		p++
	case isSpace(body[p]):
		q := skipSpace(body, p)
		if q == len(body) || body[q] != ':' {
			return all, ""
		}
		p = q + 1
	default:
		return nil, codesHint
	}
	codes, end, err := lexCodes(body, p)
	if err != "" {
		return nil, err
	}
	return &directive{kind: noqaCodes, codes: codes, start: hash, end: end, text: string(body[hash:end])}, ""
}

// lexCodes reads codes (upper-case letters then digits) separated by commas or spaces,
// starting at p, up to the first word that is not a code (an explanation) or a '#'. It
// returns the codes and the offset just past the last one.
func lexCodes(body []byte, p int) ([]string, int, string) {
	var codes []string
	end := p
	for p < len(body) {
		p = skipSpace(body, p)
		if p == len(body) {
			break
		}
		c := body[p]
		if c == ',' {
			p++
			continue
		}
		if !isUpper(c) {
			break
		}
		q := p
		for q < len(body) && isUpper(body[q]) {
			q++
		}
		if q == len(body) || !isDigit(body[q]) {
			break // an explanation such as `# noqa: CL001 Because it runs once`
		}
		for q < len(body) && isDigit(body[q]) {
			q++
		}
		if q < len(body) && !isSpace(body[q]) && body[q] != ',' && body[q] != '#' && !isUpper(body[q]) {
			return nil, 0, fmt.Sprintf("code %q must be upper-case letters followed by digits only (e.g. `CL001`)", tillSpace(body[p:]))
		}
		codes = append(codes, string(body[p:q]))
		p, end = q, q
	}
	if len(codes) == 0 {
		return nil, 0, codesHint
	}
	return codes, end, ""
}

func tillSpace(b []byte) string {
	i := 0
	for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '#' {
		i++
	}
	return string(b[:i])
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexCachelint reads a `# cachelint: ...` directive; p is just past "cachelint".
func (d *Directives) lexCachelint(n int, body []byte, hash, p int, own bool) *directive {
	p = skipSpace(body, p)
	if p == len(body) || body[p] != ':' {
		return nil // "# cachelint is great" is a remark, not a directive
	}
	p = skipSpace(body, p+1)
	rest := body[p:]
	switch {
	case bytes.HasPrefix(rest, []byte("noqa-file")):
		p += len("noqa-file")
		dir := &directive{kind: fileAll, line: n, start: hash, end: p}
		q := skipSpace(body, p)
		switch {
		case q == len(body) || body[q] == '#':
		case body[q] == ':':
			codes, end, err := lexCodes(body, q+1)
			if err != "" {
				d.warn(n, "invalid `# cachelint: noqa-file` directive: %s", strings.Replace(err, "# noqa:", "# cachelint: noqa-file:", 1))
				return nil
			}
			dir.kind, dir.codes, dir.end = fileCodes, codes, end
			d.checkKnown(n, codes)
		default:
			d.warn(n, "invalid `# cachelint: noqa-file` directive: expected nothing or `: CODE, ...` after `noqa-file`")
			return nil
		}
		dir.text = string(body[hash:dir.end])
		if !own {
			d.warn(n, "`# cachelint: noqa-file` must be on a line of its own; for one line use `# noqa: CODE` or `# cachelint: ignore[CODE]`")
			return nil
		}
		return dir
	case bytes.HasPrefix(rest, []byte("ignore")):
		q := skipSpace(body, p+len("ignore"))
		if q == len(body) || body[q] != '[' {
			d.warn(n, "invalid `# cachelint: ignore` directive: expected codes in brackets (e.g. `# cachelint: ignore[CL001]`); `# noqa` suppresses everything")
			return nil
		}
		close := bytes.IndexByte(body[q:], ']')
		if close < 0 {
			d.warn(n, "invalid `# cachelint: ignore` directive: missing `]`")
			return nil
		}
		end := q + close + 1
		codes := d.ruleList(n, string(body[q+1:end-1]))
		if len(codes) == 0 {
			if len(strings.TrimSpace(string(body[q+1:end-1]))) == 0 {
				d.warn(n, "`# cachelint: ignore[]` names no rule")
			}
			return nil
		}
		return &directive{kind: ignore, line: n, codes: codes, start: hash, end: end, text: string(body[hash:end])}
	default:
		d.warn(n, "unknown `# cachelint:` directive %q (expected `ignore[CODE, ...]` or `noqa-file`)", tillSpace(rest))
		return nil
	}
}

// ruleList resolves a bracketed list of codes or rule names.
func (d *Directives) ruleList(n int, list string) []string {
	var codes []string
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if r, ok := rules.Lookup(item); ok {
			codes = append(codes, r.Code)
			continue
		}
		if isCode(item) {
			codes = append(codes, item)
		}
		d.warn(n, "`# cachelint: ignore[...]`: unknown rule %q", item)
	}
	return codes
}

func (d *Directives) checkKnown(n int, codes []string) {
	for _, c := range codes {
		if _, ok := rules.Lookup(c); !ok {
			d.warn(n, "`# cachelint: noqa-file`: unknown rule %q", c)
		}
	}
}

// isCode reports whether s has the shape of a rule code: upper-case letters, then digits.
func isCode(s string) bool {
	i := 0
	for i < len(s) && isUpper(s[i]) {
		i++
	}
	if i == 0 || i == len(s) {
		return false
	}
	for ; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
