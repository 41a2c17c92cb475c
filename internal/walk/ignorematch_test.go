package walk

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// TestIgnoreMatchesGoGit: patterns read here answer as go-git's gitignore reads and matches
// them, for whole paths (ignoreState.ignored) and for a directory's entries by name
// (forDir), over random ignore files (names, globs, `**`, `!`, trailing `/` and spaces,
// malformed globs, nested domains) and random paths.
func TestIgnoreMatchesGoGit(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	names := []string{"a", "b", "ab", "ba", ".x", "a.py", "b.pyc", "build", "x[", "a b"}
	parts := []string{"a", "b", "*", "?", "a*", "*.py", "*.pyc", "[ab]", "[!a]", "[a-", "\\*", "**", "build", "a?", "x["}
	randName := func() string { return names[rng.Intn(len(names))] }
	randPattern := func() string {
		var b strings.Builder
		if rng.Intn(4) == 0 {
			b.WriteString("!")
		}
		if rng.Intn(5) == 0 {
			b.WriteString("/")
		}
		n := 1 + rng.Intn(3)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString("/")
			}
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		switch rng.Intn(6) {
		case 0:
			b.WriteString("/")
		case 1:
			b.WriteString("  ")
		case 2:
			b.WriteString("\\ ")
		}
		return b.String()
	}
	randPath := func(max int) []string {
		p := make([]string, rng.Intn(max+1))
		for i := range p {
			p[i] = randName()
		}
		return p
	}
	cases, excluded := 0, 0
	for file := 0; file < 3000; file++ {
		var ours []*ignorePattern
		var theirs []gitignore.Pattern
		for range 1 + rng.Intn(6) {
			line, domain := randPattern(), randPath(rng.Intn(2)*2)
			ours = append(ours, parsePattern(line, domain))
			theirs = append(theirs, gitignore.ParsePattern(line, domain))
		}
		if rng.Intn(5) == 0 {
			// A pattern read by go-git itself (the global excludes), matched whole.
			g := gitignore.ParsePattern(randPattern(), nil)
			ours, theirs = append(ours, &ignorePattern{opaque: g}), append(theirs, g)
		}
		s, m := &ignoreState{patterns: ours}, gitignore.NewMatcher(theirs)
		for range 30 {
			dir := randPath(3)
			d := s.forDir(dir)
			for _, isDir := range []bool{false, true} {
				name := randName()
				path := append(append([]string(nil), dir...), name)
				want := m.Match(path, isDir)
				if got := s.ignored(path, isDir); got != want {
					t.Fatalf("%q: ignored(%q, dir %v) = %v, go-git %v", lines(theirs, ours), path, isDir, got, want)
				}
				if got := d.ignored(name, isDir); got != want {
					t.Fatalf("%q: in %q, ignored(%q, dir %v) = %v, go-git %v", lines(theirs, ours), dir, name, isDir, got, want)
				}
				cases++
				if want {
					excluded++
				}
			}
		}
	}
	if cases < 100000 || excluded < cases/10 || excluded > cases*9/10 {
		t.Fatalf("%d cases, %d of them ignored", cases, excluded)
	}
}

// lines shows a pattern list for a failure.
func lines(_ []gitignore.Pattern, ours []*ignorePattern) []string {
	var out []string
	for _, p := range ours {
		if p.opaque != nil {
			out = append(out, "(global)")
			continue
		}
		s := strings.Join(p.parts, "/")
		if p.dirOnly {
			s += "/"
		}
		if p.include {
			s = "!" + s
		}
		out = append(out, strings.Join(p.domain, "/")+": "+s)
	}
	return out
}
