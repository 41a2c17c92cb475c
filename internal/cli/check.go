package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/cachelint/cachelint/internal/baseline"
	"github.com/cachelint/cachelint/internal/config"
	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/internal/output"
	"github.com/cachelint/cachelint/rules"
	runtimecheck "github.com/cachelint/cachelint/runtime-check"
)

type checkFlags struct {
	commonFlags
	format          string
	output          string
	selectR         listFlag
	ignore          listFlag
	extendSelect    listFlag
	exitZero        bool
	statistics      bool
	color           string
	showParseErrors bool
	fix             bool
	unsafeFixes     bool
	diff            bool
	baseline        string
	writeBaseline   string
	addNoqa         bool
	costProfile     string
}

func runCheck(ctx context.Context, an engine.Analysis, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cf := checkFlags{commonFlags: commonFlags{stdin: stdin}}
	fs := newFlagSet("check", "check [flags] [PATH...]", stdout)
	cf.register(fs)
	fs.StringVar(&cf.format, "format", "text", "output `FORMAT`: "+strings.Join(output.Formats, ", "))
	fs.StringVar(&cf.format, "output-format", "text", "`FORMAT`: alias of --format")
	fs.StringVar(&cf.output, "output", "", "write the report to `FILE` instead of stdout")
	fs.StringVar(&cf.output, "o", "", "`FILE`: alias of --output")
	fs.Var(&cf.selectR, "select", "`CODES` to enable (codes or prefixes, comma-separated), replacing the defaults and the configuration's select and extend-select")
	fs.Var(&cf.ignore, "ignore", "rule `CODES` to disable")
	fs.Var(&cf.extendSelect, "extend-select", "rule `CODES` to enable in addition to the defaults")
	fs.BoolVar(&cf.exitZero, "exit-zero", false, "exit 0 even when findings remain")
	fs.BoolVar(&cf.statistics, "statistics", false, "print a count per rule instead of the findings (a table, or JSON with --format json)")
	fs.StringVar(&cf.color, "color", "auto", "colour `WHEN`: auto, always, never")
	fs.BoolVar(&cf.showParseErrors, "show-parse-errors", false, "report files that do not parse (CL900)")
	fs.BoolVar(&cf.fix, "fix", false, "apply safe fixes")
	fs.BoolVar(&cf.unsafeFixes, "unsafe-fixes", false, "include unsafe fixes (with --fix or --diff)")
	fs.BoolVar(&cf.diff, "diff", false, "print the fixes as a unified diff and change nothing")
	fs.StringVar(&cf.baseline, "baseline", "", "report only findings not recorded in this baseline `FILE`")
	fs.StringVar(&cf.writeBaseline, "write-baseline", "", "record the current findings in `FILE` and exit 0")
	fs.BoolVar(&cf.addNoqa, "add-noqa", false, "add '# noqa: CODE' comments to silence every current finding")
	fs.StringVar(&cf.costProfile, "cost-profile", "", "cost profile `FILE` written by 'cachelint probe --json' (estimated) or 'cachelint trace --json' (measured in your run): add the call's cost on that GPU to findings")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if !validFormat(cf.format) {
		return usageErr("unknown --format %q (want one of %s)", cf.format, strings.Join(output.Formats, ", "))
	}
	switch cf.color {
	case "auto", "always", "never":
	default:
		return usageErr("unknown --color %q (want auto, always or never)", cf.color)
	}
	if cf.statistics && !slices.Contains([]string{"text", "full", "concise", "json"}, cf.format) {
		return usageErr("--statistics prints a table (text, concise) or JSON (json), not --format %s", cf.format)
	}
	var profile *runtimecheck.CostProfile
	if cf.costProfile != "" {
		if profile, err = runtimecheck.LoadProfile(cf.costProfile); err != nil {
			return usageErr("--cost-profile: %v", err)
		}
	}
	opts, err := options(paths, &cf.commonFlags)
	if err != nil {
		return err
	}
	opts.Analysis = an
	if cf.baseline != "" {
		if opts.Baseline, err = baseline.Load(cf.baseline); err != nil {
			return usageErr("--baseline: %v", err)
		}
	}
	if opts.Rules, err = enabledRules(&cf, opts.Config); err != nil {
		return err
	}
	if cf.showParseErrors || (opts.Config != nil && opts.Config.ShowParseErrors != nil && *opts.Config.ShowParseErrors) {
		opts.Rules[rules.CL900] = true
	}
	if cf.writeBaseline != "" {
		opts.Baseline = nil // record everything there is
	}
	con := newConsole(stderr, cf.quiet)
	res, err := analyse(ctx, opts, &cf.commonFlags, con, stderr)
	if err != nil {
		return err
	}
	if cf.writeBaseline != "" {
		if err := res.WriteBaseline(cf.writeBaseline); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		con.notef("recorded %d finding(s) in %s", len(res.Report.Findings), cf.writeBaseline)
		return nil
	}
	if cf.addNoqa {
		if opts.Stdin != nil {
			return usageErr("--add-noqa edits files; it cannot take standard input")
		}
		n, err := res.AddNoqa()
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		con.notef("added %d noqa directive(s)", n)
		return nil
	}
	fixed := 0
	if cf.fix || cf.diff {
		fo := engine.FixOptions{Unsafe: cf.unsafeFixes}
		if cf.diff {
			fo.Diff = stdout
		}
		sum, err := res.ApplyFixes(fo)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		for _, f := range sum.Skipped {
			con.warnf("not fixing %s: the fixed code would not parse", f)
		}
		for _, r := range sum.Refused {
			fmt.Fprintf(stderr, "cachelint: warning: not fixing %s\n", r)
		}
		verb := "fixed"
		if cf.diff {
			verb = "would fix"
		}
		// The closing summary of a human format says what was fixed (ruff's "Found 3 errors
		// (1 fixed, 2 remaining)."); the note tells it where there is no such summary.
		summarised := !cf.diff && cf.quiet == quietNone && !cf.statistics &&
			(cf.format == "text" || cf.format == "full" || cf.format == "concise")
		if !summarised {
			con.notef("%s %d finding(s) in %d file(s), %d remaining", verb, sum.Fixed, sum.Files, sum.Remaining)
		}
		fixed = sum.Fixed
		if cf.diff {
			// Like ruff: a diff means the files are not clean yet.
			if (sum.Remaining > 0 || sum.Files > 0) && !cf.exitZero {
				return findingsExit
			}
			return nil
		}
		if opts.Stdin != nil {
			// As ruff: the fixed source goes to stdout, so the report goes to stderr.
			if _, err := stdout.Write(sum.Stdin); err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("write fixed source: %w", err)}
			}
			opts.Stdin = &engine.Stdin{Name: opts.Stdin.Name, Source: sum.Stdin}
			stdout = stderr
		}
		// Re-lint the fixed files so the report shows what remains.
		if res, err = analyse(ctx, opts, &cf.commonFlags, con, stderr); err != nil {
			return err
		}
	}
	rep := res.Report
	for i := range rep.Findings {
		f := &rep.Findings[i]
		f.Cost = output.CostLine(f, profile.CostsAt(f.File, f.Line))
	}

	w := stdout
	var outFile *os.File
	if cf.output != "" {
		outFile, err = os.Create(cf.output)
		if err != nil {
			return usageErr("--output: %v", err)
		}
		defer outFile.Close()
		w = outFile
	}
	oo := output.Options{Color: useColor(cf.color, w), Version: currentVersion().version, Cwd: res.Cwd, ProjectRoot: res.RootRel,
		UnsafeFixes: cf.unsafeFixes, Quiet: cf.quiet > quietNone, Fixed: fixed}
	if cf.format == "github" {
		oo.Workspace = os.Getenv("GITHUB_WORKSPACE")
		if p := os.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
			if sf, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				defer sf.Close()
				oo.StepSummary = sf
			} else {
				con.warnf("GITHUB_STEP_SUMMARY: %v", err)
			}
		}
	}
	switch {
	case cf.quiet >= quietSilent && outFile == nil:
		// -qq: nothing on stdout; a report asked for with -o is still written.
	case cf.statistics && cf.format == "json":
		err = output.StatisticsJSON(w, rep, oo)
	case cf.statistics:
		err = output.Statistics(w, rep, oo)
	default:
		err = output.Print(w, cf.format, rep, oo)
	}
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("write report: %w", err)}
	}
	if outFile != nil {
		if err := outFile.Close(); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("write %s: %w", cf.output, err)}
		}
	}
	if err := finish(res, con, stderr); err != nil {
		return err
	}
	// A file whose analysis was cut short (named in a warning above) may hide findings: the
	// run is not clean.
	if (len(rep.Findings) > 0 || len(res.Incomplete) > 0) && !cf.exitZero {
		return findingsExit
	}
	return nil
}

func validFormat(f string) bool {
	if f == "full" {
		return true
	}
	for _, x := range output.Formats {
		if x == f {
			return true
		}
	}
	return false
}

// useColor decides colour once, for the writer the report goes to: NO_COLOR and TERM=dumb
// turn it off, and auto means "when that writer is a terminal".
func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// enabledRules applies ruff's selection semantics: select replaces the defaults,
// extend-select adds, ignore removes; command-line flags override the configuration. As in
// ruff, --select on the command line replaces the configuration's select and its
// extend-select both: what the user typed is the whole selection, less what is ignored.
func enabledRules(cf *checkFlags, cfg *config.Config) (map[string]bool, error) {
	var sel, ext, ign []string
	if cfg != nil {
		sel, ext, ign = cfg.Select, cfg.ExtendSelect, cfg.Ignore
	}
	if cf.selectR.set {
		sel, ext = cf.selectR.vals, nil
	}
	ext = append(append([]string(nil), ext...), cf.extendSelect.vals...)
	ign = append(append([]string(nil), ign...), cf.ignore.vals...)
	on := map[string]bool{}
	if sel == nil {
		for _, r := range rules.All() {
			if r.Default {
				on[r.Code] = true
			}
		}
	}
	added, err := matchRules(append(append([]string(nil), sel...), ext...))
	if err != nil {
		return nil, err
	}
	for _, r := range added {
		on[r.Code] = true
	}
	ignored, err := matchRules(ign)
	if err != nil {
		return nil, err
	}
	for _, r := range ignored {
		delete(on, r.Code)
	}
	return on, nil
}

// matchRules expands rule selectors (codes, prefixes, names, ALL) into the rules they name;
// an unknown selector is a usage error.
func matchRules(selectors []string) ([]rules.Rule, error) {
	var out []rules.Rule
	for _, s := range selectors {
		rs, err := rules.Match(s)
		if err != nil {
			return nil, usageErr("%v (run 'cachelint rules' for the list)", err)
		}
		out = append(out, rs...)
	}
	return out, nil
}
