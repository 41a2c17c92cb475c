package pyparse

import "strings"

// identSet answers "does this file mention any of these names?" in one pass over its bytes:
// it splits the text into identifier-like runs and looks each run up, so the cost is the same
// for six names or six hundred (helper names found in a later round). Names must be Python
// identifiers, or two identifiers joined by a dot ("accelerator.clear"), which a file
// mentions when it mentions both (a method whose name alone is everywhere); they match whole
// tokens anywhere, strings and comments included, which errs toward parsing a file too many,
// never too few.
type identSet struct {
	names          map[string]struct{}
	bits           [][2]uint16 // each single name's two signature bits
	pairs          [][2]string // dotted names: both parts must be mentioned
	pairBits       [][2][2]uint16
	pairPart       map[string][]int // part -> indexes into pairs
	first          [256]bool
	minLen, maxLen int
	all            bool // an empty name: every file matches
}

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
		if recv, meth, ok := strings.Cut(n, "."); ok && recv != "" && meth != "" {
			if s.pairPart == nil {
				s.pairPart = map[string][]int{}
			}
			i := len(s.pairs)
			s.pairs = append(s.pairs, [2]string{recv, meth})
			s.pairBits = append(s.pairBits, [2][2]uint16{sigBits(recv), sigBits(meth)})
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

// signature is a 4096-bit Bloom filter of the identifiers a file mentions, kept for files
// that did not match so that a later round (new helper names) re-reads only the files that
// may mention them: 512 bytes a file instead of its text.
type signature [64]uint64

func sigBits(name string) [2]uint16 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return [2]uint16{uint16(h & 4095), uint16((h >> 32) & 4095)}
}

// scan reports whether src mentions one of the names, and fills sig with every identifier
// of src (the whole file is scanned, so the signature is complete).
func (s *identSet) scan(src []byte, sig *signature) bool {
	found := s.all
	var seen map[int]uint8 // pair index -> parts seen (bit 0 receiver, bit 1 method)
	n := len(src)
	for i := 0; i < n; {
		if !identChar[src[i]] {
			i++
			continue
		}
		j := i + 1
		for j < n && identChar[src[j]] {
			j++
		}
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
					if s.pairs[pi][0] == tok {
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
		a, b := h&4095, (h>>32)&4095
		sig[a>>6] |= 1 << (a & 63)
		sig[b>>6] |= 1 << (b & 63)
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
	for _, pb := range s.pairBits {
		if sig.has(pb[0]) && sig.has(pb[1]) {
			return true
		}
	}
	return false
}

func (sig *signature) has(b [2]uint16) bool {
	return sig[b[0]>>6]&(1<<(b[0]&63)) != 0 && sig[b[1]>>6]&(1<<(b[1]&63)) != 0
}
