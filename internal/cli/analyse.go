package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cachelint/cachelint/internal/config"
	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/internal/output"
	"github.com/cachelint/cachelint/internal/walk"
	"github.com/cachelint/cachelint/rules"
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
	quiet            int
	stdinFilename    string
	noCache          bool
	cacheDir         string
	stdin            io.Reader
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
	fs.IntVar(&c.jobs, "jobs", 0, "`N` parallel workers for parsing and resolving calls (default: number of CPUs)")
	fs.BoolVar(&c.verbose, "verbose", false, "print what was read and parsed, and how long it took, to stderr")
	fs.Var(&quietFlag{level: &c.quiet}, "q", "print the findings only: no summary, warnings or notes (ruff's -q)")
	fs.Var(&quietFlag{level: &c.quiet}, "quiet", "same as -q")
	fs.Var(&quietFlag{level: &c.quiet, silent: true}, "qq", "print nothing; the exit code tells (ruff's -qq)")
	fs.Var(&quietFlag{level: &c.quiet, silent: true}, "silent", "same as -qq")
	fs.StringVar(&c.stdinFilename, "stdin-filename", "", "`NAME` of the file read from standard input (PATH - or none): reported under NAME, configuration found from NAME")
	fs.BoolVar(&c.noCache, "no-cache", false, "neither read nor write the cache (also CACHELINT_NO_CACHE=1)")
	fs.StringVar(&c.cacheDir, "cache-dir", "", "cache `DIR` (also CACHELINT_CACHE_DIR; default: "+engine.DefaultCacheDir+" in the project root)")
	fs.StringVar(&c.projectRoot, "project-root", "", "`DIR` indexed to resolve helpers (default: nearest pyproject.toml, setup.cfg, setup.py or .git)")
}

func (c *commonFlags) isSet(name string) bool {
	set := false
	c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// options turns the common flags and the configuration they lead to into the engine's
// options: flags override the configuration.
func options(paths []string, c *commonFlags) (engine.Options, error) {
	stdin, err := c.readStdin(paths)
	if err != nil {
		return engine.Options{}, err
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	opts := engine.Options{Paths: paths, Root: c.projectRoot, Jobs: c.jobs, Stdin: stdin}
	switch {
	case c.noConfig:
	case c.configPath != "":
		opts.Config, err = config.Load(c.configPath)
	case stdin != nil:
		// As for the file on disk: the configuration around NAME applies.
		opts.Config, err = config.Discover(filepath.Dir(stdin.Name))
	default:
		start := paths[0]
		if fi, statErr := os.Stat(start); statErr == nil && !fi.IsDir() {
			start = filepath.Dir(start)
		}
		opts.Config, err = config.Discover(start)
	}
	if err != nil {
		return opts, &exitError{code: exitUsage, err: err}
	}
	opts.Walk = walk.Options{RespectGitignore: true}
	opts.Config.ApplyWalk(&opts.Walk)
	if c.isSet("exclude") {
		opts.Walk.Exclude = c.exclude.vals
	}
	opts.Walk.ExtendExclude = append(opts.Walk.ExtendExclude, c.extendExclude.vals...)
	if c.isSet("respect-gitignore") {
		opts.Walk.RespectGitignore = c.respectGitignore
	}
	if c.isSet("force-exclude") {
		opts.Walk.ForceExclude = c.forceExclude
	}
	opts.Cache = c.cache(opts.Config)
	return opts, nil
}

// cache is where the run keeps its analysis, as ruff chooses its cache: --no-cache or
// CACHELINT_NO_CACHE turn it off; the folder is --cache-dir, else CACHELINT_CACHE_DIR, else
// the configuration's cache-dir (relative to its file), else .cachelint_cache in the
// project root.
func (c *commonFlags) cache(cfg *config.Config) *engine.Cache {
	if v := os.Getenv("CACHELINT_NO_CACHE"); c.noCache || (v != "" && v != "0" && !strings.EqualFold(v, "false")) {
		return nil
	}
	out := &engine.Cache{Version: currentVersion().cacheKey()}
	switch {
	case c.cacheDir != "":
		out.Dir = c.cacheDir
	case os.Getenv("CACHELINT_CACHE_DIR") != "":
		out.Dir = os.Getenv("CACHELINT_CACHE_DIR")
	case cfg != nil && cfg.CacheDir != nil:
		out.Dir = *cfg.CacheDir
		if !filepath.IsAbs(out.Dir) {
			out.Dir = filepath.Join(cfg.Dir, out.Dir)
		}
	}
	return out
}

// readStdin reads the file of `PATH -`, or of --stdin-filename with no PATH (as ruff), for
// editors: nil when the paths are files and directories on disk.
func (c *commonFlags) readStdin(paths []string) (*engine.Stdin, error) {
	fromStdin := slices.Contains(paths, "-") || (len(paths) == 0 && c.stdinFilename != "")
	switch {
	case !fromStdin && c.stdinFilename != "":
		return nil, usageErr("--stdin-filename names the file read from standard input: give - as the PATH, or no PATH")
	case !fromStdin:
		return nil, nil
	case len(paths) > 1:
		return nil, usageErr("- (standard input) must be the only PATH")
	case c.stdin == nil:
		return nil, usageErr("no standard input to read")
	}
	src, err := io.ReadAll(c.stdin)
	if err != nil {
		return nil, usageErr("read standard input: %v", err)
	}
	name := c.stdinFilename
	if name == "" {
		name = "-"
	}
	return &engine.Stdin{Name: name, Source: src}, nil
}

// analyse runs the engine and prints what the user should see at once: the warnings of the
// walk, that no Python file was found, the files that did not parse (unless CL900 reports
// them as findings) and, with --verbose, what was read.
func analyse(ctx context.Context, opts engine.Options, c *commonFlags, con *console, stderr io.Writer) (*engine.Result, error) {
	stop := func() {}
	if progressWanted(stderr, c.quiet) {
		opts.Progress = &engine.Progress{}
		stop = startProgress(stderr, opts.Progress, progressDelay, 250*time.Millisecond)
	}
	res, err := engine.Run(ctx, opts)
	stop()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, &exitError{code: exitUsage, err: errors.New("interrupted")}
		}
		return nil, &exitError{code: exitUsage, err: err}
	}
	for _, w := range res.Warnings {
		con.warnf("%s", w)
	}
	if res.Stats.Reported == 0 {
		// ruff's words: a run that looked at nothing must not pass for a clean one.
		con.warnf("No Python files found under the given path(s)")
	}
	if !opts.Rules[rules.CL900] {
		// ruff's "Failed to parse FILE:LINE:COL: message": the file was analysed as far as
		// it parses, and a call in the broken part may be missed.
		for _, se := range res.SyntaxErrors {
			con.warnf("Failed to parse %s: %s", output.Location(se), se.Message)
		}
	}
	if c.verbose {
		cfgPath := "none"
		if opts.Config != nil {
			cfgPath = opts.Config.Path
		}
		st := res.Stats
		if st.Repositories > 0 {
			fmt.Fprintf(stderr, "cachelint: project root %s, config %s; %d git repositories in it each analysed from its own root\n", res.Root, cfgPath, st.Repositories)
		} else {
			fmt.Fprintf(stderr, "cachelint: project root %s, config %s\n", res.Root, cfgPath)
		}
		scope := ""
		if st.Added+st.Removed > 0 {
			scope = fmt.Sprintf("; %d file(s) added and %d removed since, none of them where the analysis looked for a module", st.Added, st.Removed)
		}
		switch {
		case st.Cached && (st.Reread > 0 || scope != ""):
			fmt.Fprintf(stderr, "cachelint: %d file(s) in report scope, %d indexed, no change that matters since the analysis in %s (%d parsed; %d file(s) read again: changed in nothing the analysis read of them%s), %s\n",
				st.Reported, st.Indexed, st.CacheDir, st.Parsed, st.Reread, scope, st.Elapsed.Round(time.Millisecond))
		case st.Cached:
			fmt.Fprintf(stderr, "cachelint: %d file(s) in report scope, %d indexed, none changed since the analysis in %s (%d parsed), %s\n",
				st.Reported, st.Indexed, st.CacheDir, st.Parsed, st.Elapsed.Round(time.Millisecond))
		default:
			reused, unread := "", ""
			if st.Reused > 0 {
				reused = fmt.Sprintf(" (%d of them from trees kept in %s)", st.Reused, st.CacheDir)
			}
			if st.Unread > 0 {
				unread = fmt.Sprintf(", %d unchanged file(s) not read (the names kept of them in the cache include none searched for)", st.Unread)
			}
			if st.Kept > 0 || st.KeptAgain > 0 {
				again := ""
				if st.KeptAgain > 0 {
					again = fmt.Sprintf(" (%d found again: they read what the edit changed)", st.KeptAgain)
				}
				unread += fmt.Sprintf(", the calls of %d unchanged file(s) resolved as in the last run%s%s", st.Kept, again, scope)
			}
			if st.Classified < st.CacheCalls {
				unread += fmt.Sprintf(", %d of the %d cache-emptying calls classified (the others' records fall in files not reported)", st.Classified, st.CacheCalls)
			}
			if st.CacheMiss != "" {
				unread += fmt.Sprintf(", every call resolved again (the last run's analysis did not hold: %s)", st.CacheMiss)
			}
			if st.KeptMiss != "" {
				unread += fmt.Sprintf(", every call resolved again (the last run's graph did not hold: %s)", st.KeptMiss)
			}
			fmt.Fprintf(stderr, "cachelint: %d file(s) in report scope, %d indexed, %d parsed%s in %d prefilter round(s)%s, %s\n",
				st.Reported, st.Indexed, st.Parsed, reused, st.Rounds, unread, st.Elapsed.Round(time.Millisecond))
		}
	}
	return res, nil
}

// finish prints what is left to say after the report: unreadable files, and internal
// errors, which make the run exit 2.
func finish(res *engine.Result, con *console, stderr io.Writer) error {
	for _, u := range res.Unreadable {
		con.warnf("%s", u)
	}
	if len(res.Errors) > 0 {
		for _, e := range res.Errors {
			fmt.Fprintf(stderr, "cachelint: %s\n", e)
		}
		return &exitError{code: exitUsage}
	}
	return nil
}
