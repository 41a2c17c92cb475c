package allocconf

import "strings"

type tokKind int

const (
	tokWord tokKind = iota
	tokColon
	tokComma
	tokOpen
	tokClose
)

// token is one lexeme of a config value. Start and End are byte offsets into the value as
// written (End exclusive) and span the token's first to last kept byte, so a caret under
// a finding covers exactly what PyTorch reads as that token.
type token struct {
	kind       tokKind
	text       string
	start, end int
	// hole: part of the token comes from an f-string field or a non-literal operand.
	hole bool
	// ctrlSpace: the token kept a tab, newline, CR, VT or FF (the legacy lexer drops only
	// ' '), or such a character was dropped inside it (the modern lexer).
	ctrlSpace bool
}

// isCSpace is C's isspace in the "C" locale, which ConfigTokenizer uses.
func isCSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
}

// tokenize splits a config value the way PyTorch does: ',', ':', '[' and ']' are tokens of
// their own, everything else accumulates into words. The legacy lexer
// (CUDAAllocatorConfig::lexArgs, <=2.9) drops only ' '; ConfigTokenizer (>=2.10) drops
// every isspace character. Bytes inside holes are never separators: their text is unknown.
func tokenize(text string, hole []bool, legacy bool) []token {
	var toks []token
	var cur *token
	var buf strings.Builder
	flush := func() {
		if cur != nil {
			cur.text = buf.String()
			toks = append(toks, *cur)
			cur = nil
			buf.Reset()
		}
	}
	for i := 0; i < len(text); i++ {
		b := text[i]
		inHole := hole != nil && hole[i]
		if !inHole {
			var k tokKind = -1
			switch b {
			case ',':
				k = tokComma
			case ':':
				k = tokColon
			case '[':
				k = tokOpen
			case ']':
				k = tokClose
			}
			if k >= 0 {
				flush()
				toks = append(toks, token{kind: k, text: string(b), start: i, end: i + 1})
				continue
			}
			dropped := b == ' ' || (!legacy && isCSpace(b))
			if dropped {
				if cur != nil && b != ' ' {
					cur.ctrlSpace = true
				}
				continue
			}
		}
		if cur == nil {
			cur = &token{kind: tokWord, start: i}
		}
		if inHole {
			cur.hole = true
		} else if isCSpace(b) {
			cur.ctrlSpace = true
		}
		buf.WriteByte(b)
		cur.end = i + 1
	}
	flush()
	return toks
}

// stripCSpace removes every isspace byte, which is what the modern lexer would have read.
func stripCSpace(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if !isCSpace(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
