// Package lazyregexp holds regular expressions that are compiled when first used, not when
// the program starts: the analyzers' ninety-odd expressions (long alternations, many
// ignoring case) took 7.8 ms of every run's start (GODEBUG=inittrace=1), a seventh of a
// warm run, which uses none of them. The same wrapper as the Go distribution's own
// internal/lazyregexp (src/internal/lazyregexp/lazyre.go).
package lazyregexp

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// Regexp is a regexp.Regexp compiled the first time it is used.
type Regexp struct {
	str  string
	once sync.Once
	rx   *regexp.Regexp
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
	r.once.Do(func() { r.rx = regexp.MustCompile(r.str) })
	return r.rx
}

// MatchString is regexp.Regexp's MatchString.
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// Match is regexp.Regexp's Match.
func (r *Regexp) Match(b []byte) bool { return r.re().Match(b) }

// FindString is regexp.Regexp's FindString.
func (r *Regexp) FindString(s string) string { return r.re().FindString(s) }

// FindStringSubmatch is regexp.Regexp's FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// String is the expression's source text.
func (r *Regexp) String() string { return r.re().String() }
