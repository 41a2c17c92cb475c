package walk

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Globs is a compiled list of exclude or per-file-ignores patterns with ruff's meaning:
// a pattern without a slash ("venv", "*_pb2.py") matches a file or directory by its base
// name anywhere; a pattern with a slash ("src/legacy", "tests/**/*.py") is anchored at
// the base directory (the configuration file's directory). Unlike ruff's globset, `*`
// does not cross a slash; `**` does, so "**/tests/*" reads as it would in .gitignore.
// A trailing slash ("build/") is accepted and means the same as "build".
type Globs struct {
	base  string // absolute, slash-separated
	globs []glob
	// names are the patterns that are a plain base name ("venv", ".git": every default
	// exclude), matched by a lookup; rest are the others. A walk matches every entry
	// against the patterns: matching each name with doublestar was an eighth of its time.
	names map[string]bool
	rest  []glob
}

type glob struct {
	pattern  string // slash-separated, without trailing slash
	anchored bool   // contains a slash: matched against the path relative to base
	absolute bool   // starts at the filesystem root: matched against the absolute path
}

// ValidateGlob reports whether pattern is a glob cachelint can use.
func ValidateGlob(pattern string) error {
	p := strings.TrimSuffix(filepath.ToSlash(pattern), "/")
	if strings.TrimSpace(p) == "" {
		return fmt.Errorf("empty pattern %q", pattern)
	}
	if !doublestar.ValidatePattern(p) {
		return fmt.Errorf("invalid glob %q", pattern)
	}
	return nil
}

// CompileGlobs compiles patterns whose relative forms are anchored at base (made
// absolute against the working directory when relative).
func CompileGlobs(base string, patterns []string) (*Globs, error) {
	absBase, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", base, err)
	}
	g := &Globs{base: filepath.ToSlash(absBase)}
	for _, p := range patterns {
		if err := ValidateGlob(p); err != nil {
			return nil, err
		}
		s := strings.TrimSuffix(filepath.ToSlash(p), "/")
		gl := glob{pattern: s}
		switch {
		case strings.HasPrefix(s, "/") || filepath.IsAbs(p):
			gl.absolute, gl.anchored = true, true
			gl.pattern = path.Clean(s)
		case strings.Contains(s, "/"):
			gl.anchored = true
			// "./src" and "src" name the same directory.
			gl.pattern = path.Clean(s)
		}
		g.globs = append(g.globs, gl)
		if !gl.anchored && !strings.ContainsAny(gl.pattern, `*?[]{}\`) {
			if g.names == nil {
				g.names = map[string]bool{}
			}
			g.names[gl.pattern] = true
		} else {
			g.rest = append(g.rest, gl)
		}
	}
	return g, nil
}

// Len is the number of patterns.
func (g *Globs) Len() int {
	if g == nil {
		return 0
	}
	return len(g.globs)
}

// Match reports whether path (absolute, or relative to the working directory) matches
// any pattern.
func (g *Globs) Match(p string) bool {
	if g.Len() == 0 {
		return false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	return g.matchAbs(filepath.ToSlash(abs))
}

// matchAbs matches an absolute, cleaned, slash-separated path.
func (g *Globs) matchAbs(abs string) bool {
	base := path.Base(abs)
	if g.names[base] {
		return true
	}
	if len(g.rest) == 0 {
		return false
	}
	rel, inBase := relSlash(g.base, abs)
	for _, gl := range g.rest {
		var ok bool
		switch {
		case gl.absolute:
			ok, _ = doublestar.Match(gl.pattern, abs)
		case gl.anchored:
			if inBase {
				ok, _ = doublestar.Match(gl.pattern, rel)
			}
		default:
			ok, _ = doublestar.Match(gl.pattern, base)
		}
		if ok {
			return true
		}
	}
	return false
}

// relSlash returns target relative to base when target lies inside base.
func relSlash(base, target string) (string, bool) {
	if target == base {
		return ".", true
	}
	prefix := base
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	if !strings.HasPrefix(target, prefix) {
		return "", false
	}
	return target[len(prefix):], true
}
