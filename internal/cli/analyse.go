package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/config"
	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/walk"
	"github.com/cachelint/cachelint/pyparse"
)

// commonFlags are the flags check and calls share: which files, which configuration.
type commonFlags struct {
	configPath       string
	noConfig         bool
	exclude          listFlag
	extendExclude    listFlag
	respectGitignore bool
	forceExclude     bool
	jobs             int
	projectRoot      string
	verbose          bool
	fs               *flag.FlagSet
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.configPath, "config", "", "configuration `FILE` (pyproject.toml, cachelint.toml or .cachelint.toml)")
	fs.BoolVar(&c.noConfig, "no-config", false, "ignore every configuration file")
	fs.Var(&c.exclude, "exclude", "`GLOBS` to exclude, replacing the defaults (comma-separated, repeatable)")
	fs.Var(&c.extendExclude, "extend-exclude", "`GLOBS` to exclude in addition to the defaults")
	fs.BoolVar(&c.respectGitignore, "respect-gitignore", true, "skip files ignored by .gitignore")
	fs.BoolVar(&c.forceExclude, "force-exclude", false, "apply excludes to files named on the command line too (for pre-commit)")
	fs.IntVar(&c.jobs, "jobs", 0, "`N` parallel parsers (default: number of CPUs)")
	fs.BoolVar(&c.verbose, "verbose", false, "print what was read and parsed, and how long it took, to stderr")
	fs.StringVar(&c.projectRoot, "project-root", "", "`DIR` indexed to resolve helpers (default: nearest pyproject.toml, setup.cfg, setup.py or .git)")
}

func (c *commonFlags) isSet(name string) bool {
	set := false
	c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// project is one analysed project: what was read, what was found.
type project struct {
	cwd     string
	root    string
	cfg     *config.Config
	report  map[string]bool // display paths in report scope
	files   map[string]walk.File
	res     *driver.Result
	parsed  *pyparse.Result
	cls     *analyzers.Classification
	sources map[string][]byte
	nbMu    sync.Mutex // readFile runs on the parse workers
	nb      map[string]*notebookInfo
}

// analyse walks the paths, indexes the project and runs the analyzers.
func analyse(ctx context.Context, paths []string, c *commonFlags, stderr io.Writer, extra func(cfg *config.Config) []*flagSetting) (*project, error) {
	_ = ctx
	start := time.Now()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, usageErr("%s: no such file or directory", p)
			}
			return nil, usageErr("%s: %v", p, err)
		}
	}
	if c.jobs < 0 {
		return nil, usageErr("--jobs must be at least 1, got %d", c.jobs)
	}
	root := c.projectRoot
	if root != "" {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return nil, usageErr("--project-root %s: not a directory", root)
		}
		root, _ = filepath.Abs(root)
	} else {
		root = walk.FindProjectRoot(paths[0])
	}

	var cfg *config.Config
	switch {
	case c.noConfig:
	case c.configPath != "":
		cfg, err = config.Load(c.configPath)
	default:
		start := paths[0]
		if fi, statErr := os.Stat(start); statErr == nil && !fi.IsDir() {
			start = filepath.Dir(start)
		}
		cfg, err = config.Discover(start)
	}
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}

	wopts := walk.Options{RespectGitignore: true}
	cfg.ApplyWalk(&wopts)
	if c.isSet("exclude") {
		wopts.Exclude = c.exclude.vals
	}
	wopts.ExtendExclude = append(wopts.ExtendExclude, c.extendExclude.vals...)
	if c.isSet("respect-gitignore") {
		wopts.RespectGitignore = c.respectGitignore
	}
	if c.isSet("force-exclude") {
		wopts.ForceExclude = c.forceExclude
	}

	pr := &project{cwd: cwd, root: root, cfg: cfg, report: map[string]bool{}, files: map[string]walk.File{}, sources: map[string][]byte{}, nb: map[string]*notebookInfo{}}
	reportFiles, warnings, err := walk.Files(paths, wopts)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "cachelint: warning: %s\n", w)
	}
	// Analysis scope: the whole project, so helpers defined elsewhere resolve.
	indexOpts := wopts
	indexOpts.ForceExclude = true
	indexFiles, _, err := walk.Files([]string{root}, indexOpts)
	if err != nil {
		indexFiles = nil // the report scope alone still works
	}
	byAbs := map[string]string{}
	add := func(f walk.File) string {
		if d, ok := byAbs[f.Abs]; ok {
			return d
		}
		d := displayPath(cwd, f.Abs)
		byAbs[f.Abs] = d
		pr.files[d] = f
		return d
	}
	for _, f := range reportFiles {
		pr.report[add(f)] = true
	}
	for _, f := range indexFiles {
		add(f)
	}
	var all []string
	for d := range pr.files {
		all = append(all, d)
	}
	sort.Strings(all)

	flags := map[string]map[string]string{
		"pyparse":    {"needles": strings.Join(analyzers.Needles(), ","), "jobs": strconv.Itoa(c.jobs)},
		"cachecalls": {"root": displayPath(cwd, root), "extra-helpers": ""},
		"classify":   {"step-loop-names": ""},
	}
	if cfg != nil {
		flags["cachecalls"]["extra-helpers"] = strings.Join(cfg.ExtraHelpers, ",")
		flags["classify"]["step-loop-names"] = strings.Join(cfg.StepLoopNames, ",")
	}
	if extra != nil {
		for _, s := range extra(cfg) {
			if flags[s.analyzer] == nil {
				flags[s.analyzer] = map[string]string{}
			}
			flags[s.analyzer][s.name] = s.value
		}
	}
	res, err := driver.Run(driver.Options{
		Files:     all,
		ReadFile:  pr.readFile,
		Analyzers: analyzers.All,
		Flags:     flags,
	})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	pr.res = res
	pr.parsed, _ = res.Results[pyparse.Analyzer].(*pyparse.Result)
	pr.cls, _ = res.Results[analyzers.Classify].(*analyzers.Classification)
	if pr.parsed == nil {
		return nil, &exitError{code: exitUsage, err: errors.Join(res.Errors...)}
	}
	if c.verbose {
		rounds := 0
		if g, ok := res.Results[analyzers.CacheCalls].(*analyzers.CallGraph); ok {
			rounds = g.Rounds
		}
		cfgPath := "none"
		if cfg != nil {
			cfgPath = cfg.Path
		}
		fmt.Fprintf(stderr, "cachelint: project root %s, config %s\n", root, cfgPath)
		fmt.Fprintf(stderr, "cachelint: %d file(s) in report scope, %d indexed, %d parsed in %d prefilter round(s), %s\n",
			len(pr.report), pr.parsed.Seen, pr.parsed.Parsed, rounds, time.Since(start).Round(time.Millisecond))
	}
	return pr, nil
}

type flagSetting struct{ analyzer, name, value string }

// readFile gives the driver each file's Python text; notebooks arrive as the program of
// their code cells.
func (pr *project) readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if f, ok := pr.files[path]; ok && f.Kind == walk.Notebook {
		info, err := readNotebook(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		pr.nbMu.Lock()
		pr.nb[path] = info
		pr.nbMu.Unlock()
		data = info.source
	}
	return data, nil
}

// displayPath is how a file is shown: relative to the working directory when below it,
// with forward slashes.
func displayPath(cwd, abs string) string {
	if rel, err := filepath.Rel(cwd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}
