package runtimecheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// The driver's cuMemFree cost drifts: it is CPU work in the kernel driver (a loop over
// every 64 KiB frame freed), and on the H200 of docs/probe.md it moved between about 6 and
// 11 ms for the same 11 GiB within seconds, in one process and across consecutive ones
// alike. So the replay also runs in fresh processes (the probe's own binary, started again
// with replayEnv set), spreading its samples over more time, and the estimate takes the
// median over processes, with their spread as its range.

// replayEnv carries a replayRequest to a fresh process; RunProbe then runs only the replay.
const replayEnv = "CACHELINT_PROBE_REPLAY"

// defaultProcesses is --processes: this one and two fresh ones.
const defaultProcesses = 3

type replayRequest struct {
	Device   int            `json:"device"`
	Released []SegmentGroup `json:"released"`
	BudgetMs int64          `json:"budget_ms"`
}

// ProcessReplay is the replay's medians in one process, or why it failed there.
type ProcessReplay struct {
	FreeUs          float64 `json:"free_us"`
	FreeUnwrittenUs float64 `json:"free_unwritten_us"`
	FreeColdUs      float64 `json:"free_cold_us"`
	AllocUs         float64 `json:"alloc_us"`
	Passes          int     `json:"passes"`
	Error           string  `json:"error,omitempty"`
}

func processReplayOf(r Replay) ProcessReplay {
	return ProcessReplay{FreeUs: r.Free.Median, FreeUnwrittenUs: r.FreeUnwritten.Median, FreeColdUs: r.FreeCold.Median,
		AllocUs: r.Alloc.Median, Passes: r.Free.N}
}

// replayCommand names the program and arguments that start a fresh probe process: this
// binary with the arguments it was given (`cachelint probe …` or the stand-alone probe).
var replayCommand = func() (string, []string, error) {
	exe, err := os.Executable()
	return exe, os.Args[1:], err
}

// freshReplays runs the replay of w in n-1 fresh processes, one after another, sharing
// what is left of the time budget.
func freshReplays(ctx context.Context, device int, w Workload, n int, deadline time.Time, now func() time.Time, progress func(string)) []ProcessReplay {
	var out []ProcessReplay
	for i := 1; i < n; i++ {
		if progress != nil {
			progress(fmt.Sprintf("replaying in a fresh process (%d of %d)", i, n-1))
		}
		left := deadline.Sub(now()) / time.Duration(n-i)
		if left < 500*time.Millisecond || ctx.Err() != nil {
			out = append(out, ProcessReplay{Error: "no time left in the probe's budget"})
			continue
		}
		r, err := freshReplay(ctx, replayRequest{Device: device, Released: w.Released, BudgetMs: left.Milliseconds()}, left)
		if err != nil {
			out = append(out, ProcessReplay{Error: oneLine(err.Error())})
			continue
		}
		out = append(out, processReplayOf(r))
	}
	return out
}

func freshReplay(ctx context.Context, req replayRequest, limit time.Duration) (Replay, error) {
	exe, args, err := replayCommand()
	if err != nil {
		return Replay{}, err
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return Replay{}, err
	}
	// A process that does not come back within its share (plus start-up) is killed.
	cctx, cancel := context.WithTimeout(ctx, limit+5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe, args...)
	cmd.Env = append(os.Environ(), replayEnv+"="+string(payload))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return Replay{}, errors.New(strings.TrimPrefix(msg, "cachelint probe: "))
		}
		return Replay{}, err
	}
	var r Replay
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return Replay{}, fmt.Errorf("fresh replay process wrote no replay: %w", err)
	}
	if r.Free.N == 0 {
		return Replay{}, errors.New("fresh replay process timed no free pass")
	}
	return r, nil
}

// runReplayChild is a fresh process's whole job: open the device, replay, print the
// replay as JSON, release everything.
func runReplayChild(ctx context.Context, payload string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "cachelint probe: "+oneLine(err.Error()))
		return 2
	}
	var req replayRequest
	if err := json.Unmarshal([]byte(payload), &req); err != nil {
		return fail(fmt.Errorf("bad %s: %w", replayEnv, err))
	}
	w := Workload{Released: req.Released}
	if w.Segments() == 0 {
		return fail(fmt.Errorf("bad %s: no segments", replayEnv))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	drv, err := openDriver()
	if err != nil {
		return fail(err)
	}
	p := &prober{drv: drv, now: clock, ctx: ctx, live: map[DevicePtr]uint64{}}
	p.deadline = p.now().Add(time.Duration(req.BudgetMs) * time.Millisecond)
	r, err := func() (Replay, error) {
		dev, _, err := p.open(req.Device)
		if err != nil {
			return Replay{}, err
		}
		s, err := p.newStream()
		if err != nil {
			return Replay{}, err
		}
		return p.replay(w, dev.FreeBytes, s)
	}()
	if cerr := p.close(); err == nil && cerr != nil {
		err = fmt.Errorf("releasing probe resources: %w", cerr)
	}
	if err != nil {
		return fail(describe(err))
	}
	if err := json.NewEncoder(stdout).Encode(r); err != nil {
		return fail(err)
	}
	return 0
}
