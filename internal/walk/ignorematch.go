package walk

import (
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Matching every walked entry's whole path against every pattern in force, as go-git's
// gitignore matcher does, was most of a warm run's time in a git repository (axolotl: 99
// patterns; each file's every directory name matched against each of them again: some 20 µs
// an entry, 44% of the CPU). The patterns are read here as go-git reads them, and answer as
// go-git's do (TestIgnoreMatchesGoGit holds the two to the same answers), but a directory
// works out once what its own path says (dirIgnore), so that each child is matched by its
// name alone, and the common shapes of a name pattern (`build`, `*.pyc`) are compared
// without a glob.

// ignorePattern is one line of an ignore file, as gitignore.ParsePattern reads it.
type ignorePattern struct {
	domain  []string // the components of the ignore file's directory
	parts   []string // the pattern split at slashes
	include bool     // `!pattern`
	dirOnly bool     // `pattern/`
	glob    bool     // holds a slash: matched against the path below domain, part by part
	name    nameMatch
	// steps are a glob's parts that match a name each (the empty ones match nothing), last
	// the last of them; deep is set when a part holds `**`, which spans names.
	steps []string
	last  nameMatch
	deep  bool
	// opaque is a pattern go-git read itself (the global excludes), matched whole.
	opaque gitignore.Pattern
}

// parsePattern reads one line as gitignore.ParsePattern does.
func parsePattern(p string, domain []string) *ignorePattern {
	res := &ignorePattern{domain: append([]string(nil), domain...)}
	if strings.HasPrefix(p, "!") {
		res.include = true
		p = p[1:]
	}
	if !strings.HasSuffix(p, "\\ ") {
		p = strings.TrimRight(p, " ")
	}
	if strings.HasSuffix(p, "/") {
		res.dirOnly = true
		p = p[:len(p)-1]
	}
	res.glob = strings.Contains(p, "/")
	res.parts = strings.Split(p, "/")
	res.name = newNameMatch(res.parts[0])
	for _, part := range res.parts {
		res.deep = res.deep || strings.Contains(part, "**")
		if part != "" {
			res.steps = append(res.steps, part)
		}
	}
	if len(res.steps) > 0 {
		res.last = newNameMatch(res.steps[len(res.steps)-1])
	}
	return res
}

// verdict is what a match of p says of the path.
func (p *ignorePattern) verdict() gitignore.MatchResult {
	if p.include {
		return gitignore.Include
	}
	return gitignore.Exclude
}

// match is gitignore's Pattern.Match: path is the components below the walk's root.
func (p *ignorePattern) match(path []string, isDir bool) gitignore.MatchResult {
	if p.opaque != nil {
		return p.opaque.Match(path, isDir)
	}
	rel, ok := p.below(path)
	if !ok {
		return gitignore.NoMatch
	}
	if p.glob && !p.globMatch(rel, isDir) || !p.glob && !p.simpleMatch(rel, isDir) {
		return gitignore.NoMatch
	}
	return p.verdict()
}

// below is path below p's domain, and whether path lies below it.
func (p *ignorePattern) below(path []string) ([]string, bool) {
	rel, ok := p.belowOrAt(path)
	return rel, ok && len(rel) > 0
}

// belowOrAt is dir below p's domain, and whether dir is the domain or lies below it.
func (p *ignorePattern) belowOrAt(dir []string) ([]string, bool) {
	if len(dir) < len(p.domain) {
		return nil, false
	}
	for i, e := range p.domain {
		if dir[i] != e {
			return nil, false
		}
	}
	return dir[len(p.domain):], true
}

// simpleMatch: a pattern without a slash matches a path one of whose names it matches (the
// last one only when it names a directory, for `pattern/`). A malformed glob matches nothing.
func (p *ignorePattern) simpleMatch(path []string, isDir bool) bool {
	for i, name := range path {
		match, err := p.name.match(name)
		if err != nil {
			return false
		}
		if !match {
			continue
		}
		return !p.dirOnly || isDir || i != len(path)-1
	}
	return false
}

// globMatch: a pattern with a slash matches the path part by part from the domain down;
// `**` spans any number of names.
func (p *ignorePattern) globMatch(path []string, isDir bool) bool {
	matched, traverse := false, false
	for i, part := range p.parts {
		if part == "" {
			traverse = false
			continue
		}
		if part == "**" {
			if i == len(p.parts)-1 {
				break // a trailing `**`: what came before decides
			}
			traverse = true
			continue
		}
		if strings.Contains(part, "**") || len(path) == 0 {
			return false
		}
		if !traverse {
			ok, err := filepath.Match(part, path[0])
			if err != nil || !ok {
				return false
			}
			matched, path = true, path[1:]
			continue
		}
		// After `**`: the first name further down that part matches, or none.
		traverse = false
		for len(path) > 0 {
			e := path[0]
			path = path[1:]
			ok, err := filepath.Match(part, e)
			if err != nil {
				return false
			}
			if ok {
				matched = true
				break
			}
			if len(path) == 0 {
				matched = false
			}
		}
	}
	if matched && p.dirOnly && !isDir && len(path) == 0 {
		matched = false
	}
	return matched
}

// nameMatch matches a name (no slash) against a pattern's first part: by equality when it
// has no glob character, by suffix for `*` and such a tail, by filepath.Match otherwise.
type nameMatch struct {
	pattern string
	kind    uint8 // nameGlob, nameLiteral, nameSuffix
	suffix  string
}

const (
	nameGlob = iota
	nameLiteral
	nameSuffix
)

func newNameMatch(pattern string) nameMatch {
	const meta = `*?[\`
	switch {
	case !strings.ContainsAny(pattern, meta):
		return nameMatch{pattern: pattern, kind: nameLiteral}
	case len(pattern) > 1 && pattern[0] == '*' && !strings.ContainsAny(pattern[1:], meta):
		return nameMatch{pattern: pattern, kind: nameSuffix, suffix: pattern[1:]}
	}
	return nameMatch{pattern: pattern, kind: nameGlob}
}

// match is filepath.Match(m.pattern, name) for a name without a slash.
func (m nameMatch) match(name string) (bool, error) {
	switch m.kind {
	case nameLiteral:
		return name == m.pattern, nil
	case nameSuffix:
		return strings.HasSuffix(name, m.suffix), nil
	}
	return filepath.Match(m.pattern, name)
}

// dirIgnore answers for the entries of one directory (comps, below the walk's root).
type dirIgnore struct {
	comps []string
	// path is comps and a place for an entry's name, for the patterns matched whole.
	path []string
	// checks are the patterns a child's answer may come from, in order; base is the
	// answer of the last pattern before them that every child matches (through the
	// directory's own path), NoMatch when none does.
	checks []childCheck
	base   gitignore.MatchResult
}

// childCheck is a pattern as it applies to a directory's entries: by the entry's name
// (name: the pattern's one part, or a glob's last once the others matched the directory's
// path), or matched whole (name nil: a `**` glob, or one go-git read).
type childCheck struct {
	p    *ignorePattern
	name *nameMatch
}

// forDir works out, once for the directory comps, what each pattern says of its entries.
func (s *ignoreState) forDir(comps []string) *dirIgnore {
	d := &dirIgnore{comps: comps}
	if s == nil {
		return d
	}
	for _, p := range s.patterns {
		if p.opaque != nil {
			d.checks = append(d.checks, childCheck{p: p})
			continue
		}
		// A child's path is comps and its name: below the domain when comps is at or below it.
		rel, ok := p.belowOrAt(comps)
		if !ok {
			continue
		}
		var says int
		switch {
		case p.glob && p.deep:
			d.checks = append(d.checks, childCheck{p: p})
			continue
		case p.glob:
			says = p.dirGlob(rel)
		default:
			says = p.dirMatch(rel)
		}
		switch says {
		case matchesAll:
			d.checks, d.base = d.checks[:0], p.verdict()
		case matchesByName:
			m := &p.name
			if p.glob {
				m = &p.last
			}
			d.checks = append(d.checks, childCheck{p: p, name: m})
		}
	}
	return d
}

// dirGlob says what a glob without `**` makes of the entries of a directory whose path
// below the domain is rel: its steps match the path's first names one by one, so with as
// many names in rel as steps or more rel alone decides, with one fewer the entry's name
// meets the last step, and with fewer still nothing matches.
func (p *ignorePattern) dirGlob(rel []string) int {
	k := len(p.steps)
	if k == 0 || k > len(rel)+1 {
		return matchesNone
	}
	for j, step := range p.steps[:min(k, len(rel))] {
		ok, err := filepath.Match(step, rel[j])
		if err != nil || !ok {
			return matchesNone
		}
	}
	if k <= len(rel) {
		return matchesAll
	}
	return matchesByName
}

const (
	matchesNone = iota
	matchesByName
	matchesAll
)

// dirMatch says what a simple pattern makes of the entries of a directory whose path below
// the domain is rel: it matches them all when it matches a name of rel (simpleMatch stops
// there), none when a name of rel breaks the glob before that, and otherwise by the entry's
// own name.
func (p *ignorePattern) dirMatch(rel []string) int {
	for _, name := range rel {
		match, err := p.name.match(name)
		if err != nil {
			return matchesNone
		}
		if match {
			return matchesAll
		}
	}
	return matchesByName
}

// ignored reports whether the entry name of the directory is ignored.
func (d *dirIgnore) ignored(name string, isDir bool) bool {
	for i := len(d.checks) - 1; i >= 0; i-- {
		c := d.checks[i]
		p := c.p
		if c.name == nil {
			if d.path == nil {
				d.path = make([]string, len(d.comps)+1)
				copy(d.path, d.comps)
			}
			d.path[len(d.path)-1] = name
			if v := p.match(d.path, isDir); v != gitignore.NoMatch {
				return v == gitignore.Exclude
			}
			continue
		}
		if p.dirOnly && !isDir {
			continue // most of a .gitignore's patterns name folders: no file is asked them
		}
		if match, err := c.name.match(name); err == nil && match {
			return p.verdict() == gitignore.Exclude
		}
	}
	return d.base == gitignore.Exclude
}
