package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/cachelint/cachelint/internal/engine"
)

// progressDelay is how long a run goes before it shows a progress line: a run answered from
// the cache, or a small project, finishes first and prints nothing.
const progressDelay = time.Second

// startProgress shows, on w, a line that says how far the run has got ("analysing: 1,234
// files parsed, prefilter round 3, 12 s"; for a tree of repositories also "4 of 15
// repositories done"), rewritten in place every tick after delay, and
// returns the function that stops it and erases the line. It is meant for a terminal only:
// the caller decides (progressWanted).
func startProgress(w io.Writer, p *engine.Progress, delay, tick time.Duration) (stop func()) {
	start := time.Now()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		shown := false
		defer func() {
			if shown {
				fmt.Fprint(w, "\r\x1b[K")
			}
		}()
		select {
		case <-quit:
			return
		case <-time.After(delay):
		}
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			repos := ""
			if n := p.Repos.Load(); n > 0 {
				repos = fmt.Sprintf("%d of %d repositories done, ", p.Done.Load(), n)
			}
			fmt.Fprintf(w, "\rcachelint: analysing: %s files parsed, %sprefilter round %d, %s\x1b[K",
				thousands(p.Parsed.Load()), repos, p.Round.Load(), time.Since(start).Round(time.Second))
			shown = true
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// progressWanted reports whether a progress line belongs on w: a terminal, and no -q.
func progressWanted(w io.Writer, quiet int) bool {
	f, ok := w.(*os.File)
	return quiet == 0 && ok && os.Getenv("TERM") != "dumb" && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// thousands writes n with comma separators (12,345).
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
