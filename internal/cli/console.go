package cli

import (
	"fmt"
	"io"
	"strconv"
)

// Quiet levels, as ruff's: -q prints the findings and nothing else (no summary, warnings
// or notes); -qq (--silent) prints nothing and only the exit code tells.
const (
	quietNone = iota
	quietQuiet
	quietSilent
)

// console prints what cachelint says on stderr besides the report: warnings and notes,
// each once (a --fix run analyses twice), none of them under -q. Errors do not pass
// through here: they are always printed, by Run.
type console struct {
	w       io.Writer
	quiet   int
	printed map[string]bool
}

func newConsole(w io.Writer, quiet int) *console {
	return &console{w: w, quiet: quiet, printed: map[string]bool{}}
}

// warnf prints "cachelint: warning: ...".
func (c *console) warnf(format string, args ...any) {
	c.say("warning: "+format, args...)
}

// notef prints "cachelint: ..." (what --fix or --add-noqa did).
func (c *console) notef(format string, args ...any) {
	c.say(format, args...)
}

func (c *console) say(format string, args ...any) {
	if c.quiet > quietNone {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if c.printed[msg] {
		return
	}
	c.printed[msg] = true
	fmt.Fprintf(c.w, "cachelint: %s\n", msg)
}

// quietFlag is -q/--quiet (one level more each time) or -qq/--silent (the most).
type quietFlag struct {
	level  *int
	silent bool
}

func (q *quietFlag) String() string {
	if q == nil || q.level == nil {
		return ""
	}
	return strconv.Itoa(*q.level)
}

func (q *quietFlag) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	switch {
	case !on:
		*q.level = quietNone
	case q.silent:
		*q.level = quietSilent
	default:
		*q.level = min(*q.level+1, quietSilent)
	}
	return nil
}

func (q *quietFlag) IsBoolFlag() bool { return true }
