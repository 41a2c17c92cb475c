package pyparse

import "strings"

// identSet answers "does this file mention any of these names?" in one pass over its bytes:
// it splits the text into identifier-like runs and looks each run up, so the cost is the same
// for six names or six hundred (helper names found in a later round). Names must be Python
// identifiers; two identifiers joined by a dot ("accelerator.clear"), which a file mentions
// when it mentions both (a method whose name alone is everywhere); or an ImportedName
// ("import utils.cleanup"), which a file mentions when an import statement of it names the
// module part and the name is mentioned anywhere. They match whole tokens, strings and
// comments included, which errs toward parsing a file too many, never too few.
type identSet struct {
	names          map[string]struct{}
	bits           [][2]uint32 // each single name's two signature hashes
	pairs          [][2]string // dotted names: both parts must be mentioned
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

// Matcher reports whether a text mentions one of the needles, as ParseMatching decides
// whether to parse a file: the same names, pairs and imported names.
func Matcher(needles []string) func(src []byte) bool {
	set := newIdentSet(needles)
	return func(src []byte) bool {
		var sig signature
		return set.scan(src, &sig)
	}
}

// signature is a Bloom filter of the identifiers a file mentions, and a quarter-size one of
// those its import statements mention, kept for files that did not match so that a later
// round (new helper names) re-reads only the files that may mention them: a bit per 4 bytes
// of the file (at least 4096) instead of its text. Sized to the file, the filter stays
// sparse: at a fixed 4096 bits every file over ~20 KB let through most names, and unsloth
// re-read 868 files (52 MB) in later rounds only to find they mention none.
type signature struct {
	all []uint64
	imp []uint64
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
	sig.all, sig.imp = make([]uint64, words), make([]uint64, words/4)
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

// scan reports whether src mentions one of the names, and fills sig (sized for src) with
// every identifier of src (the whole file is scanned, so the signature is complete).
//
// An import statement starts at the keyword `import` or `from` (anywhere: `raise e from x`
// counts too, which only errs toward a file too many) and runs to the end of its logical
// line: a newline outside brackets and not after a backslash, or a `;`.
func (s *identSet) scan(src []byte, sig *signature) bool {
	found := s.all
	sig.size(len(src))
	allMask, impMask := uint64(len(sig.all)*64-1), uint64(len(sig.imp)*64-1)
	var seen map[int]uint8 // pair index -> parts seen (bit 0 receiver, bit 1 method)
	inImport, depth, lastSignificant := false, 0, byte(0)
	n := len(src)
	for i := 0; i < n; {
		if c := src[i]; !identChar[c] {
			if inImport {
				switch c {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					depth--
				case ';':
					inImport = depth > 0
				case '\n':
					inImport = depth > 0 || lastSignificant == '\\'
				}
				if c != ' ' && c != '\t' && c != '\r' {
					lastSignificant = c
				}
			}
			i++
			continue
		}
		j := i + 1
		for j < n && identChar[src[j]] {
			j++
		}
		lastSignificant = 'a'
		if !found && (len(s.names) > 0 || len(s.pairs) > 0) {
			if l := j - i; l >= s.minLen && l <= s.maxLen && s.first[src[i]] {
				tok := string(src[i:j])
				if _, ok := s.names[tok]; ok {
					found = true
				}
				for _, pi := range s.pairPart[tok] {
					if seen == nil {
						seen = map[int]uint8{}
					}
					if s.pairs[pi][0] == tok && (inImport || !s.pairImport[pi]) {
						seen[pi] |= 1
					}
					if s.pairs[pi][1] == tok {
						seen[pi] |= 2
					}
					found = found || seen[pi] == 3
				}
			}
		}
		h := uint64(14695981039346656037)
		for k := i; k < j; k++ {
			h ^= uint64(src[k])
			h *= 1099511628211
		}
		a, b := h&allMask, (h>>32)&allMask
		sig.all[a>>6] |= 1 << (a & 63)
		sig.all[b>>6] |= 1 << (b & 63)
		if inImport {
			a, b = h&impMask, (h>>32)&impMask
			sig.imp[a>>6] |= 1 << (a & 63)
			sig.imp[b>>6] |= 1 << (b & 63)
		}
		if l := j - i; (l == 6 && string(src[i:j]) == "import") || (l == 4 && string(src[i:j]) == "from") {
			inImport, depth = true, 0
		}
		i = j
	}
	return found
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

func (sig *signature) hasImport(b [2]uint32) bool { return hasBits(sig.imp, b) }

// hasBits reports whether both of a name's positions are set in filter.
func hasBits(filter []uint64, b [2]uint32) bool {
	m := uint32(len(filter)*64 - 1)
	x, y := b[0]&m, b[1]&m
	return filter[x>>6]&(1<<(x&63)) != 0 && filter[y>>6]&(1<<(y&63)) != 0
}
