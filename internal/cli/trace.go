package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mattn/go-isatty"

	"github.com/cachelint/cachelint/internal/engine"
	runtimecheck "github.com/cachelint/cachelint/runtime-check"
)

// traceRules are the rules whose call sites a trace may skip: the calls the static
// analysis says run in a loop with no legitimate purpose.
var traceRules = map[string]bool{"CL001": true, "CL002": true, "CL004": true}

// runTrace runs `cachelint trace [flags] -- CMD [ARGS...]`: the project (the working
// directory, or --project-root) is analysed first, and its CL001/CL002/CL004 sites are the
// ones the shim may skip. Flags end at the first argument that is not one, or at "--".
func runTrace(ctx context.Context, an engine.Analysis, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	fs := newFlagSet("trace", "trace [flags] -- CMD [ARGS...]", stdout)
	cf.register(fs)
	jsonPath := fs.String("json", "", "write the measured cost profile to `FILE` (for check --cost-profile)")
	window := fs.Int("window", 10, "`N` steps per window")
	noSkip := fs.Bool("no-skip", false, "only observe: never skip a call")
	costProfile := fs.String("cost-profile", "", "probe profile `FILE` whose estimate the written profile keeps for sites the run never reaches")
	noProgress := fs.Bool("no-progress", false, "no progress line, even on a terminal")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usagePrinters[fs]()
			return err
		}
		return usageErr("%s", err)
	}
	command := fs.Args()
	if len(command) == 0 {
		return usageErr("trace: no command (cachelint trace [flags] -- CMD [ARGS...])")
	}
	if *window < 2 {
		return usageErr("--window %d: a window needs at least 2 steps", *window)
	}
	var static *runtimecheck.CostProfile
	if *costProfile != "" {
		p, err := runtimecheck.LoadProfile(*costProfile)
		if err != nil {
			return usageErr("--cost-profile: %v", err)
		}
		static = p
	}
	root := cf.projectRoot
	if root == "" {
		root = "."
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return usageErr("--project-root: %v", err)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	opts, err := options([]string{root}, &cf)
	if err != nil {
		return err
	}
	opts.Analysis, opts.Calls = an, true
	if opts.Root == "" {
		opts.Root = root // the traced project, not the repository around it
	}
	res, err := analyse(ctx, opts, &cf, newConsole(stderr, cf.quiet), stderr)
	if err != nil {
		return err
	}
	var sites []runtimecheck.StaticSite
	for _, c := range res.Calls {
		if c.Rule == nil || !traceRules[*c.Rule] || c.Role != "call" || c.Cell != nil {
			continue
		}
		file, err := filepath.Abs(c.File)
		if err != nil {
			continue
		}
		sites = append(sites, runtimecheck.StaticSite{File: file, Line: c.Line, Rule: *c.Rule})
	}
	tr, err := runtimecheck.Trace(ctx, runtimecheck.TraceOptions{
		Command: command, Root: root, Sites: sites, Window: *window, NoSkip: *noSkip,
		JSONPath: *jsonPath, Static: static,
		Progress: !*noProgress && isatty.IsTerminal(os.Stderr.Fd()),
	}, stderr)
	if err != nil {
		if tr != nil && tr.Run.ExitCode != 0 {
			fmt.Fprintf(stderr, "cachelint: %s exited with status %d\n", command[0], tr.Run.ExitCode)
		}
		return &exitError{code: exitUsage, err: err}
	}
	runtimecheck.PrintTrace(stderr, tr)
	if *jsonPath != "" {
		fmt.Fprintf(stderr, "cachelint: wrote the cost profile to %s (cachelint check --cost-profile %s)\n", *jsonPath, *jsonPath)
	}
	if tr.Run.ExitCode != 0 {
		// The command's own failure is the run's result, as for any wrapper (time, nice).
		return &exitError{code: tr.Run.ExitCode, err: fmt.Errorf("%s exited with status %d", command[0], tr.Run.ExitCode)}
	}
	return nil
}
