package runtimecheck

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cachelint/cachelint/internal/units"
	"github.com/mattn/go-isatty"
)

// openDriver is how RunProbe gets a driver; tests replace it with a simulated GPU.
var openDriver = OpenLibcuda

// clock is the probe's time source; the simulated driver in tests supplies its own.
var clock = time.Now

const usage = `usage: cachelint probe [flags]

Measures, on this machine's GPU, what a CPU-GPU sync and a caching-allocator refill cost,
and estimates one torch.cuda.empty_cache() call for a workload.

Flags:
  --device N         GPU to probe (default 0)
  --reserved-gb GB   workload: GiB the caching allocator holds (default 8)
  --segments N       workload: segments it holds (default 100)
  --torch-stats FILE workload: JSON of torch.cuda.memory_snapshot() (exact) or
                     torch.cuda.memory_stats() taken where empty_cache() runs
                     (see docs/probe.md)
  --sync-ms MS       what one torch.cuda.synchronize() per step costs your loop
                     (step time with it minus without); replaces the probe's
                     synthetic pipeline bubble, which is a lower bound
  --refill-ms MS     what the next step's re-allocation costs your loop, if you
                     measured it: a step right after empty_cache() minus one after
                     none, both synchronised (default: the replayed cuMemAlloc
                     time in full)
  --step-ms MS       your training step time, to express the cost as a share of it
  --processes N      replay the workload in this process and N-1 fresh ones and
                     take the median (default 3; the driver's free cost differs
                     from process to process)
  --json FILE        write the cost profile (for cachelint check --cost-profile)
  --no-progress      no progress line, even on a terminal
`

type probeOptions struct {
	device     int
	reservedGB float64
	segments   int
	torchStats string
	stepMs     float64
	syncMs     float64 // < 0: not given
	refillMs   float64 // < 0: not given
	processes  int
	jsonPath   string
	noProgress bool
}

func parseProbeArgs(args []string) (probeOptions, Workload, error) {
	var o probeOptions
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.IntVar(&o.device, "device", 0, "")
	fs.Float64Var(&o.reservedGB, "reserved-gb", defaultReservedGB, "")
	fs.IntVar(&o.segments, "segments", defaultSegments, "")
	fs.StringVar(&o.torchStats, "torch-stats", "", "")
	fs.Float64Var(&o.stepMs, "step-ms", 0, "")
	fs.Float64Var(&o.syncMs, "sync-ms", -1, "")
	fs.Float64Var(&o.refillMs, "refill-ms", -1, "")
	fs.IntVar(&o.processes, "processes", defaultProcesses, "")
	fs.StringVar(&o.jsonPath, "json", "", "")
	fs.BoolVar(&o.noProgress, "no-progress", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, Workload{}, err
		}
		return o, Workload{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, Workload{}, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.device < 0 {
		return o, Workload{}, fmt.Errorf("%w: --device must be 0 or more, got %d", errUsage, o.device)
	}
	if o.processes < 1 || o.processes > 10 {
		return o, Workload{}, fmt.Errorf("%w: --processes must be 1 to 10, got %d", errUsage, o.processes)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"step-ms", o.stepMs}, {"sync-ms", o.syncMs}, {"refill-ms", o.refillMs}} {
		if set[f.name] && (f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0)) {
			return o, Workload{}, fmt.Errorf("%w: --%s must be 0 or more milliseconds, got %v", errUsage, f.name, f.v)
		}
	}
	if o.torchStats != "" {
		if set["reserved-gb"] || set["segments"] {
			return o, Workload{}, fmt.Errorf("%w: --torch-stats describes the workload; drop --reserved-gb/--segments", errUsage)
		}
		w, err := torchStatsWorkload(o.torchStats)
		return o, w, err
	}
	source := "default"
	if set["reserved-gb"] || set["segments"] {
		source = "flags"
	}
	w, err := flagWorkload(source, o.reservedGB, o.segments)
	if err != nil {
		return o, w, fmt.Errorf("%w: %w", errUsage, err)
	}
	return o, w, nil
}

// RunProbe implements `cachelint probe [flags]`; args exclude the word "probe". It returns
// the exit code (0 ok, 2 error); errors are one line on stderr.
func RunProbe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if payload := os.Getenv(replayEnv); payload != "" {
		return runReplayChild(ctx, payload, stdout, stderr)
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "cachelint probe: "+oneLine(err.Error()))
		return 2
	}
	o, w, err := parseProbeArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if err != nil {
		if errors.Is(err, errUsage) {
			return fail(fmt.Errorf("%s (see cachelint probe --help)", strings.TrimPrefix(err.Error(), errUsage.Error()+": ")))
		}
		return fail(err)
	}
	prof, err := probe(ctx, o, w, progressFunc(stderr, o.noProgress, 6+o.processes))
	if err != nil {
		return fail(err)
	}
	if o.jsonPath != "" {
		if err := prof.WriteFile(o.jsonPath); err != nil {
			return fail(err)
		}
	}
	printTable(stdout, prof)
	return 0
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// progressFunc returns a reporter that rewrites one status line on a terminal and does
// nothing elsewhere, so logs and pipes stay clean.
func progressFunc(w io.Writer, off bool, steps int) func(string) {
	f, ok := w.(*os.File)
	if off || !ok || (!isatty.IsTerminal(f.Fd()) && !isatty.IsCygwinTerminal(f.Fd())) {
		return nil
	}
	n := 0
	return func(step string) {
		n++
		if step == "" {
			fmt.Fprint(w, "\r\033[K")
			return
		}
		fmt.Fprintf(w, "\r\033[K[%d/%d] %s…", n, steps, step)
	}
}

func probe(ctx context.Context, o probeOptions, w Workload, progress func(string)) (*CostProfile, error) {
	// A CUDA context is current per OS thread: every call must come from this one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	if progress != nil {
		progress("opening the CUDA driver")
		defer progress("")
	}
	drv, err := openDriver()
	if err != nil {
		return nil, err
	}
	p := &prober{drv: drv, now: clock, progress: progress, ctx: ctx, live: map[DevicePtr]uint64{}}
	p.deadline = p.now().Add(probeBudget)
	dev, driver, err := p.open(o.device)
	if err == nil {
		var m Measurements
		m, err = p.measure(w, dev.FreeBytes)
		if err == nil {
			prof := &CostProfile{
				Schema:       ProfileSchema,
				Version:      ProfileVersion,
				CreatedAt:    time.Now().UTC().Format(time.RFC3339),
				Device:       dev,
				Driver:       driver,
				Workload:     w,
				Measurements: m,
				Estimate:     estimate(m, w, o.stepMs, o.syncMs, o.refillMs),
				Notes:        append(append([]string(nil), w.Notes...), p.notes...),
			}
			if cerr := p.close(); cerr != nil {
				return nil, fmt.Errorf("releasing probe resources: %w", cerr)
			}
			if o.processes > 1 {
				r := &prof.Measurements.Replay
				r.Processes = append([]ProcessReplay{processReplayOf(*r)},
					freshReplays(ctx, o.device, w, o.processes, p.deadline, p.now, progress)...)
				for _, pr := range r.Processes[1:] {
					if pr.Error != "" {
						prof.Notes = append(prof.Notes, "replay in a fresh process failed: "+pr.Error)
					}
				}
				if n := modeNote(r.Processes); n != "" {
					prof.Notes = append(prof.Notes, n)
				}
				prof.Estimate = estimate(prof.Measurements, w, o.stepMs, o.syncMs, o.refillMs)
			}
			return prof, nil
		}
	}
	_ = p.close() // the first error is the one to report
	return nil, describe(err)
}

// modeNote says when the processes' free passes disagree by half or more: the driver's
// free cost has fast and slow phases that change within seconds (docs/probe.md), and the
// user should know the estimate straddles them.
func modeNote(procs []ProcessReplay) string {
	lo, hi := math.Inf(1), 0.0
	for _, pr := range procs {
		if pr.Error == "" && pr.FreeUs > 0 {
			lo, hi = math.Min(lo, pr.FreeUs), math.Max(hi, pr.FreeUs)
		}
	}
	if hi == 0 || hi < 1.5*lo {
		return ""
	}
	return fmt.Sprintf("the free pass took %s to %s in different processes (%.1f×): the driver's free cost (CPU work in the kernel driver) has fast and slow phases that change within seconds; the range covers both",
		units.Us(lo), units.Us(hi), hi/lo)
}

// describe turns a probe failure into the one line the user sees.
func describe(err error) error {
	switch {
	case errors.Is(err, ErrNoLibrary), errors.Is(err, errNoDevice):
		return err
	case resultCode(err) != 0:
		return fmt.Errorf("CUDA driver error: %w", err)
	}
	return err
}

func printTable(out io.Writer, p *CostProfile) {
	d := p.Device
	fmt.Fprintf(out, "cachelint probe: %s (device %d, compute %s, %d SMs, %s, %s free), CUDA driver %s\n\n",
		d.Name, d.Index, d.ComputeCapability, d.Multiprocessors, formatBytes(d.TotalBytes), formatBytes(d.FreeBytes), p.Driver.Version)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(name string, s Stat) {
		fmt.Fprintf(tw, "%s\t%s\t%s – %s\t%d\n", name, units.Us(s.Median), units.Us(s.P10), units.Us(s.P90), s.N)
	}
	m := p.Measurements
	fmt.Fprintln(tw, "measurement\tmedian\tp10 – p90\tn")
	row("cuCtxSynchronize, idle device", m.IdleSync)
	row("spin kernel, 200 µs asked", m.SpinKernel)
	row("pipeline bubble per sync (every kernel)", m.SyncBubble)
	row("pipeline bubble per sync (every 10th)", m.SyncBubbleEvery10)
	for _, a := range m.AllocFree {
		row("cuMemAlloc_v2 "+formatBytes(a.SizeBytes), a.Alloc)
		row("cuMemFree_v2  "+formatBytes(a.SizeBytes), a.Free)
	}
	busy := func(name string, b BusyCheck) {
		verdict := "does not wait for the device"
		if b.Waits {
			verdict = "waits for the device"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s – %s\t%d\t%s (%s kernel)\n", name, units.Us(b.Blocked.Median),
			units.Us(b.Blocked.P10), units.Us(b.Blocked.P90), b.Blocked.N, verdict, units.Us(b.KernelUs))
	}
	busy("cuMemFree_v2 while another stream busy", m.FreeWhileBusy)
	busy("cuMemAlloc_v2 while another stream busy", m.AllocWhileBusy)
	r := m.Replay
	row(fmt.Sprintf("free %d written segments (%s)", r.Segments, formatBytes(r.Bytes)), r.Free)
	row(fmt.Sprintf("free %d unwritten segments", r.Segments), r.FreeUnwritten)
	row(fmt.Sprintf("free %d written segments, CPU caches cold", r.Segments), r.FreeCold)
	row(fmt.Sprintf("re-allocate %d segments", r.Segments), r.Alloc)
	if len(r.Processes) > 1 {
		var frees []string
		for _, pr := range r.Processes {
			if pr.Error == "" {
				frees = append(frees, units.Us(pr.FreeUs))
			}
		}
		free, cold, _ := r.acrossProcesses()
		fmt.Fprintf(tw, "free pass, median over %d processes\t%s\t%s – %s\t%d\t%s\n", len(frees),
			units.Us(free.Median), units.Us(free.P10), units.Us(free.P90), free.N, strings.Join(frees, ", "))
		fmt.Fprintf(tw, "free pass, CPU caches cold, over processes\t%s\t%s – %s\t%d\n",
			units.Us(cold.Median), units.Us(cold.P10), units.Us(cold.P90), cold.N)
	}
	_ = tw.Flush()

	e := p.Estimate
	fmt.Fprintf(out, "\nworkload (%s): %d of %d cached segments released, %s of %s\n",
		p.Workload.Source, e.Segments, p.Workload.ReservedSegments, formatBytes(e.Bytes), formatBytes(p.Workload.ReservedBytes))
	syncWhat := "sync bubble"
	if e.SyncSource == SyncFromUser {
		syncWhat = "sync (--sync-ms)"
	}
	fmt.Fprintf(out, "estimate: one torch.cuda.empty_cache() costs ~%s (%s – %s) = %s %s + %s free (CPU caches cold, as after a training step; %s warm)",
		units.Us(e.PerCallUs), units.Us(e.LowUs), units.Us(e.HighUs), units.Us(e.SyncUs), syncWhat, units.Us(e.FreeUs), units.Us(e.FreeWarmUs))
	switch e.RefillSource {
	case RefillAllocWaits:
		fmt.Fprintf(out, " + %s refill (cuMemAlloc waits for the device here)", units.Us(e.ExposedRefillUs))
	case RefillFromUser:
		fmt.Fprintf(out, " + %s refill (--refill-ms)", units.Us(e.ExposedRefillUs))
	default:
		fmt.Fprintf(out, " + %s refill (the next step's cuMemAlloc, exposed after the sync)", units.Us(e.ExposedRefillUs))
	}
	if e.StepUs > 0 {
		fmt.Fprintf(out, ", %.0f%% of a %s step", 100*e.Fraction, units.Us(e.StepUs))
	}
	fmt.Fprintln(out)
	if e.RefillSource == RefillFromProbe {
		fmt.Fprintf(out, "          down to ~%s if the step hides the refill behind queued GPU work, up to ~%s if it pays\n"+
			"          more for it than a tight loop of cuMemAlloc, as launch-bound steps do (measure it and pass --refill-ms)\n",
			units.Us(e.LowUs), units.Us(e.HighUs))
	}
	for _, n := range p.Notes {
		fmt.Fprintln(out, "note: "+n)
	}
}
