package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cachelint/cachelint/internal/engine"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProgressLine: the line says how far the run has got and is erased when it stops; a
// run that stops before the delay prints nothing.
func TestProgressLine(t *testing.T) {
	var quick lockedBuffer
	startProgress(&quick, &engine.Progress{}, time.Hour, time.Millisecond)()
	if quick.String() != "" {
		t.Errorf("a run shorter than the delay printed %q", quick.String())
	}

	var out lockedBuffer
	p := &engine.Progress{}
	p.Parsed.Store(12345)
	p.Round.Store(3)
	stop := startProgress(&out, p, 0, time.Millisecond)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "12,345 files parsed") && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	stop()
	got := out.String()
	if !strings.Contains(got, "\rcachelint: analysing: 12,345 files parsed, prefilter round 3") {
		t.Errorf("progress line missing: %q", got)
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("the line is not erased at the end: %q", got)
	}

	// A tree of repositories also says how many are done.
	var repos lockedBuffer
	p.Repos.Store(15)
	p.Done.Store(4)
	stop = startProgress(&repos, p, 0, time.Millisecond)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(repos.String(), "repositories") && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	stop()
	if !strings.Contains(repos.String(), "12,345 files parsed, 4 of 15 repositories done, prefilter round 3") {
		t.Errorf("progress line without the repositories: %q", repos.String())
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
