package pyparse

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// identSet answers "does this file mention any of these names?" in one pass over its bytes:
// it splits the text into identifier-like runs and looks each run up, so the cost is the same
// for six names or six hundred (helper names found in a later round). Names must be Python
// identifiers; two identifiers joined by a dot ("accelerator.clear"), which a file mentions
// when it mentions both (a method whose name alone is everywhere); an ImportedName
// ("import utils.cleanup"), which a file mentions when an import statement of it names the
// module part and the name is mentioned anywhere; or a TextName ("text
// PYTORCH_CUDA_ALLOC_CONF"), which a file mentions in its code or anywhere in a string.
//
// A mention is a whole token where the program can name something: code, an f-string (its
// replacement fields are code; the whole string is read as such), or a string that is
// one identifier and nothing else (`getattr(torch.cuda, "empty_cache")`, `__all__ =
// ["cleanup"]`). Comments and other strings are not (docstrings that name a helper, code
// kept in strings for exec), except for text names. The lexer knows Python's comments and
// string literals (prefixes, triple quotes, backslashes); where it could go wrong (a stray
// quote in a broken file), a line at most is misread.
type identSet struct {
	names          map[string]struct{}
	bits           [][2]uint32         // each single name's two signature hashes
	textBits       [][2]uint32         // each text name's, as code (a string's word: wordBits)
	texts          map[string]struct{} // text names: mentioned in strings too
	pairs          [][2]string         // dotted names: both parts must be mentioned
	pairBits       [][2][2]uint32
	pairImport     []bool           // the pair's first part must be mentioned in an import statement
	pairPart       map[string][]int // part -> indexes into pairs
	first          [256]bool
	minLen, maxLen int
	all            bool // an empty name: every file matches
}

// ImportedName is the needle for a file that may call name from a module: one whose import
// statements name module (`from utils.memory import cleanup`, `import utils.memory as m`,
// `from . import memory`) and which mentions name. A file that calls a module's function
// imports something of that module's dotted path, so this finds every caller, without the
// files that merely use the same word for other things (`cleanup`, `train`).
func ImportedName(module, name string) string { return importPrefix + module + "." + name }

const importPrefix = "import "

// TextName is the needle for a file that mentions name in its code or in any string: an
// environment variable is named by a string (`os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ...`,
// `"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python train.py"`).
func TextName(name string) string { return textPrefix + name }

const textPrefix = "text "

var identChar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	return t
}()

func newIdentSet(names []string) *identSet {
	s := &identSet{names: map[string]struct{}{}, minLen: 1 << 30}
	for _, n := range names {
		if n == "" {
			s.all = true
			continue
		}
		if t, ok := strings.CutPrefix(n, textPrefix); ok {
			if s.texts == nil {
				s.texts = map[string]struct{}{}
			}
			s.texts[t] = struct{}{}
			s.textBits = append(s.textBits, sigBits(t))
			s.first[t[0]] = true
			s.minLen = min(s.minLen, len(t))
			s.maxLen = max(s.maxLen, len(t))
			continue
		}
		imported := strings.HasPrefix(n, importPrefix)
		n = strings.TrimPrefix(n, importPrefix)
		if recv, meth, ok := strings.Cut(n, "."); ok && recv != "" && meth != "" {
			if s.pairPart == nil {
				s.pairPart = map[string][]int{}
			}
			i := len(s.pairs)
			s.pairs = append(s.pairs, [2]string{recv, meth})
			s.pairImport = append(s.pairImport, imported)
			s.pairBits = append(s.pairBits, [2][2]uint32{sigBits(recv), sigBits(meth)})
			for _, part := range []string{recv, meth} {
				s.pairPart[part] = append(s.pairPart[part], i)
				s.first[part[0]] = true
				s.minLen = min(s.minLen, len(part))
				s.maxLen = max(s.maxLen, len(part))
			}
			continue
		}
		s.names[n] = struct{}{}
		s.bits = append(s.bits, sigBits(n))
		s.first[n[0]] = true
		s.minLen = min(s.minLen, len(n))
		s.maxLen = max(s.maxLen, len(n))
	}
	return s
}

// Matcher reports whether a text would matter to a run that searched for needles and left
// the file unparsed: it mentions one of the needles, as ParseMatching decides whether to
// parse a file (the same names, pairs, imported and text names), or it answers one of the
// questions the run asked MayImport about the file (asked: name -> the answer the run got)
// otherwise.
func Matcher(needles []string) func(src []byte, asked map[string]bool) bool {
	set := newIdentSet(needles)
	return func(src []byte, asked map[string]bool) bool {
		if len(asked) == 0 {
			return set.scan(src, nil, false)
		}
		sig := new(signature)
		if set.scan(src, sig, false) {
			return true
		}
		// sig is complete: a text that mentions no needle is scanned to its end.
		for name, yes := range asked {
			may := sig.star
			if bound, ok := strings.CutPrefix(name, "="); ok { // MayBind's question
				may = may || sig.has(sigBits(bound))
			} else {
				may = may || sig.hasImport(sigBits(name))
			}
			if may != yes {
				return true
			}
		}
		return false
	}
}

// signature is a Bloom filter of the identifiers of a file's code and strings (not its
// comments: every word a mention can be; a string's words hashed apart, stringWord), and a quarter-size one of those its import
// statements mention, kept for files that did not match so that a later round (new helper
// names) re-reads only the files that may mention them, and the analysis asks whether a
// module may re-export a name (Result.MayImport) without reading it: a bit per 4 bytes
// of the file (at least 4096) instead of its text. Sized to the file, the filter stays
// sparse: at a fixed 4096 bits every file over ~20 KB let through most names, and unsloth
// re-read 868 files (52 MB) in later rounds only to find they mention none.
type signature struct {
	all []uint64
	imp []uint64
	// star: an import statement imports every name of a module (`from .memory import *`).
	star bool
}

// Signature sizes, in 64-bit words: the smallest and the largest filter over all identifiers.
const (
	sigMinWords = 64
	sigMaxWords = 1 << 14
)

// size makes sig empty, sized for a text of n bytes.
func (sig *signature) size(n int) {
	words := sigMinWords
	for words*64*4 < n && words < sigMaxWords {
		words *= 2
	}
	sig.all, sig.imp, sig.star = make([]uint64, words), make([]uint64, words/4), false
}

// sigBits hashes a name to its two filter positions, before they are reduced to a filter's
// size (a power of two: the low bits of each).
func sigBits(name string) [2]uint32 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return [2]uint32{uint32(h), uint32(h >> 32)}
}

// scan reports whether src mentions one of the names, and fills sig (sized for src; nil for
// none) with every identifier of src that can be a mention (code, and strings' words): a
// file that mentions none is scanned to its end, so its signature is complete; one that
// does is scanned to its first mention only, unless whole is set.
//
// An import statement starts at the keyword `import` or `from` (anywhere in code: `raise e
// from x` counts too, which only errs toward a file too many) and runs to the end of its
// logical line: a newline outside brackets and not after a backslash, or a `;`.
func (s *identSet) scan(src []byte, sig *signature, whole bool) bool {
	sc := scanner{set: s, sig: sig, found: s.all}
	whole = whole && sig != nil
	if sig != nil {
		sig.size(len(src))
		sc.allMask, sc.impMask = uint64(len(sig.all)*64-1), uint64(len(sig.imp)*64-1)
	}
	depth, lastSignificant := 0, byte(0)
	n := len(src)
	// A file that mentions a name is parsed, and its signature dropped unless whole: the
	// scan ends there.
	for i := 0; i < n && (!sc.found || whole); {
		c := src[i]
		if identChar[c] {
			j := i + 1
			for j < n && identChar[src[j]] {
				j++
			}
			if j < n && (src[j] == '"' || src[j] == '\'') && isStringPrefix(src[i:j]) {
				i, lastSignificant = sc.str(src, j, src[i:j]), '"'
				continue
			}
			lastSignificant = 'a'
			sc.mention(src, i, j, true)
			if l := j - i; (l == 6 && string(src[i:j]) == "import") || (l == 4 && string(src[i:j]) == "from") {
				sc.inImport, depth = true, 0
			}
			i = j
			continue
		}
		switch c {
		case '#':
			// A comment runs to the end of its line; the line break is read as usual.
			for i < n && src[i] != '\n' && src[i] != '\r' {
				i++
			}
			continue
		case '"', '\'':
			i, lastSignificant = sc.str(src, i, nil), '"'
			continue
		}
		if sc.inImport {
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case '*':
				if sig != nil {
					sig.star = true
				}
			case ';':
				sc.inImport = depth > 0
			case '\n':
				sc.inImport = depth > 0 || lastSignificant == '\\'
			}
			if c != ' ' && c != '\t' && c != '\r' {
				lastSignificant = c
			}
		}
		i++
	}
	return sc.found
}

// scanner is one scan's state.
type scanner struct {
	set              *identSet
	sig              *signature
	allMask, impMask uint64
	seen             map[int]uint8 // pair index -> parts seen (bit 0 receiver, bit 1 method)
	found, inImport  bool
}

// mention takes the identifier src[i:j] into the signature, and as a mention of the names
// when it stands in code (of the text names only otherwise).
func (sc *scanner) mention(src []byte, i, j int, code bool) {
	s := sc.set
	if l := j - i; !sc.found && l >= s.minLen && l <= s.maxLen && s.first[src[i]] {
		tok := string(src[i:j])
		if _, ok := s.texts[tok]; ok {
			sc.found = true
		}
		if code {
			if _, ok := s.names[tok]; ok {
				sc.found = true
			}
			for _, pi := range s.pairPart[tok] {
				if sc.seen == nil {
					sc.seen = map[int]uint8{}
				}
				if s.pairs[pi][0] == tok && (sc.inImport || !s.pairImport[pi]) {
					sc.seen[pi] |= 1
				}
				if s.pairs[pi][1] == tok {
					sc.seen[pi] |= 2
				}
				sc.found = sc.found || sc.seen[pi] == 3
			}
		}
	}
	sig := sc.sig
	if sig == nil {
		return
	}
	h := uint64(14695981039346656037)
	for k := i; k < j; k++ {
		h ^= uint64(src[k])
		h *= 1099511628211
	}
	if !code {
		h ^= stringWord // a string's word: told from the same name in code (wordBits)
	}
	a, b := h&sc.allMask, (h>>32)&sc.allMask
	sig.all[a>>6] |= 1 << (a & 63)
	sig.all[b>>6] |= 1 << (b & 63)
	if sc.inImport && code {
		a, b = h&sc.impMask, (h>>32)&sc.impMask
		sig.imp[a>>6] |= 1 << (a & 63)
		sig.imp[b>>6] |= 1 << (b & 63)
	}
}

// words takes every identifier-like run of src[i:j].
func (sc *scanner) words(src []byte, i, j int, code bool) {
	for i < j {
		if !identChar[src[i]] {
			i++
			continue
		}
		k := i + 1
		for k < j && identChar[src[k]] {
			k++
		}
		sc.mention(src, i, k, code)
		i = k
	}
}

// str reads the string literal whose opening quote is at q (prefix its letters: "f", "rb",
// nil for none) and returns the offset after it. An f-string's text is read as code (its
// replacement fields are), and so is an unterminated triple-quoted one; a string that is
// one identifier is a mention of it, any other string only of the text names.
func (sc *scanner) str(src []byte, q int, prefix []byte) int {
	n, quote := len(src), src[q]
	triple := q+2 < n && src[q+1] == quote && src[q+2] == quote
	start := q + 1
	if triple {
		start = q + 3
	}
	end, after := n, n
	for k := start; k < n; k++ {
		c := src[k]
		if c == '\\' {
			// A backslash keeps the next character (a quote, a line break) in the string,
			// raw strings included.
			if k+2 < n && src[k+1] == '\r' && src[k+2] == '\n' {
				k++
			}
			k++
			continue
		}
		if c == quote && (!triple || k+2 < n && src[k+1] == quote && src[k+2] == quote) {
			end, after = k, k+1
			if triple {
				after = k + 3
			}
			break
		}
		if !triple && (c == '\n' || c == '\r') {
			end, after = k, k // unterminated: it ends with its line
			break
		}
	}
	switch {
	case bytes.ContainsAny(prefix, "fFtT"), triple && after == n && end == n:
		// A triple-quoted string that never ends is a broken file, whose parse reads on:
		// the rest of it is read as code.
		sc.words(src, start, end, true)
	case isIdentifier(src[start:end]):
		sc.mention(src, start, end, true)
	default:
		sc.words(src, start, end, false)
	}
	return after
}

// isStringPrefix reports whether an identifier run directly before a quote is a string
// literal's prefix (r, b, u, f, t and their pairs, in either case).
func isStringPrefix(p []byte) bool {
	if len(p) == 0 || len(p) > 2 {
		return false
	}
	var seen [2]byte
	for i, c := range p {
		c |= 0x20 // lower case
		if !strings.ContainsRune("rbuft", rune(c)) {
			return false
		}
		seen[i] = c
	}
	return len(p) == 1 || seen[0] != seen[1] && (seen[0] == 'r' || seen[1] == 'r') && seen[0] != 'u' && seen[1] != 'u'
}

// isIdentifier reports whether b is one identifier-like run and nothing else.
func isIdentifier(b []byte) bool {
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		return false
	}
	for _, c := range b {
		if !identChar[c] {
			return false
		}
	}
	return true
}

// mayMention reports whether a file with this signature can mention one of the names.
func (s *identSet) mayMention(sig *signature) bool {
	if s.all {
		return true
	}
	for _, b := range s.bits {
		if sig.has(b) {
			return true
		}
	}
	for _, b := range s.textBits {
		if sig.has(b) || sig.has(wordBits(b)) {
			return true
		}
	}
	for i, pb := range s.pairBits {
		first := sig.has(pb[0])
		if s.pairImport[i] {
			first = sig.hasImport(pb[0])
		}
		if first && sig.has(pb[1]) {
			return true
		}
	}
	return false
}

func (sig *signature) has(b [2]uint32) bool { return hasBits(sig.all, b) }

// stringWord is mixed into the hash of a word of a string (not a string that is one name
// alone, which is a mention): the signature tells a name in code from the same word in a
// docstring, so that a module naming a class in its docstring's example only
// (`>>> from transformers import AutoTokenizer`) is known not to bind it (MayBind), while
// a text name (an allocator variable, which counts in any string) finds both.
const stringWord = 0x9e3779b97f4a7c15

// wordBits are the signature hashes of name as a string's word, from its hashes as code.
func wordBits(b [2]uint32) [2]uint32 {
	h := (uint64(b[1])<<32 | uint64(b[0])) ^ stringWord
	return [2]uint32{uint32(h), uint32(h >> 32)}
}

func (sig *signature) hasImport(b [2]uint32) bool { return hasBits(sig.imp, b) }

// hasBits reports whether both of a name's positions are set in filter.
func hasBits(filter []uint64, b [2]uint32) bool {
	m := uint32(len(filter)*64 - 1)
	x, y := b[0]&m, b[1]&m
	return filter[x>>6]&(1<<(x&63)) != 0 && filter[y>>6]&(1<<(y&63)) != 0
}

// sigFormat starts an encoded signature (appendSignature); it changes whenever the filter's
// layout or hashing does, so that a signature kept by another build is never misread.
const sigFormat = 2

// appendSignature appends sig, encoded: the format, the star flag, the filter's size in
// words, then the words of both filters, little-endian.
func appendSignature(out []byte, sig *signature) []byte {
	star := byte(0)
	if sig.star {
		star = 1
	}
	out = append(out, sigFormat, star)
	out = binary.AppendUvarint(out, uint64(len(sig.all)))
	for _, w := range sig.all {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	for _, w := range sig.imp {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	return out
}

// decodeSignature reads what appendSignature wrote; nil for anything else (another format,
// a size no text gives, a cut or padded entry).
func decodeSignature(data []byte) *signature {
	if len(data) < 3 || data[0] != sigFormat || data[1] > 1 {
		return nil
	}
	words, n := binary.Uvarint(data[2:])
	if n <= 0 || words < sigMinWords || words > sigMaxWords || words&(words-1) != 0 {
		return nil
	}
	body := data[2+n:]
	if uint64(len(body)) != 8*(words+words/4) {
		return nil
	}
	sig := &signature{all: make([]uint64, words), imp: make([]uint64, words/4), star: data[1] == 1}
	for i := range sig.all {
		sig.all[i] = binary.LittleEndian.Uint64(body[8*i:])
	}
	body = body[8*words:]
	for i := range sig.imp {
		sig.imp[i] = binary.LittleEndian.Uint64(body[8*i:])
	}
	return sig
}
