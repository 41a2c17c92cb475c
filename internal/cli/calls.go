package cli

import (
	"context"
	"io"

	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/internal/output"
)

func runCalls(ctx context.Context, an engine.Analysis, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cf := commonFlags{stdin: stdin}
	fs := newFlagSet("calls", "calls [flags] [PATH...]", stdout)
	cf.register(fs)
	format := fs.String("format", "text", "text or json")
	fs.StringVar(format, "output-format", "text", "alias of --format")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return usageErr("unknown --format %q (want text or json)", *format)
	}
	opts, err := options(paths, &cf)
	if err != nil {
		return err
	}
	opts.Analysis, opts.Calls = an, true
	con := newConsole(stderr, cf.quiet)
	res, err := analyse(ctx, opts, &cf, con, stderr)
	if err != nil {
		return err
	}
	for _, u := range res.Unreadable {
		con.warnf("%s", u)
	}
	if cf.quiet < quietSilent {
		if err := output.PrintCalls(stdout, *format, res.Calls, cf.quiet > quietNone); err != nil {
			return err
		}
	}
	res.Unreadable = nil // printed above, before the table
	return finish(res, con, stderr)
}
