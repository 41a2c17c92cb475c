package pyparse

// identSet answers "does this file mention any of these names?" in one pass over its bytes:
// it splits the text into identifier-like runs and looks each run up, so the cost is the same
// for six names or six hundred (helper names found in a later round). Names must be Python
// identifiers; they match whole tokens anywhere, strings and comments included, which errs
// toward parsing a file too many, never too few.
type identSet struct {
	names          map[string]struct{}
	bits           [][2]uint16 // each name's two signature bits
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
		if !found && len(s.names) > 0 {
			if l := j - i; l >= s.minLen && l <= s.maxLen && s.first[src[i]] {
				if _, ok := s.names[string(src[i:j])]; ok {
					found = true
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
		if sig[b[0]>>6]&(1<<(b[0]&63)) != 0 && sig[b[1]>>6]&(1<<(b[1]&63)) != 0 {
			return true
		}
	}
	return false
}
