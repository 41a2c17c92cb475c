package walk

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreFiles are read in every walked directory, lowest precedence first: ripgrep's and
// ruff's .ignore overrides .gitignore in the same directory.
var ignoreFiles = []string{".gitignore", ".ignore"}

// ignoreState is the stack of ignore patterns in force for one directory. Paths handed
// to the matcher are components relative to root (the repository's top directory, or
// the walk root outside a repository).
type ignoreState struct {
	root     string
	files    []string // ignore file names read in each directory
	patterns []*ignorePattern
}

// ignored reports whether the path (components below root) is ignored: the last pattern that
// matches it decides, as in gitignore's matcher.
func (s *ignoreState) ignored(components []string, isDir bool) bool {
	if s == nil {
		return false
	}
	for i := len(s.patterns) - 1; i >= 0; i-- {
		if v := s.patterns[i].match(components, isDir); v != gitignore.NoMatch {
			return v == gitignore.Exclude
		}
	}
	return false
}

// with returns the state extended by the ignore files of dir (given by its components
// relative to s.root). The receiver is left unchanged so sibling directories don't see
// each other's patterns.
func (s *ignoreState) with(dir string, components []string, warn func(error)) *ignoreState {
	return s.withFiles(dir, components, nil, false, warn)
}

// withFiles is with, reading only the ignore files listed among entries when the listing is
// known whole: a directory without any, most of them, costs no failed open.
func (s *ignoreState) withFiles(dir string, components []string, entries []dirent, known bool, warn func(error)) *ignoreState {
	var added []*ignorePattern
	for _, name := range s.files {
		if known && !slices.ContainsFunc(entries, func(e dirent) bool { return e.name == name }) {
			continue
		}
		added = append(added, readIgnoreFile(filepath.Join(dir, name), components, warn)...)
	}
	if len(added) == 0 {
		return s
	}
	ps := make([]*ignorePattern, 0, len(s.patterns)+len(added))
	ps = append(append(ps, s.patterns...), added...)
	return &ignoreState{root: s.root, files: s.files, patterns: ps}
}

// readIgnoreFile parses one ignore file; a missing file is no patterns, an unreadable one
// a warning.
func readIgnoreFile(name string, domain []string, warn func(error)) []*ignorePattern {
	data, err := os.ReadFile(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !isDirErr(name) {
			warn(fmt.Errorf("read %s: %w", name, err))
		}
		return nil
	}
	return parseIgnore(data, domain)
}

// isDirErr is true when name is a directory, which is no ignore file at all.
func isDirErr(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}

// parseIgnore splits an ignore file into patterns; it tolerates a BOM and CRLF line
// endings, which go-git's own reader keeps as part of the pattern.
func parseIgnore(data []byte, domain []string) []*ignorePattern {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var ps []*ignorePattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, parsePattern(line, domain))
	}
	return ps
}

// findGitRoot returns the nearest directory at or above dir that holds a .git entry
// (a directory, or the file a worktree or submodule has), or "".
func findGitRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// gitDir resolves the repository's git directory: .git itself, or the one a `gitdir:`
// file points at, then its common directory for worktrees.
func gitDir(root string) string {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	dir := dotGit
	if !fi.IsDir() {
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return ""
		}
		target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return ""
		}
		dir = strings.TrimSpace(target)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		dir = common
	}
	return dir
}

// globalPatterns are the user's excludes: core.excludesFile from ~/.gitconfig, or git's
// default $XDG_CONFIG_HOME/git/ignore when that is unset.
func globalPatterns(warn func(error)) []*ignorePattern {
	global, err := gitignore.LoadGlobalPatterns(osfs.New("/"))
	if err != nil {
		warn(fmt.Errorf("read global git excludes: %w", err))
	}
	if len(global) > 0 {
		ps := make([]*ignorePattern, len(global))
		for i, g := range global {
			ps[i] = &ignorePattern{opaque: g}
		}
		return ps
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		xdg = filepath.Join(home, ".config")
	}
	return readIgnoreFile(filepath.Join(xdg, "git", "ignore"), nil, warn)
}

// newIgnoreState builds the patterns in force at dir (absolute): those of the
// repository it belongs to, from the global file down through every ignore file between
// the repository's top and dir's parent. dir's own files are added by the walk.
// Outside a repository only .ignore files apply, as with ruff and ripgrep, which read
// .gitignore only inside a git repository.
func newIgnoreState(dir string, warn func(error)) (*ignoreState, bool) {
	root := findGitRoot(dir)
	if root == "" {
		return &ignoreState{root: dir, files: []string{".ignore"}}, false
	}
	s := &ignoreState{root: root, files: ignoreFiles}
	s.patterns = append(s.patterns, globalPatterns(warn)...)
	if gd := gitDir(root); gd != "" {
		s.patterns = append(s.patterns, readIgnoreFile(filepath.Join(gd, "info", "exclude"), nil, warn)...)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return s, true
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	cur := root
	for i := 0; i < len(parts); i++ {
		s = s.with(cur, parts[:i], warn)
		cur = filepath.Join(cur, parts[i])
	}
	return s, true
}
