package pyparse

// identSet answers "does this file mention any of these names?" in one pass over its bytes:
// it splits the text into identifier-like runs and looks each run up, so the cost is the same
// for six names or six hundred (helper names found in a later round). Names must be Python
// identifiers; they match whole tokens anywhere, strings and comments included, which errs
// toward parsing a file too many, never too few.
type identSet struct {
	names          map[string]struct{}
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
		s.first[n[0]] = true
		s.minLen = min(s.minLen, len(n))
		s.maxLen = max(s.maxLen, len(n))
	}
	return s
}

func (s *identSet) matches(src []byte) bool {
	if s.all {
		return true
	}
	if len(s.names) == 0 {
		return false
	}
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
		if l := j - i; l >= s.minLen && l <= s.maxLen && s.first[src[i]] {
			if _, ok := s.names[string(src[i:j])]; ok {
				return true
			}
		}
		i = j
	}
	return false
}
