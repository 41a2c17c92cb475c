package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/pelletier/go-toml/v2"

	"github.com/cachelint/cachelint/internal/walk"
	"github.com/cachelint/cachelint/rules"
)

// Config is one configuration file's settings. A nil slice or pointer means the key was
// not given (so the default, or a command-line flag, applies); an empty slice means it
// was given empty.
type Config struct {
	// Path is the file the settings came from.
	Path string
	// Dir anchors the relative globs of exclude, extend-exclude and per-file-ignores:
	// the file's directory. ruff resolves a file given with --config against the working
	// directory instead; a caller that wants that sets Dir before using the Config.
	Dir string

	Select       []string // rule selectors: codes, prefixes, names, "ALL"
	Ignore       []string
	ExtendSelect []string

	Exclude       []string // globs; non-nil replaces walk.DefaultExclude
	ExtendExclude []string

	// PerFileIgnores maps a glob to rule selectors ignored in files it matches; a glob
	// starting with "!" applies to the files it does not match, as in ruff.
	PerFileIgnores map[string][]string

	// StepLoopNames are names of functions the user declares to be step loops (each
	// call runs once per training step), e.g. "train_step" or "Trainer.run_batch".
	StepLoopNames []string
	// ExtraHelpers are dotted names of functions that empty the cache, added to the
	// built-in list, e.g. "mylib.memory.flush_gpu".
	ExtraHelpers []string

	RespectGitignore *bool
	ForceExclude     *bool
	ShowParseErrors  *bool
	// CacheDir is the cache folder (relative paths against Dir); nil: the default,
	// .cachelint_cache in the project root.
	CacheDir *string
}

// Error is a problem in a configuration file, at a line.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem has no line
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// keys is the schema as TOML sees it; strict decoding reports anything else.
type keys struct {
	Select           []string            `toml:"select"`
	Ignore           []string            `toml:"ignore"`
	ExtendSelect     []string            `toml:"extend-select"`
	Exclude          []string            `toml:"exclude"`
	ExtendExclude    []string            `toml:"extend-exclude"`
	PerFileIgnores   map[string][]string `toml:"per-file-ignores"`
	StepLoopNames    []string            `toml:"step-loop-names"`
	ExtraHelpers     []string            `toml:"extra-helpers"`
	RespectGitignore *bool               `toml:"respect-gitignore"`
	ForceExclude     *bool               `toml:"force-exclude"`
	ShowParseErrors  *bool               `toml:"show-parse-errors"`
	CacheDir         *string             `toml:"cache-dir"`
}

// keyTypes says, in the user's words, what each key holds.
var keyTypes = map[string]string{
	"select":            "an array of rule selectors (strings)",
	"ignore":            "an array of rule selectors (strings)",
	"extend-select":     "an array of rule selectors (strings)",
	"exclude":           "an array of globs (strings)",
	"extend-exclude":    "an array of globs (strings)",
	"per-file-ignores":  `a table of glob = ["CODE", ...]`,
	"step-loop-names":   "an array of function names (strings)",
	"extra-helpers":     "an array of dotted function names (strings)",
	"respect-gitignore": "a boolean (true or false)",
	"force-exclude":     "a boolean (true or false)",
	"show-parse-errors": "a boolean (true or false)",
	"cache-dir":         "a folder (a string)",
}

type pyproject struct {
	Tool struct {
		Cachelint *keys `toml:"cachelint"`
	} `toml:"tool"`
}

// fileNames in the order ruff gives them precedence within one directory.
var fileNames = []string{".cachelint.toml", "cachelint.toml", "pyproject.toml"}

// Discover finds the configuration that applies to startDir: the closest directory at or
// above it with a configuration file. It returns nil, nil when there is none.
func Discover(startDir string) (*Config, error) {
	dir, err := filepath.Abs(startDir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", startDir, err)
	}
	for {
		for _, name := range fileNames {
			p := filepath.Join(dir, name)
			data, err := os.ReadFile(p)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) || isDir(p) {
					continue
				}
				return nil, fmt.Errorf("read config %s: %w", p, err)
			}
			if name == "pyproject.toml" && !hasCachelintTable(data) {
				continue
			}
			return parse(p, data)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// hasCachelintTable reports whether a pyproject.toml has [tool.cachelint]. A file that
// does not parse counts, so that its syntax error is reported rather than skipped.
func hasCachelintTable(data []byte) bool {
	var probe struct {
		Tool struct {
			Cachelint map[string]any `toml:"cachelint"`
		} `toml:"tool"`
	}
	if err := toml.Unmarshal(data, &probe); err != nil {
		return bytes.Contains(data, []byte("cachelint"))
	}
	return probe.Tool.Cachelint != nil
}

// Load reads one configuration file (as --config names it). A pyproject.toml is read
// from its [tool.cachelint] table; any other name is read as cachelint.toml.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	return parse(path, data)
}

func parse(path string, data []byte) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	var (
		k      keys
		prefix []string // where our keys sit
	)
	if filepath.Base(path) == "pyproject.toml" {
		prefix = []string{"tool", "cachelint"}
		var p pyproject
		if err := decodeStrict(path, data, &p, prefix); err != nil {
			return nil, err
		}
		if p.Tool.Cachelint != nil {
			k = *p.Tool.Cachelint
		}
	} else if err := decodeStrict(path, data, &k, nil); err != nil {
		return nil, err
	}
	c := &Config{
		Path:             path,
		Dir:              filepath.Dir(abs),
		Select:           k.Select,
		Ignore:           k.Ignore,
		ExtendSelect:     k.ExtendSelect,
		Exclude:          k.Exclude,
		ExtendExclude:    k.ExtendExclude,
		PerFileIgnores:   k.PerFileIgnores,
		StepLoopNames:    k.StepLoopNames,
		ExtraHelpers:     k.ExtraHelpers,
		RespectGitignore: k.RespectGitignore,
		ForceExclude:     k.ForceExclude,
		ShowParseErrors:  k.ShowParseErrors,
		CacheDir:         k.CacheDir,
	}
	if err := c.validate(newPositions(data, prefix)); err != nil {
		return nil, err
	}
	return c, nil
}

var (
	tomlTypeRe = regexp.MustCompile(`cannot decode TOML (\w+)`)
	bareKeyRe  = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// decodeStrict decodes data into v, reporting unknown keys below prefix (other tools'
// tables in pyproject.toml are none of our business) and type errors with their lines.
func decodeStrict(file string, data []byte, v any, prefix []string) error {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var errs []error
		for _, e := range strict.Errors {
			key := e.Key()
			if !hasPrefix(key, prefix) {
				continue
			}
			line, _ := e.Position()
			errs = append(errs, &Error{File: file, Line: line, Msg: unknownKeyMsg(key, prefix)})
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		key := de.Key()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if hasPrefix(key, prefix) && len(key) > len(prefix) {
			name := key[len(prefix)]
			m := tomlTypeRe.FindStringSubmatch(de.Error())
			if want, ok := keyTypes[name]; ok && m != nil {
				msg = fmt.Sprintf("%s must be %s, found %s", displayKey(key, prefix), want, article(m[1]))
			}
		}
		return &Error{File: file, Line: line, Msg: msg}
	}
	return &Error{File: file, Msg: err.Error()}
}

func article(tomlType string) string {
	switch tomlType {
	case "integer", "array", "inline", "":
		return "an " + tomlType
	}
	return "a " + tomlType
}

func hasPrefix(key, prefix []string) bool {
	if len(key) < len(prefix) {
		return false
	}
	for i := range prefix {
		if key[i] != prefix[i] {
			return false
		}
	}
	return true
}

// displayKey names a key as the user wrote it below the table.
func displayKey(key, prefix []string) string {
	rest := key[len(prefix):]
	var parts []string
	for _, p := range rest {
		if bareKeyRe.MatchString(p) {
			parts = append(parts, p)
		} else {
			parts = append(parts, fmt.Sprintf("%q", p))
		}
	}
	return strings.Join(parts, ".")
}

func unknownKeyMsg(key, prefix []string) string {
	table := "at the top level"
	if len(prefix) > 0 {
		table = "in [" + strings.Join(prefix, ".") + "]"
	}
	name := displayKey(key, prefix)
	msg := fmt.Sprintf("unknown key %q %s", name, table)
	if len(prefix) == 0 && key[0] == "tool" {
		return msg + " (a cachelint.toml holds the keys at its top level, without [tool.cachelint])"
	}
	if hint := suggest(key[len(prefix)]); hint != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", hint)
	}
	var known []string
	for k := range keyTypes {
		known = append(known, k)
	}
	sort.Strings(known)
	return msg + "; known keys: " + strings.Join(known, ", ")
}

// suggest maps common slips to the key meant: snake_case, and ruff's [lint] nesting.
func suggest(name string) string {
	kebab := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	if _, ok := keyTypes[kebab]; ok && kebab != name {
		return kebab
	}
	switch kebab {
	case "lint":
		return "select (cachelint's keys sit directly in its table, without [lint])"
	case "extend-ignore":
		return "ignore"
	case "respect-git-ignore", "gitignore":
		return "respect-gitignore"
	}
	return ""
}

// validate checks values the schema's types cannot: selectors, globs and names.
func (c *Config) validate(pos *positions) error {
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, &Error{File: c.Path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	selectors := func(key string, list []string) {
		for i, s := range list {
			if _, err := rules.Match(s); err != nil {
				fail(pos.element(i, key), "%s: %v", key, err)
			}
		}
	}
	selectors("select", c.Select)
	selectors("ignore", c.Ignore)
	selectors("extend-select", c.ExtendSelect)

	globs := func(key string, list []string) {
		for i, g := range list {
			if err := walk.ValidateGlob(g); err != nil {
				fail(pos.element(i, key), "%s: %v", key, err)
			}
		}
	}
	globs("exclude", c.Exclude)
	globs("extend-exclude", c.ExtendExclude)

	patterns := make([]string, 0, len(c.PerFileIgnores))
	for p := range c.PerFileIgnores {
		patterns = append(patterns, p)
	}
	sort.Strings(patterns)
	for _, p := range patterns {
		line := pos.line("per-file-ignores", p)
		if err := walk.ValidateGlob(strings.TrimPrefix(p, "!")); err != nil {
			fail(line, "per-file-ignores: %v", err)
		}
		for i, s := range c.PerFileIgnores[p] {
			if _, err := rules.Match(s); err != nil {
				fail(pos.element(i, "per-file-ignores", p), "per-file-ignores %q: %v", p, err)
			}
		}
	}

	names := func(key string, list []string, what string) {
		for i, n := range list {
			if !isName(n) {
				fail(pos.element(i, key), "%s: %q is not %s", key, n, what)
			}
		}
	}
	names("step-loop-names", c.StepLoopNames, "a Python function name (like train_step or Trainer.train_step)")
	names("extra-helpers", c.ExtraHelpers, "a dotted Python name (like mylib.memory.free_gpu)")

	// Report in file order, as a reader goes through the file.
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].(*Error).Line < errs[j].(*Error).Line }) //nolint:errorlint // errs holds only *Error values built above
	return errors.Join(errs...)
}

// isName reports whether s is a Python identifier or a dotted path of them.
func isName(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if p == "" {
			return false
		}
		for i, r := range p {
			ok := r == '_' || unicode.IsLetter(r) || (i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)))
			if !ok {
				return false
			}
		}
	}
	return true
}

// IgnoredFor returns the rule codes per-file-ignores turns off for path (absolute, or
// relative to the working directory), expanded from selectors to codes and sorted.
// Globs without a slash match the file's base name; others are anchored at c.Dir.
func (c *Config) IgnoredFor(path string) []string {
	if c == nil || len(c.PerFileIgnores) == 0 {
		return nil
	}
	set := map[string]bool{}
	for pattern, selectors := range c.PerFileIgnores {
		negate := strings.HasPrefix(pattern, "!")
		g, err := walk.CompileGlobs(c.Dir, []string{strings.TrimPrefix(pattern, "!")})
		if err != nil {
			continue // Load rejected it; a hand-built Config gets no ignores from it
		}
		if g.Match(path) == negate {
			continue
		}
		for _, s := range selectors {
			rs, err := rules.Match(s)
			if err != nil {
				continue
			}
			for _, r := range rs {
				set[r.Code] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for code := range set {
		out = append(out, code)
	}
	sort.Strings(out)
	return out
}

// ApplyWalk copies the file-selection settings that are set into o; call it before
// applying command-line flags, which override the file.
func (c *Config) ApplyWalk(o *walk.Options) {
	if c == nil {
		return
	}
	o.Base = c.Dir
	if c.Exclude != nil {
		o.Exclude = c.Exclude
	}
	if c.ExtendExclude != nil {
		o.ExtendExclude = append(append([]string(nil), o.ExtendExclude...), c.ExtendExclude...)
	}
	if c.RespectGitignore != nil {
		o.RespectGitignore = *c.RespectGitignore
	}
	if c.ForceExclude != nil {
		o.ForceExclude = *c.ForceExclude
	}
}
