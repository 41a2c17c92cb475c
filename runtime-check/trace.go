package runtimecheck

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cachelint/cachelint/internal/units"
)

//go:embed shim/sitecustomize.py
var shimSource []byte

// StaticSite is a call site the static analysis reported (CL001, CL002 or CL004): the only
// sites whose calls the trace may skip.
type StaticSite struct {
	File string `json:"file"` // absolute
	Line int    `json:"line"`
	Rule string `json:"rule"`
}

// TraceOptions are `cachelint trace`'s settings.
type TraceOptions struct {
	// Command is what to run: the program and its arguments.
	Command []string
	// Root is the user's project (absolute): frames under it are the user's.
	Root string
	// Sites are the statically reported sites.
	Sites []StaticSite
	// Window is the number of steps in one window.
	Window int
	// NoSkip only observes.
	NoSkip bool
	// JSONPath, when set, receives the cost profile.
	JSONPath string
	// Static is a probe profile whose estimate the written profile keeps, for the sites
	// the run never reached; nil for none.
	Static *CostProfile
	// Progress prints a progress line to stderr (on a terminal).
	Progress bool
	// MarginBytes is the free memory skipping must leave beyond what a plain window's
	// peak needs; 0 means the default, 5% of the device's memory, at least 512 MiB.
	MarginBytes uint64
}

// TraceResult is what a trace produced.
type TraceResult struct {
	Run     TraceRun
	Sites   []MeasuredSite
	Profile *CostProfile
}

// utilPeriod is how often NVML is read: its utilisation is itself an average over a
// sample period of 1/6 s to 1 s, depending on the device.
const utilPeriod = 100 * time.Millisecond

// errNothingTraced is returned when no process of the command traced anything.
var errNothingTraced = errors.New("nothing was traced: no Python process of the command imported torch (is it a Python command run with this environment?)")

// Trace runs the user's command under the shim and measures every cache-emptying call
// site. The command's own exit code is in the result's Run.ExitCode; the error is about
// the trace (the command could not start, the shim wrote nothing, the profile could not
// be written).
func Trace(ctx context.Context, o TraceOptions, stderr io.Writer) (*TraceResult, error) {
	if len(o.Command) == 0 {
		return nil, errors.New("no command to trace (cachelint trace [flags] -- CMD [ARGS...])")
	}
	if o.Window < 2 {
		return nil, fmt.Errorf("--window %d: a window needs at least 2 steps", o.Window)
	}
	prog, err := exec.LookPath(o.Command[0])
	if err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", o.Command[0], err)
	}
	dir, err := os.MkdirTemp("", "cachelint-trace-")
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer os.RemoveAll(dir)
	shimDir, outDir := filepath.Join(dir, "shim"), filepath.Join(dir, "out")
	for _, d := range []string{shimDir, outDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(shimDir, "sitecustomize.py"), shimSource, 0o600); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	cfg := map[string]any{"window": o.Window, "no_skip": o.NoSkip, "root": o.Root, "sites": o.Sites,
		"out_dir": outDir, "margin_bytes": o.MarginBytes}
	if o.Sites == nil {
		cfg["sites"] = []StaticSite{}
	}
	cfgPath := filepath.Join(dir, "config.json")
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}

	cmd := exec.Command(prog, o.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = traceEnv(os.Environ(), shimDir, cfgPath)
	var sampler *utilSampler
	utilNote := ""
	if src, err := openUtil(); err != nil {
		utilNote = "no GPU utilisation: " + err.Error()
	} else {
		sampler = startUtilSampler(src, utilPeriod)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		if sampler != nil {
			sampler.Stop()
		}
		return nil, fmt.Errorf("cannot run %s: %w", o.Command[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	if o.Progress {
		werr = waitWithProgress(ctx, done, outDir, stderr)
	} else {
		werr = <-done
	}
	exit := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		exit = ee.ExitCode()
		if exit < 0 {
			exit = 128 + 2 // killed by a signal; the shell's convention for SIGINT
		}
	} else if werr != nil {
		return nil, fmt.Errorf("run %s: %w", o.Command[0], werr)
	}

	var samples []gpuSample
	if sampler != nil {
		samples = sampler.Stop()
	}
	procs, err := readTraceDir(outDir)
	if err != nil {
		return nil, err
	}
	run, sites := summarise(procs, o.Root, samples)
	run.Command, run.ExitCode, run.Window, run.NoSkip = o.Command, exit, o.Window, o.NoSkip
	if run.GPUUtil == nil && utilNote == "" {
		utilNote = "no GPU utilisation sample fell inside a window of the traced process's device"
	}
	run.UtilNote = utilNote
	if run.Processes == 0 {
		return &TraceResult{Run: run}, errNothingTraced
	}
	res := &TraceResult{Run: run, Sites: sites, Profile: traceProfile(run, sites, procs, o.Static, start)}
	if o.JSONPath != "" {
		if err := res.Profile.WriteFile(o.JSONPath); err != nil {
			return res, err
		}
	}
	return res, nil
}

// traceEnv puts the shim first on PYTHONPATH (children inherit it) and names the config.
func traceEnv(env []string, shimDir, cfgPath string) []string {
	out := make([]string, 0, len(env)+2)
	pp := shimDir
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "PYTHONPATH="):
			if old := strings.TrimPrefix(kv, "PYTHONPATH="); old != "" {
				pp += string(os.PathListSeparator) + old
			}
		case strings.HasPrefix(kv, "CACHELINT_TRACE_CONFIG="):
		default:
			out = append(out, kv)
		}
	}
	return append(out, "PYTHONPATH="+pp, "CACHELINT_TRACE_CONFIG="+cfgPath)
}

// waitWithProgress rewrites one progress line from the shim's files until the command ends.
func waitWithProgress(ctx context.Context, done <-chan error, outDir string, stderr io.Writer) error {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	shown := false
	for {
		select {
		case err := <-done:
			if shown {
				fmt.Fprint(stderr, "\r\033[K")
			}
			return err
		case <-tick.C:
			procs, err := readTraceDir(outDir)
			if err != nil || len(procs) == 0 {
				continue
			}
			run, sites := summarise(procs, "", nil)
			fmt.Fprintf(stderr, "\r\033[Kcachelint trace: %d steps, %d plain and %d skip windows, %d call sites", run.Steps, run.PlainWindows, run.SkipWindows, len(sites))
			shown = true
		case <-ctx.Done():
			// The interrupt reached the command too (same process group): wait for it, so
			// that what it measured is still reported.
			ctx = context.Background()
		}
	}
}

// traceProfile is the cost profile the trace writes: the probe's schema with the measured
// sites, and the probe's estimate when one was given.
func traceProfile(run TraceRun, sites []MeasuredSite, procs []traceProcess, static *CostProfile, start time.Time) *CostProfile {
	p := &CostProfile{Schema: ProfileSchema, Version: ProfileVersion}
	if static != nil {
		cp := *static
		p = &cp
		p.Notes = append([]string(nil), static.Notes...)
	}
	p.CreatedAt = start.UTC().Format(time.RFC3339)
	for _, pr := range procs {
		if pr.Device.Name != "" {
			p.Device.Index, p.Device.Name, p.Device.TotalBytes = pr.Device.Index, pr.Device.Name, pr.Device.TotalBytes
			break
		}
	}
	if p.Device.Name == "" {
		p.Device.Name = "no CUDA device (CUDA was never initialised)"
	}
	r := run
	p.Trace = &r
	p.Sites = sites
	return p
}

// PrintTrace writes the per-site table.
func PrintTrace(w io.Writer, res *TraceResult) {
	run := res.Run
	src := "optimizer steps"
	if run.StepSource == StepsAtForward {
		src = "top-level module forwards (no optimizer step seen: an inference loop)"
	}
	dev := ""
	if res.Profile != nil {
		dev = " on " + res.Profile.Device.Name
	}
	fmt.Fprintf(w, "cachelint trace: %d steps%s in %d process(es), counted at %s; windows of %d steps: %d with every call, %d without one site's calls\n",
		run.Steps, dev, run.Processes, src, run.Window, run.PlainWindows, run.SkipWindows)
	if run.SkipStopped != "" {
		fmt.Fprintf(w, "  skipping stopped for good: %s\n", run.SkipStopped)
	}
	if run.Pauses > 0 {
		fmt.Fprintf(w, "  the program paused the trace %d time(s) (_cachelint_trace.pause()): those steps and calls are not counted\n", run.Pauses)
	}
	if run.UtilNote != "" {
		fmt.Fprintf(w, "  %s\n", run.UtilNote)
	}
	for _, n := range run.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if len(res.Sites) == 0 {
		fmt.Fprintln(w, "  no cache-emptying call ran")
		return
	}
	for i := range res.Sites {
		m := &res.Sites[i]
		fmt.Fprintf(w, "\n%s: %s\n", m.siteName(), m.headline())
		if !m.Measured {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  \twith its calls\twithout\t")
		fmt.Fprintf(tw, "  steps/s\t%.1f\t%.1f\t\n", 1e6/m.StepUs, 1e6/m.StepUsSkip)
		fmt.Fprintf(tw, "  peak reserved\t%s\t%s\t\n", formatBytes(m.PeakReserved), formatBytes(m.PeakReservedSkip))
		fmt.Fprintf(tw, "  allocator retries\t%d\t%d\t\n", m.Retries, m.RetriesSkip)
		if m.GPUUtil != nil && m.GPUUtilSkip != nil {
			fmt.Fprintf(tw, "  GPU utilisation\t%.0f%%\t%.0f%%\t\n", *m.GPUUtil, *m.GPUUtilSkip)
		}
		if m.ReleasedPerCall > 0 {
			fmt.Fprintf(tw, "  released per call\t%s\t\t\n", formatBytes(m.ReleasedPerCall))
		}
		tw.Flush()
	}
}

// headline is the site's one-line summary: "1 call/step, 18 ms per step (24% of a 75 ms
// step), peak reserved unchanged: remove it".
func (m *MeasuredSite) headline() string {
	calls := fmt.Sprintf("%d call(s)", m.Calls)
	if m.CallsPerStep > 0 {
		calls = fmt.Sprintf("%.3g call/step", m.CallsPerStep)
	}
	if m.InHandler > 0 {
		calls += fmt.Sprintf(", %d in an exception handler", m.InHandler)
	}
	if !m.Measured {
		return calls + "; " + m.Verdict
	}
	return fmt.Sprintf("%s, %s per step (%.0f%% of a %s step; %s to %s over %d window pairs), %s",
		calls, units.Us(m.PerStepUs), 100*m.PerStepUs/m.StepUs, units.Us(m.StepUs),
		units.Us(m.LowUs), units.Us(m.HighUs), m.Pairs, m.Verdict)
}
