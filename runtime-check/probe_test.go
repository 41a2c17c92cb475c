package runtimecheck

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// useFake makes RunProbe talk to f, on f's virtual clock.
func useFake(t *testing.T, f *fakeGPU) {
	t.Helper()
	oldOpen, oldClock, oldEvict := openDriver, clock, evictCPUCaches
	openDriver = func() (Driver, error) { return f, nil }
	clock = f.clock
	evictCPUCaches = func([]byte, int) { f.cold = true }
	t.Cleanup(func() { openDriver, clock, evictCPUCaches = oldOpen, oldClock, oldEvict })
}

func runProbe(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = RunProbe(context.Background(), args, &o, &e)
	return code, o.String(), e.String()
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	// The simulated clock counts whole nanoseconds, so sub-nanosecond parts of the
	// configured latencies are lost.
	if math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// oneErrorLine checks the no-GPU contract: nothing on stdout, exit 2, exactly one line on
// stderr containing every wanted fragment.
func oneErrorLine(t *testing.T, code int, stdout, stderr string, want ...string) {
	t.Helper()
	if code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if stdout != "" {
		t.Errorf("stdout should be empty on error, got %q", stdout)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || !strings.HasPrefix(stderr, "cachelint probe: ") {
		t.Errorf("stderr should be one line starting with %q, got %q", "cachelint probe: ", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q does not mention %q", stderr, w)
		}
	}
}

func TestProbeMeasuresSimulatedGPU(t *testing.T) {
	f := newFakeGPU()
	useFake(t, f)
	out := filepath.Join(t.TempDir(), "profile.json")
	code, stdout, stderr := runProbe(t, "--json", out, "--step-ms", "45")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if stderr != "" {
		t.Errorf("no progress line should reach a non-terminal, got %q", stderr)
	}
	if leaks := f.leaks(); len(leaks) > 0 {
		t.Errorf("probe left behind %v", leaks)
	}
	if f.maxAsked > maxSpin {
		t.Errorf("a kernel was asked to spin %v, over the %v bound", f.maxAsked, maxSpin)
	}
	p, err := LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := p.Measurements
	// Every figure follows from the simulated latencies (see fakeGPU): 4 µs per idle sync;
	// a 200 µs kernel timed from its launch (3 µs) and start delay (5 µs); a sync after
	// every 50 µs kernel loses launch + start + sync (12 µs) minus the base run's share of
	// its own start and sync (8 µs over 100 kernels); every 10th kernel, the start and
	// sync over 10 kernels' worth of syncs.
	near(t, "idle sync", m.IdleSync.Median, 4)
	near(t, "spin kernel", m.SpinKernel.Median, 208)
	near(t, "bubble every kernel", m.SyncBubble.Median, 11.92)
	near(t, "bubble every 10th", m.SyncBubbleEvery10.Median, 11.2)
	if len(m.AllocFree) != len(curveSizes) {
		t.Fatalf("%d allocation sizes measured, want %d", len(m.AllocFree), len(curveSizes))
	}
	for _, a := range m.AllocFree {
		gb := float64(a.SizeBytes) / gib
		near(t, "alloc "+formatBytes(a.SizeBytes), a.Alloc.Median, 20+400*gb)
		near(t, "free "+formatBytes(a.SizeBytes), a.Free.Median, 30+100*gb)
	}
	if !m.FreeWhileBusy.Waits || m.AllocWhileBusy.Waits {
		t.Errorf("free waits = %v (want true), alloc waits = %v (want false)", m.FreeWhileBusy.Waits, m.AllocWhileBusy.Waits)
	}
	near(t, "free while busy", m.FreeWhileBusy.Blocked.Median, 5+20000+30+100.0/512)
	// Default workload: 8 GiB in 100 segments of 82 MiB (rounded up to 2 MiB).
	if p.Workload.Source != "default" || p.Estimate.Segments != 100 || p.Workload.Released[0].SizeBytes != 82*mib {
		t.Errorf("workload = %+v", p.Workload)
	}
	seg := 82.0 / 1024
	near(t, "replay free", m.Replay.Free.Median, 100*(30+100*seg))
	near(t, "replay free, unwritten", m.Replay.FreeUnwritten.Median, 100*(30+100*seg))
	// Only the passes after evictCPUCaches pay the simulated cold-cache cost.
	near(t, "replay free, CPU caches cold", m.Replay.FreeCold.Median, 100*(30+200*seg))
	if m.Replay.FreeCold.N < 2 || m.Replay.Free.N < 2 || m.Replay.FreeUnwritten.N < 2 {
		t.Errorf("every kind of free pass should run at least twice: warm %d, unwritten %d, cold %d",
			m.Replay.Free.N, m.Replay.FreeUnwritten.N, m.Replay.FreeCold.N)
	}
	near(t, "replay alloc", m.Replay.Alloc.Median, 100*(20+400*seg))
	// The bubble, the cold-cache frees and the refill, exposed after the sync; the warm
	// frees and a hidden refill bound the range from below.
	refill := 100 * (20 + 400*seg)
	want := 11.92 + 100*(30+200*seg) + refill
	near(t, "estimate", p.Estimate.PerCallUs, want)
	near(t, "low", p.Estimate.LowUs, 11.92+100*(30+100*seg))
	near(t, "refill", p.Estimate.RefillUs, refill)
	// The range's upper end: a launch-bound step pays up to three times the bare refill.
	near(t, "high", p.Estimate.HighUs, want+2*refill)
	near(t, "fraction of step", p.Estimate.Fraction, want/45000)
	if len(p.Measurements.Replay.Processes) != 3 || len(p.Notes) != 0 {
		t.Errorf("three processes that agree need no note: %+v, %q", p.Measurements.Replay.Processes, p.Notes)
	}
	if got := p.EstimatedCallCost().Microseconds(); got != int64(want) {
		t.Errorf("EstimatedCallCost = %d µs, want %d", got, int64(want))
	}
	for _, s := range []string{"Fake H200", "compute 9.0", "CUDA driver 13.0", "waits for the device",
		"does not wait for the device", "estimate: one torch.cuda.empty_cache() costs ~9.8 ms (3.8 ms – 20 ms)", "4.6 ms free (CPU caches cold, as after a training step; 3.8 ms warm)", "+ 5.2 ms refill (the next step's cuMemAlloc, exposed after the sync)", "22% of a 45 ms step", "down to ~3.8 ms if the step hides the refill", "up to ~20 ms if it pays"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("table lacks %q:\n%s", s, stdout)
		}
	}
}

func TestProbeSyncMsReplacesTheSyntheticBubble(t *testing.T) {
	f := newFakeGPU()
	useFake(t, f)
	out := filepath.Join(t.TempDir(), "profile.json")
	code, stdout, stderr := runProbe(t, "--sync-ms", "2.5", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	p, err := LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The default workload's replayed free pass, with the CPU caches cold and warm.
	free, warm := 100*(30+200*82.0/1024), 100*(30+100*82.0/1024)
	if p.Estimate.SyncSource != SyncFromUser {
		t.Errorf("sync source %q", p.Estimate.SyncSource)
	}
	near(t, "sync", p.Estimate.SyncUs, 2500)
	near(t, "estimate", p.Estimate.PerCallUs, 2500+free+p.Estimate.RefillUs)
	near(t, "low", p.Estimate.LowUs, 2500+warm)
	if !strings.Contains(stdout, "= 2.5 ms sync (--sync-ms) + ") {
		t.Errorf("table should say the sync is the user's:\n%s", stdout)
	}
	// What the user measured of the refill replaces the replay's, at both ends.
	code, stdout, stderr = runProbe(t, "--sync-ms", "2.5", "--refill-ms", "1", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if p, err = LoadProfile(out); err != nil || p.Estimate.RefillSource != RefillFromUser {
		t.Fatalf("%v %+v", err, p)
	}
	near(t, "estimate with --refill-ms", p.Estimate.PerCallUs, 2500+free+1000)
	near(t, "low with --refill-ms", p.Estimate.LowUs, 2500+warm+1000)
	if !strings.Contains(stdout, "+ 1.0 ms refill (--refill-ms)") {
		t.Errorf("table:\n%s", stdout)
	}
	// Without the flag the synthetic bubble stands, and says so.
	code, stdout, _ = runProbe(t, "--json", out)
	if p, err = LoadProfile(out); code != 0 || err != nil || p.Estimate.SyncSource != SyncFromProbe || !strings.Contains(stdout, "sync bubble") {
		t.Errorf("exit %d, %v, %+v", code, err, p)
	}
}

func TestProbeCountsABubblePerAllocWhenAllocWaits(t *testing.T) {
	f := newFakeGPU()
	f.allocWaits = true
	useFake(t, f)
	out := filepath.Join(t.TempDir(), "p.json")
	if code, _, stderr := runProbe(t, "--segments", "10", "--reserved-gb", "1", "--json", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p, err := LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Measurements.AllocWhileBusy.Waits {
		t.Fatal("alloc-while-busy not detected")
	}
	near(t, "sync part", p.Estimate.SyncUs, 11*p.Measurements.SyncBubble.Median)
	if p.Estimate.ExposedRefillUs != p.Estimate.RefillUs || p.Estimate.RefillUs == 0 {
		t.Errorf("a refill that waits for the device must count in full: %+v", p.Estimate)
	}
	near(t, "estimate", p.Estimate.PerCallUs, p.Estimate.SyncUs+p.Estimate.FreeUs+p.Estimate.RefillUs)
	if p.Workload.Source != "flags" {
		t.Errorf("source = %q, want flags", p.Workload.Source)
	}
}

func TestProbeScalesAWorkloadLargerThanFreeMemory(t *testing.T) {
	full := newFakeGPU()
	useFake(t, full)
	dir := t.TempDir()
	if code, _, stderr := runProbe(t, "--json", filepath.Join(dir, "full.json")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	small := newFakeGPU()
	small.freeMem = 4 * gib // replay budget 2 GiB for an 8 GiB workload; 4 GiB curve point skipped
	useFake(t, small)
	code, stdout, stderr := runProbe(t, "--json", filepath.Join(dir, "small.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if leaks := small.leaks(); len(leaks) > 0 {
		t.Errorf("left behind %v", leaks)
	}
	a, err := LoadProfile(filepath.Join(dir, "full.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadProfile(filepath.Join(dir, "small.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Measurements.Replay.Scale >= 1 || !strings.Contains(stdout, "replayed") || !strings.Contains(stdout, "skipped") {
		t.Errorf("partial replay and skipped sizes should be noted; scale %v, output:\n%s", b.Measurements.Replay.Scale, stdout)
	}
	for _, s := range b.Measurements.AllocFree {
		if s.SizeBytes > small.freeMem/4 {
			t.Errorf("allocated %s with only %s free", formatBytes(s.SizeBytes), formatBytes(small.freeMem))
		}
	}
	near(t, "scaled estimate", b.Estimate.PerCallUs, a.Estimate.PerCallUs)
}

// The driver calls in the order the probe first makes them; each failure must surface as
// one line naming the call and the driver's error name, with everything created so far
// released.
var driverMethods = []string{
	"Init", "DriverVersion", "DeviceCount", "DeviceGet", "DeviceName", "DeviceTotalMem",
	"DeviceAttribute", "PrimaryCtxRetain", "CtxSetCurrent", "MemGetInfo", "ModuleLoadData",
	"ModuleGetFunction", "CtxSynchronize", "StreamCreate", "EventCreate", "EventRecord",
	"LaunchKernel", "EventSynchronize", "EventElapsedMs", "StreamSynchronize", "MemAlloc",
	"MemFree", "MemsetD32Async", "EventDestroy", "StreamDestroy", "ModuleUnload", "PrimaryCtxRelease",
}

func TestProbeReportsEveryDriverError(t *testing.T) {
	for _, m := range driverMethods {
		t.Run(m, func(t *testing.T) {
			f := newFakeGPU()
			f.failAt[m] = 999
			f.failOnCall[m] = 1
			useFake(t, f)
			code, stdout, stderr := runProbe(t)
			oneErrorLine(t, code, stdout, stderr, m, "CUDA_ERROR_UNKNOWN", "unknown error")
			if f.calls[m] == 0 {
				t.Fatalf("%s was never called: the list of driver calls is stale", m)
			}
			leaks := f.leaks()
			switch m {
			case "EventDestroy", "StreamDestroy", "ModuleUnload", "PrimaryCtxRelease":
				// The failing release leaves its own object; nothing else may remain.
				if len(leaks) > 1 {
					t.Errorf("left behind %v", leaks)
				}
			default:
				if len(leaks) > 0 {
					t.Errorf("left behind %v", leaks)
				}
			}
		})
	}
}

func TestProbeReleasesEverythingWhenAMidRunCallFails(t *testing.T) {
	for _, tc := range []struct {
		method string
		call   int
	}{
		{"MemAlloc", 60},      // inside the size sweep
		{"MemAlloc", 150},     // inside the workload replay
		{"MemFree", 120},      // a free fails; close() must still free every buffer
		{"LaunchKernel", 150}, // inside the bubble runs, with kernels queued
	} {
		f := newFakeGPU()
		f.failAt[tc.method] = 2
		f.failOnCall[tc.method] = tc.call
		useFake(t, f)
		code, stdout, stderr := runProbe(t)
		oneErrorLine(t, code, stdout, stderr, "CUDA_ERROR_OUT_OF_MEMORY")
		if leaks := f.leaks(); len(leaks) > 0 {
			t.Errorf("%s failing on call %d left behind %v", tc.method, tc.call, leaks)
		}
	}
}

func TestProbeWithoutADevice(t *testing.T) {
	t.Run("cuInit says no device", func(t *testing.T) {
		f := newFakeGPU()
		f.initErr = ResultNoDevice
		useFake(t, f)
		code, stdout, stderr := runProbe(t)
		oneErrorLine(t, code, stdout, stderr, "no CUDA device", "CUDA_ERROR_NO_DEVICE")
	})
	t.Run("zero devices", func(t *testing.T) {
		f := newFakeGPU()
		f.devices = 0
		useFake(t, f)
		code, stdout, stderr := runProbe(t)
		oneErrorLine(t, code, stdout, stderr, "no CUDA device")
	})
	t.Run("device index out of range", func(t *testing.T) {
		f := newFakeGPU()
		f.devices = 2
		useFake(t, f)
		code, stdout, stderr := runProbe(t, "--device", "2")
		oneErrorLine(t, code, stdout, stderr, "no CUDA device 2", "has 2")
		if f.ctxRefs != 0 {
			t.Error("context retained for a device that does not exist")
		}
	})
}

// This is what CI (no GPU) and any machine without the NVIDIA driver sees: the real
// loader, a library that is not there.
func TestProbeWithoutLibcuda(t *testing.T) {
	old := libcudaName
	libcudaName = "libcuda-cachelint-test-absent.so.1"
	t.Cleanup(func() { libcudaName = old })
	code, stdout, stderr := runProbe(t)
	oneErrorLine(t, code, stdout, stderr, "libcuda-cachelint-test-absent.so.1 not found")
}

func TestProbeRejectsABrokenTimerKernel(t *testing.T) {
	f := newFakeGPU()
	f.spinScale = 0.01 // %globaltimer not advancing: the kernel returns at once
	useFake(t, f)
	code, stdout, stderr := runProbe(t)
	oneErrorLine(t, code, stdout, stderr, "spin kernel", "unusable")
	if leaks := f.leaks(); len(leaks) > 0 {
		t.Errorf("left behind %v", leaks)
	}
}

func TestProbeStopsWhenCancelled(t *testing.T) {
	f := newFakeGPU()
	useFake(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	code := RunProbe(ctx, nil, &o, &e)
	oneErrorLine(t, code, o.String(), e.String(), "interrupted")
	if leaks := f.leaks(); len(leaks) > 0 {
		t.Errorf("left behind %v", leaks)
	}
}

func TestProbeFlags(t *testing.T) {
	f := newFakeGPU()
	useFake(t, f)
	stats := filepath.Join("testdata", "resnet50-stats.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--segments", "0"}, "--segments must be at least 1"},
		{[]string{"--reserved-gb", "-1"}, "--reserved-gb must be a positive number"},
		{[]string{"--reserved-gb", "NaN"}, "--reserved-gb must be a positive number"},
		{[]string{"--device", "-1"}, "--device must be 0 or more"},
		{[]string{"--step-ms", "-5"}, "--step-ms must be 0 or more milliseconds"},
		{[]string{"--sync-ms", "-0.5"}, "--sync-ms must be 0 or more milliseconds"},
		{[]string{"--sync-ms", "Inf"}, "--sync-ms must be 0 or more milliseconds"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--torch-stats", stats, "--segments", "5"}, "drop --reserved-gb/--segments"},
		{[]string{"--torch-stats", "missing.json"}, "missing.json"},
	} {
		code, stdout, stderr := runProbe(t, tc.args...)
		oneErrorLine(t, code, stdout, stderr, tc.want)
	}
	if f.calls["Init"] != 0 {
		t.Error("bad flags must be rejected before the driver is touched")
	}
	code, stdout, _ := runProbe(t, "--help")
	if code != 0 || !strings.Contains(stdout, "--torch-stats FILE") {
		t.Errorf("--help: exit %d, stdout %q", code, stdout)
	}
}

func TestProbeUsesTorchStats(t *testing.T) {
	f := newFakeGPU()
	useFake(t, f)
	out := filepath.Join(t.TempDir(), "p.json")
	stats := filepath.Join("testdata", "resnet50-stats.json")
	code, stdout, stderr := runProbe(t, "--torch-stats", stats, "--json", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p, err := LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	w, err := torchStatsWorkload(stats)
	if err != nil {
		t.Fatal(err)
	}
	if p.Estimate.Segments != w.Segments() || p.Measurements.Replay.Segments != w.Segments() {
		t.Errorf("profile segments %d, replayed %d, workload %d", p.Estimate.Segments, p.Measurements.Replay.Segments, w.Segments())
	}
	if !strings.Contains(stdout, "torch-stats "+stats) {
		t.Errorf("table should name the stats file:\n%s", stdout)
	}
}

func TestProbeReplaysInFreshProcesses(t *testing.T) {
	f := newFakeGPU()
	useFake(t, f)
	// The fresh processes (this test binary again, see TestMain) free 100 µs slower per
	// segment: the estimate takes the median over the three processes, so theirs.
	t.Setenv(fakeFreeBaseEnv, "130")
	out := filepath.Join(t.TempDir(), "profile.json")
	code, stdout, stderr := runProbe(t, "--json", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	p, err := LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	seg := 82.0 / 1024
	own, fresh := 100*(30+100*seg), 100*(130+100*seg)
	procs := p.Measurements.Replay.Processes
	if len(procs) != 3 {
		t.Fatalf("replayed in %d processes, want 3: %+v", len(procs), procs)
	}
	near(t, "own process", procs[0].FreeUs, own)
	for i, pr := range procs[1:] {
		if pr.Error != "" || pr.Passes < replayMinPasses/2 {
			t.Errorf("fresh process %d: %+v", i+1, pr)
		}
		near(t, "fresh process", pr.FreeUs, fresh)
	}
	// Cold-cache passes in the fresh processes too (TestMain's fake sees the eviction).
	near(t, "estimate's free", p.Estimate.FreeUs, 100*(130+200*seg))
	near(t, "estimate's warm free", p.Estimate.FreeWarmUs, fresh)
	near(t, "estimate's low end", p.Estimate.LowUs-p.Measurements.SyncBubble.P10, own+0.2*(fresh-own))
	// 3.8 ms here against 14 ms there: more than 1.5× apart, which the output points out.
	if !strings.Contains(stdout, "free pass, median over 3 processes") || len(p.Notes) != 1 ||
		!strings.Contains(p.Notes[0], "took 3.8 ms to 14 ms in different processes (3.6×)") {
		t.Errorf("table or notes:\n%s\n%q", stdout, p.Notes)
	}
	if leaks := f.leaks(); len(leaks) > 0 {
		t.Errorf("left behind %v", leaks)
	}
}

func TestProbeNotesAFreshReplayThatFails(t *testing.T) {
	f := newFakeGPU()
	useFake(t, f)
	old := replayCommand
	replayCommand = func() (string, []string, error) {
		return filepath.Join(t.TempDir(), "no-such-probe"), nil, nil
	}
	t.Cleanup(func() { replayCommand = old })
	out := filepath.Join(t.TempDir(), "profile.json")
	code, stdout, stderr := runProbe(t, "--json", out, "--processes", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	p, err := LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The estimate stands on this process's replay, and says what went missing.
	near(t, "estimate's free", p.Estimate.FreeUs, p.Measurements.Replay.FreeCold.Median)
	if !strings.Contains(stdout, "note: replay in a fresh process failed") || !strings.Contains(stdout, "no-such-probe") {
		t.Errorf("the failure should be noted:\n%s", stdout)
	}
}

func TestProbeOneProcessStartsNoOther(t *testing.T) {
	f := newFakeGPU()
	useFake(t, f)
	old := replayCommand
	replayCommand = func() (string, []string, error) {
		t.Error("--processes 1 started a process")
		return "", nil, nil
	}
	t.Cleanup(func() { replayCommand = old })
	code, _, stderr := runProbe(t, "--processes", "1")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, bad := range []string{"0", "11"} {
		code, stdout, stderr := runProbe(t, "--processes", bad)
		oneErrorLine(t, code, stdout, stderr, "--processes must be 1 to 10")
	}
}

func TestReplayChildErrors(t *testing.T) {
	f := newFakeGPU()
	f.devices = 0
	useFake(t, f)
	for _, tc := range []struct{ payload, want string }{
		{"{not json", "bad " + replayEnv},
		{`{"released": []}`, "no segments"},
		{`{"device": 0, "released": [{"pool": "large", "size_bytes": 20971520, "count": 2}], "budget_ms": 1000}`, "no CUDA device"},
	} {
		var o, e bytes.Buffer
		code := runReplayChild(context.Background(), tc.payload, &o, &e)
		oneErrorLine(t, code, o.String(), e.String(), tc.want)
	}
}
