// Package lazyregexp holds regular expressions that are compiled when first used, not when
// the program starts: the analyzers' ninety-odd expressions (long alternations, many
// ignoring case) took 7.8 ms of every run's start (GODEBUG=inittrace=1), a seventh of a
// warm run, which uses none of them. The same wrapper as the Go distribution's own
// internal/lazyregexp (src/internal/lazyregexp/lazyre.go).
package lazyregexp

import (
	"os"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Regexp is a regexp.Regexp compiled the first time it is used.
type Regexp struct {
	str  string
	once sync.Once
	rx   *regexp.Regexp
	// atoms are strings one of which every match contains, ASCII lower-cased (nil: none
	// known): an ASCII text that contains none of them, ignoring ASCII case, does not match,
	// and the expression is not run (the analyzers ask most of theirs of callee names and
	// conditions that name none of their words; their backtracking was 9% of an edited run's
	// CPU).
	atoms []string
}

// New returns the expression str, compiled when first used; an invalid one panics then (in
// a test binary, at once, so that a test of the package that declares it fails).
func New(str string) *Regexp {
	r := &Regexp{str: str}
	if inTest {
		r.re()
	}
	return r
}

var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")

func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() {
		r.rx = regexp.MustCompile(r.str)
		if re, err := syntax.Parse(r.str, syntax.Perl); err == nil {
			r.atoms, _ = atoms(re.Simplify())
		}
	})
	return r.rx
}

// cannot reports whether the atoms show that s holds no match.
func (r *Regexp) cannot(s string) bool {
	if r.atoms == nil {
		return false
	}
	// s lower-cased once (on the stack when short), then each atom searched with
	// strings.Index: the analyzers ask expressions of dozens of alternatives (reLoadModel)
	// about every call and loop they read, and a byte-by-byte search per atom was most of
	// the time those questions took.
	var buf [256]byte
	low := buf[:0]
	if len(s) > len(buf) {
		low = make([]byte, 0, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return false // Unicode case folding may match more (`K` for `k`)
		}
		low = append(low, lower(c))
	}
	text := unsafe.String(unsafe.SliceData(low), len(low)) // low is not changed after
	for _, a := range r.atoms {
		if strings.Contains(text, a) {
			return false
		}
	}
	return true
}

// MatchString is regexp.Regexp's MatchString.
func (r *Regexp) MatchString(s string) bool {
	re := r.re()
	return !r.cannot(s) && re.MatchString(s)
}

// Match is regexp.Regexp's Match.
func (r *Regexp) Match(b []byte) bool { return r.re().Match(b) }

// FindString is regexp.Regexp's FindString.
func (r *Regexp) FindString(s string) string {
	re := r.re()
	if r.cannot(s) {
		return ""
	}
	return re.FindString(s)
}

// FindStringSubmatch is regexp.Regexp's FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string {
	re := r.re()
	if r.cannot(s) {
		return nil
	}
	return re.FindStringSubmatch(s)
}

// atoms returns strings one of which every match of re contains, ASCII lower-cased; ok is
// false when no such set is known (an expression that can match without a literal, or a
// literal that is not ASCII).
func atoms(re *syntax.Regexp) (out []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		b := make([]byte, len(re.Rune))
		for i, c := range re.Rune {
			if c >= utf8.RuneSelf {
				return nil, false
			}
			b[i] = lower(byte(c))
		}
		return []string{string(b)}, len(b) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return atoms(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return atoms(re.Sub[0])
		}
	case syntax.OpAlternate:
		// Every match is one of the alternatives'.
		for _, sub := range re.Sub {
			a, ok := atoms(sub)
			if !ok {
				return nil, false
			}
			out = append(out, a...)
		}
		return out, true
	case syntax.OpConcat:
		// Every match holds a match of each part: the part whose atoms are longest.
		best := -1
		for _, sub := range re.Sub {
			if a, ok := atoms(sub); ok {
				if n := shortest(a); n > best {
					out, best = a, n
				}
			}
		}
		return out, best > 0
	}
	return nil, false
}

func shortest(atoms []string) int {
	n := -1
	for _, a := range atoms {
		if n < 0 || len(a) < n {
			n = len(a)
		}
	}
	return n
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// String is the expression's source text.
func (r *Regexp) String() string { return r.re().String() }
