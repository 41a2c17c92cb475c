package runtimecheck

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/cachelint/cachelint/internal/units"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The trace tests run the real python3 on the fake torch in testdata/trace/faketorch,
// whose GPU work advances a virtual clock: what the trace measures is exactly what the
// fake charges (FAKE_TORCH_EMPTY_S + FAKE_TORCH_REFILL_S for a call that releases), so
// the figures are exact and no assertion depends on this machine's speed.

const (
	fakeEmptyUs  = 5000.0
	fakeRefillUs = 3000.0
	fakeStepUs   = 10000.0
)

type traceFixture struct {
	proj, faketorch string
}

func newTraceFixture(t *testing.T) traceFixture {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH")
	}
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.Join("..", "testdata", "trace", p))
		if err != nil {
			t.Fatal(err)
		}
		a, err = filepath.EvalSymlinks(a)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	fx := traceFixture{proj: abs("proj"), faketorch: abs("faketorch")}
	t.Setenv("PYTHONPATH", fx.faketorch)
	for _, k := range []string{"FAKE_TORCH_GROWTH_BYTES", "FAKE_TORCH_TOTAL_BYTES", "FAKE_TORCH_STEP_BYTES", "FAKE_TORCH_MEMINFO_S", "FAKE_TORCH_COUNTS"} {
		t.Setenv(k, "")
	}
	return fx
}

// trainSites are what the static analysis reports in proj/train.py (CL001 at the helper
// calls in the loop; the final free_gpu() is not reported).
func (fx traceFixture) trainSites() []StaticSite {
	return []StaticSite{
		{File: filepath.Join(fx.proj, "train.py"), Line: 15, Rule: "CL001"},
		{File: filepath.Join(fx.proj, "train.py"), Line: 16, Rule: "CL001"},
	}
}

func (fx traceFixture) trace(t *testing.T, o TraceOptions) *TraceResult {
	t.Helper()
	o.Root = fx.proj
	if o.Window == 0 {
		o.Window = 10
	}
	res, err := Trace(context.Background(), o, os.Stderr)
	if err != nil {
		t.Fatalf("trace %v: %v", o.Command, err)
	}
	return res
}

// traceInferCounting traces 200 steps of proj/infer.py and returns what the fake torch
// counted (FAKE_TORCH_COUNTS: reads of the allocator's statistics, calls through hooks).
func (fx traceFixture) traceInferCounting(t *testing.T) (*TraceResult, map[string]int) {
	t.Helper()
	counts := filepath.Join(t.TempDir(), "counts.json")
	t.Setenv("FAKE_TORCH_COUNTS", counts)
	res := fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "infer.py"), "200"},
		Sites: []StaticSite{{File: filepath.Join(fx.proj, "infer.py"), Line: 19, Rule: "CL001"}}})
	data, err := os.ReadFile(counts)
	if err != nil {
		t.Fatal(err)
	}
	var n map[string]int
	if err := json.Unmarshal(data, &n); err != nil {
		t.Fatal(err)
	}
	return res, n
}

func siteAt(t *testing.T, res *TraceResult, file string, line int) *MeasuredSite {
	t.Helper()
	for i := range res.Sites {
		if res.Sites[i].File == file && res.Sites[i].Line == line {
			return &res.Sites[i]
		}
	}
	t.Fatalf("no site %s:%d in %+v", file, line, res.Sites)
	return nil
}

func within1(got, want float64) bool { return got > want-1 && got < want+1 }

// TestTraceTrain: a training loop with a helper called from two places, one of them only
// ever inside an exception handler, and a final call the static analysis does not report.
func TestTraceTrain(t *testing.T) {
	fx := newTraceFixture(t)
	out := filepath.Join(t.TempDir(), "profile.json")
	res := fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "train.py"), "200"},
		Sites: fx.trainSites(), JSONPath: out})
	run := res.Run
	if run.StepSource != StepsAtOptimizer || run.Steps != 200 || run.Processes != 1 || run.ExitCode != 0 {
		t.Fatalf("run %+v", run)
	}
	if run.PlainWindows < 4 || run.SkipWindows < 4 {
		t.Errorf("windows: %d plain, %d skip", run.PlainWindows, run.SkipWindows)
	}
	// A plain step: the work, the call's release and the refill.
	if want := fakeStepUs + fakeEmptyUs + fakeRefillUs; !within1(run.StepUs, want) {
		t.Errorf("plain step %.1f µs, want %.0f", run.StepUs, want)
	}

	free := siteAt(t, res, "train.py", 15)
	if !free.Measured || free.CallsPerStep != 1 || free.Rule != "CL001" || free.Entry != "torch.cuda.empty_cache" {
		t.Fatalf("free_gpu site %+v", free)
	}
	if len(free.Via) != 1 || free.Via[0] != "free_gpu" || len(free.Frames) != 2 ||
		free.Frames[0] != (TraceFrame{"utils.py", 5, "free_gpu"}) || free.Frames[1] != (TraceFrame{"train.py", 15, "train"}) {
		t.Errorf("call site frames %+v via %v", free.Frames, free.Via)
	}
	// Skipping free_gpu() leaves run_safely()'s call (every third step) to release the
	// cache: a window of 10 steps then holds 3 or 4 of those, so the call costs
	// 8 ms * (1 - k/10) per step.
	full := fakeEmptyUs + fakeRefillUs
	if !within1(free.PerStepUs, full*0.6) && !within1(free.PerStepUs, full*0.7) {
		t.Errorf("free_gpu per step %.1f µs, want %.0f or %.0f", free.PerStepUs, full*0.6, full*0.7)
	}
	if free.PeakReserved != 4<<30 || free.PeakReservedSkip != 4<<30 || free.ReleasedPerCall != 4<<30 {
		t.Errorf("memory %+v", free)
	}
	if !strings.HasSuffix(free.Verdict, "remove it") {
		t.Errorf("verdict %q", free.Verdict)
	}

	handler := siteAt(t, res, "train.py", 16)
	if handler.Measured || handler.InHandler != handler.Calls || handler.Calls != 67 || !strings.Contains(handler.Reason, "exception") {
		t.Errorf("a call in a handler was measured or skipped: %+v", handler)
	}
	last := siteAt(t, res, "train.py", 17)
	if last.Measured || last.Calls != 1 || !strings.Contains(last.Reason, "not reported") {
		t.Errorf("the unreported site: %+v", last)
	}

	var table bytes.Buffer
	PrintTrace(&table, res)
	for _, want := range []string{"train.py:15 via free_gpu(): 1 call/step, ", "(", "% of a 18 ms step", "peak reserved unchanged: remove it",
		"train.py:16 via run_safely(): 0.333 call/step, 67 in an exception handler", "counted at optimizer steps"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}

	p, err := LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Device.Name != "Fake GPU" || p.Trace == nil || len(p.Sites) != 3 {
		t.Fatalf("profile %+v", p)
	}
	c := p.CostsAt(filepath.Join(fx.proj, "train.py"), 15)
	if c == nil || c.Measured == nil || c.Measured.CallsPerStep != 1 || c.Measured.Pairs < 4 {
		t.Errorf("costs at the measured site: %+v", c)
	}
	if c := p.CostsAt(filepath.Join(fx.proj, "train.py"), 16); c != nil {
		t.Errorf("an unmeasured site has costs %+v (the profile has no estimate)", c)
	}
}

// TestTraceInference: no optimizer steps, so steps are counted at top-level module
// forwards; the call runs in a child process of the command (inherited PYTHONPATH), and
// an existing sitecustomize still runs.
func TestTraceInference(t *testing.T) {
	fx := newTraceFixture(t)
	chain, err := filepath.Abs(filepath.Join("..", "testdata", "trace", "chain"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PYTHONPATH", chain+string(os.PathListSeparator)+fx.faketorch)
	marker := filepath.Join(t.TempDir(), "marker")
	t.Setenv("CHAIN_MARKER", marker)
	res := fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "launch.py"), "200"},
		Sites: []StaticSite{{File: filepath.Join(fx.proj, "infer.py"), Line: 19, Rule: "CL001"}}})
	if res.Run.StepSource != StepsAtForward {
		t.Errorf("step source %q", res.Run.StepSource)
	}
	s := siteAt(t, res, "infer.py", 19)
	if !s.Measured || s.Entry != "torch.accelerator.empty_cache" || !within1(s.PerStepUs, fakeEmptyUs+fakeRefillUs) || s.LowUs != s.HighUs {
		t.Errorf("inference site %+v", s)
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("the user's sitecustomize did not run: %v", err)
	}
	if n := strings.Count(string(data), "ran "); n != 2 {
		t.Errorf("the user's sitecustomize ran %d times, want 2 (launcher and child)", n)
	}
}

// TestTraceForwardHooks: the global forward hooks that find an inference loop's top-level
// modules go once steps are counted at forwards: hooks on those modules alone count them
// from then on. A global hook sends every submodule's call through the slow path (Python
// work on each layer), which makes a step after a call, on an idle GPU, slower, so the
// calls would measure dearer than they are (diffusion sampler: +28-34% in
// docs/probe.md's pooled and run-4 tables).
func TestTraceForwardHooks(t *testing.T) {
	fx := newTraceFixture(t)
	res, n := fx.traceInferCounting(t)
	// 200 forwards of Net, each hooked (they count the steps); its child's calls take the
	// slow path only until the mode is decided, after 2 x 10 forwards (the 21st decides,
	// before its child runs).
	if n["slow_path_calls"] != 200+20 {
		t.Errorf("%d calls through hooks, want 220 (Net's 200, its child's first 20)", n["slow_path_calls"])
	}
	if res.Run.StepSource != StepsAtForward || res.Run.Steps != 180 {
		t.Errorf("run %+v", res.Run)
	}
	if !slices.Contains(res.Run.Notes, "steps counted at forwards of Net") {
		t.Errorf("notes %q", res.Run.Notes)
	}
	s := siteAt(t, res, "infer.py", 19)
	if !s.Measured || !within1(s.PerStepUs, fakeEmptyUs+fakeRefillUs) || s.LowUs != s.HighUs {
		t.Errorf("site %+v", s)
	}
}

// TestTracePause: a phase the program leaves out (_cachelint_trace.pause()/resume()) is not
// measured: its calls are neither counted nor skipped, its steps (slow here) fall in no
// window, and no pair of windows spans it (the steps run slower after it: a pair across it
// would be off by the difference).
func TestTracePause(t *testing.T) {
	fx := newTraceFixture(t)
	res := fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "paused.py"), "300"},
		Sites: []StaticSite{{File: filepath.Join(fx.proj, "paused.py"), Line: 23, Rule: "CL001"}}})
	if res.Run.Steps != 240 || res.Run.Pauses != 1 {
		t.Errorf("%d steps counted, %d pauses, want 240 (60 of 300 paused) and 1", res.Run.Steps, res.Run.Pauses)
	}
	var table bytes.Buffer
	PrintTrace(&table, res)
	if !strings.Contains(table.String(), "paused the trace 1 time(s)") {
		t.Errorf("the table does not say the run was paused:\n%s", table.String())
	}
	s := siteAt(t, res, "paused.py", 23)
	if s.Calls != 240 || !s.Measured || !within1(s.LowUs, fakeEmptyUs+fakeRefillUs) || !within1(s.HighUs, fakeEmptyUs+fakeRefillUs) {
		t.Errorf("site %+v", s)
	}
	// Before the pause a plain step is 18 ms, after it 28 ms (the step's work doubled).
	if !within1(res.Run.StepUs, fakeStepUs+fakeEmptyUs+fakeRefillUs) && !within1(res.Run.StepUs, 2*fakeStepUs+fakeEmptyUs+fakeRefillUs) {
		t.Errorf("plain step %.1f µs: a window held paused steps", res.Run.StepUs)
	}
}

// TestTraceGuardCost: the free-memory guard's driver call (mem_get_info, 2 ms in the fake)
// is made when a window opens, outside the timed steps, not at each skipped call: at each
// call it would make the windows without the calls slower, and the site cheaper than it is
// by that much.
func TestTraceGuardCost(t *testing.T) {
	fx := newTraceFixture(t)
	t.Setenv("FAKE_TORCH_MEMINFO_S", "0.002")
	res := fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "infer.py"), "200"},
		Sites: []StaticSite{{File: filepath.Join(fx.proj, "infer.py"), Line: 19, Rule: "CL001"}}})
	s := siteAt(t, res, "infer.py", 19)
	if !s.Measured || !within1(s.PerStepUs, fakeEmptyUs+fakeRefillUs) || s.LowUs != s.HighUs || len(s.PairsUs) != s.Pairs {
		t.Errorf("site %+v: per step %.1f µs, want %.0f", s, s.PerStepUs, fakeEmptyUs+fakeRefillUs)
	}
}

// TestTraceLightCalls: at each call the shim reads the allocator's nested stats, never
// memory_stats() or memory_reserved(), which flatten and sort every statistic in Python
// (118 µs a read on an H100 against 21 µs; a small MLP's call measured 41% over the
// benchmark with it).
func TestTraceLightCalls(t *testing.T) {
	fx := newTraceFixture(t)
	_, n := fx.traceInferCounting(t)
	if n["nested"] < 200 || n["memory_stats"] != 0 {
		t.Errorf("stats reads %v: want a nested read at each of the 200 calls and no flattened one", n)
	}
}

// TestTraceNoSkip: --no-skip only observes.
func TestTraceNoSkip(t *testing.T) {
	fx := newTraceFixture(t)
	res := fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "train.py"), "100"},
		Sites: fx.trainSites(), NoSkip: true})
	if res.Run.SkipWindows != 0 {
		t.Errorf("%d skip windows with --no-skip", res.Run.SkipWindows)
	}
	for _, s := range res.Sites {
		if s.Measured {
			t.Errorf("site %s:%d measured with --no-skip", s.File, s.Line)
		}
	}
	if s := siteAt(t, res, "train.py", 15); !strings.Contains(s.Reason, "--no-skip") || s.CallsPerStep != 1 {
		t.Errorf("site %+v", s)
	}
}

// TestTraceMemory: without the call the cache grows each step. Growth that fits shows in
// the verdict; growth toward the device's size stops skipping before the allocator has to
// retry.
func TestTraceMemory(t *testing.T) {
	fx := newTraceFixture(t)
	t.Setenv("FAKE_TORCH_GROWTH_BYTES", "104857600") // 100 MiB a step
	res := fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "infer.py"), "200"},
		Sites: []StaticSite{{File: filepath.Join(fx.proj, "infer.py"), Line: 19, Rule: "CL001"}}})
	s := siteAt(t, res, "infer.py", 19)
	if !s.Measured || s.PeakReservedSkip <= s.PeakReserved || !strings.Contains(s.Verdict, "it buys memory") {
		t.Errorf("growth without the call: %+v", s)
	}

	t.Setenv("FAKE_TORCH_GROWTH_BYTES", "1073741824") // 1 GiB a step
	t.Setenv("FAKE_TORCH_TOTAL_BYTES", "8589934592")  // on an 8 GiB device
	res = fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "infer.py"), "200"},
		Sites: []StaticSite{{File: filepath.Join(fx.proj, "infer.py"), Line: 19, Rule: "CL001"}}})
	if !strings.Contains(res.Run.SkipStopped, "free memory") {
		t.Fatalf("skipping did not stop: %+v", res.Run)
	}
	s = siteAt(t, res, "infer.py", 19)
	if s.Measured || s.Retries != 0 || !strings.Contains(s.Reason, "skipping stopped") {
		t.Errorf("site %+v", s)
	}
	var table bytes.Buffer
	PrintTrace(&table, res)
	if !strings.Contains(table.String(), "skipping stopped for good: free memory") {
		t.Errorf("table:\n%s", table.String())
	}
}

func TestTraceErrors(t *testing.T) {
	fx := newTraceFixture(t)
	for _, c := range []struct {
		o    TraceOptions
		want string
	}{
		{TraceOptions{Window: 10}, "no command"},
		{TraceOptions{Command: []string{"python3", "-c", "pass"}, Window: 1}, "at least 2 steps"},
		{TraceOptions{Command: []string{"no-such-program-cachelint"}, Window: 10}, "cannot run no-such-program-cachelint"},
		{TraceOptions{Command: []string{"python3", "-c", "print('no torch here')"}, Window: 10}, "nothing was traced"},
	} {
		c.o.Root = fx.proj
		_, err := Trace(context.Background(), c.o, os.Stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.o.Command, err, c.want)
		}
	}
	// The command's failure is its exit code, and what it traced before is still there.
	res := fx.trace(t, TraceOptions{Command: []string{"python3", "-c",
		"import runpy, sys; sys.path.insert(0, '" + fx.proj + "'); sys.argv = ['train.py', '60']; runpy.run_path('" + filepath.Join(fx.proj, "train.py") + "', run_name='__main__'); sys.exit(3)"}})
	if res.Run.ExitCode != 3 || res.Run.Steps != 60 {
		t.Errorf("run %+v", res.Run)
	}
}

type fakeUtil struct{ util uint32 }

func (f fakeUtil) UUIDs() []string          { return []string{"GPU-aa"} }
func (f fakeUtil) Util(int) (uint32, error) { return f.util, nil }
func (f fakeUtil) Close()                   {}

// TestGPUUtil: NVML samples are averaged over the windows they fall in, per device.
func TestGPUUtil(t *testing.T) {
	s := startUtilSampler(fakeUtil{util: 70}, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	got := s.Stop()
	if len(got) == 0 || got[0].UUID != "GPU-aa" || got[0].Util != 70 {
		t.Fatalf("samples %+v", got)
	}

	samples := []gpuSample{{"GPU-aa", 1.5, 90}, {"GPU-aa", 1.7, 80}, {"GPU-bb", 1.6, 10}, {"GPU-aa", 2.5, 40}, {"GPU-bb", 2.5, 5}}
	plain := traceWindow{Kind: "plain", Steps: 10, Seconds: 1, WallStart: 1, WallEnd: 2, Calls: map[string]int{"k": 10}}
	skip := traceWindow{Kind: "skip", Skip: "k", Steps: 10, Seconds: 0.5, Skipped: 10, WallStart: 2, WallEnd: 3}
	if u, ok := windowUtil(samples, "aa", &plain); !ok || u != 85 {
		t.Errorf("plain window on aa: %v %v, want 85", u, ok)
	}
	if _, ok := windowUtil(samples, "", &plain); ok {
		t.Error("two devices and no UUID: a utilisation was made up")
	}
	procs := []traceProcess{{Device: traceDevice{UUID: "GPU-aa"}, Steps: 30, StepSource: StepsAtOptimizer,
		Windows: []traceWindow{plain, skip, plain}, Sites: []traceSite{{Key: "k", File: "/p/t.py", Line: 3, Rule: "CL001", Skippable: true, Calls: 30}}}}
	procs[0].Windows[2].WallStart, procs[0].Windows[2].WallEnd = 3, 4
	run, sites := summarise(procs, "/p", samples)
	if run.GPUUtil == nil || *run.GPUUtil != 85 {
		t.Errorf("plain utilisation %v", run.GPUUtil)
	}
	if len(sites) != 1 || !sites[0].Measured || sites[0].GPUUtilSkip == nil || *sites[0].GPUUtilSkip != 40 ||
		!within1(sites[0].PerStepUs, 50000) || sites[0].File != "t.py" {
		t.Errorf("site %+v", sites)
	}
}

// TestRealTraceProfile: a profile `cachelint trace --json` wrote on an H100 (docs/probe.md,
// issue 15) loads, and its measured site gives check its cost.
func TestRealTraceProfile(t *testing.T) {
	p, err := LoadProfile(filepath.Join("..", "bench", "gpu", "results", "h100-2026-12-05-trace", "trace-lm.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := p.CostsAt(filepath.Join("some", "checkout", "train_one.py"), 14)
	if c == nil || c.Measured == nil || c.Device != "NVIDIA H100 80GB HBM3" || c.Measured.CallsPerStep != 1 ||
		units.Duration(c.Measured.PerStep) != "20 ms" {
		t.Errorf("costs %+v", c)
	}
	if c := p.CostsAt("train_one.py", 13); c != nil {
		t.Errorf("another line has costs %+v", c)
	}
}

// TestTraceFork: a forked child inherits the tracer; what the parent measured is written
// once, by the parent.
func TestTraceFork(t *testing.T) {
	fx := newTraceFixture(t)
	res := fx.trace(t, TraceOptions{Command: []string{"python3", filepath.Join(fx.proj, "forked.py"), "100"},
		Sites: []StaticSite{{File: filepath.Join(fx.proj, "infer.py"), Line: 19, Rule: "CL001"}}})
	if s := siteAt(t, res, "infer.py", 19); res.Run.Processes != 1 || s.Calls != 100 {
		t.Errorf("%d processes, %d calls: the child wrote the parent's trace again", res.Run.Processes, s.Calls)
	}
}

func TestTraceEnv(t *testing.T) {
	env := traceEnv([]string{"HOME=/h", "PYTHONPATH=/a:/b", "CACHELINT_TRACE_CONFIG=/old"}, "/shim", "/cfg.json")
	want := []string{"HOME=/h", "PYTHONPATH=/shim:/a:/b", "CACHELINT_TRACE_CONFIG=/cfg.json"}
	if strings.Join(env, " ") != strings.Join(want, " ") {
		t.Errorf("env %q, want %q", env, want)
	}
	if env := traceEnv([]string{"PYTHONPATH="}, "/shim", "/c"); env[0] != "PYTHONPATH=/shim" {
		t.Errorf("empty PYTHONPATH: %q", env)
	}
}
