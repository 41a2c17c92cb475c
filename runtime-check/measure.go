package runtimecheck

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DeviceInfo identifies the GPU a profile was measured on.
type DeviceInfo struct {
	Index             int    `json:"index"`
	Name              string `json:"name"`
	ComputeCapability string `json:"compute_capability"`
	Multiprocessors   int    `json:"multiprocessors"`
	TotalBytes        uint64 `json:"total_bytes"`
	FreeBytes         uint64 `json:"free_bytes"`
}

// DriverInfo is the CUDA driver's version as cuDriverGetVersion reports it (1000*major +
// 10*minor).
type DriverInfo struct {
	APIVersion int    `json:"api_version"`
	Version    string `json:"version"`
}

// SizeLatency is the cost of one cuMemAlloc_v2 and one cuMemFree_v2 of a size.
type SizeLatency struct {
	SizeBytes uint64 `json:"size_bytes"`
	Alloc     Stat   `json:"alloc_us"`
	Free      Stat   `json:"free_us"`
}

// BusyCheck says whether a driver call waits for work queued on another stream.
type BusyCheck struct {
	KernelUs float64 `json:"kernel_us"`
	Blocked  Stat    `json:"blocked_us"`
	// Waits is true when the call returned only after most of the kernel had run.
	Waits bool `json:"waits_for_device"`
}

// Replay is the workload's segments freed and then re-allocated, as one empty_cache()
// and the next step do, timed per pass over all segments.
type Replay struct {
	Segments int    `json:"segments"`
	Bytes    uint64 `json:"bytes"`
	// Scale is how much of the workload was replayed (1 unless free memory was short);
	// the timings below are already scaled back to the whole workload.
	Scale float64 `json:"scale"`
	// Free is the free pass over segments that kernels have written, as PyTorch's always
	// are; FreeUnwritten the same pass over freshly allocated, never written segments.
	Free          Stat `json:"free_us"`
	FreeUnwritten Stat `json:"free_unwritten_us"`
	// FreeCold is the written pass again, with the CPU caches flushed of the driver's
	// state first (evictBytes of host memory written just before it), as they are in a
	// training loop where a whole step of CPU work runs between two calls: cuMemFree is
	// CPU work in the kernel driver (docs/probe.md).
	FreeCold Stat `json:"free_cold_us"`
	Alloc    Stat `json:"alloc_us"`
	// FreeSamples are the written free passes in the order they ran.
	FreeSamples []float64 `json:"free_samples_us,omitempty"`
	// Processes are the replay's medians in each process it ran in: this one first, then
	// the fresh ones (--processes). The estimate uses their median.
	Processes []ProcessReplay `json:"processes,omitempty"`
}

// acrossProcesses summarises the warm and cold free passes and the re-allocation passes
// over the processes the replay ran in; with one process, over that process's passes.
// A profile from before the cold pass existed has none: cold is then the warm figure.
func (r Replay) acrossProcesses() (free, cold, alloc Stat) {
	var fs, cs, as []float64
	for _, pr := range r.Processes {
		if pr.Error == "" {
			fs, cs, as = append(fs, pr.FreeUs), append(cs, pr.FreeColdUs), append(as, pr.AllocUs)
		}
	}
	if len(fs) < 2 {
		free, cold, alloc = r.Free, r.FreeCold, r.Alloc
	} else {
		free, cold, alloc = statOf(fs), statOf(cs), statOf(as)
	}
	if !(cold.Median > 0) {
		cold = free
	}
	return free, cold, alloc
}

// Measurements are the probe's raw figures, all in microseconds.
type Measurements struct {
	IdleSync Stat `json:"idle_sync_us"`
	// SpinKernel is the event-timed length of a 200 µs spin kernel: it proves the timer
	// kernel works before anything is built on it.
	SpinKernel Stat `json:"spin_kernel_us"`
	// SyncBubble is the device time lost per cuCtxSynchronize in a stream of 50 µs kernels
	// synchronised after every kernel; SyncBubbleEvery10 after every 10th.
	SyncBubble        Stat          `json:"sync_bubble_us"`
	SyncBubbleEvery10 Stat          `json:"sync_bubble_every10_us"`
	AllocFree         []SizeLatency `json:"alloc_free"`
	FreeWhileBusy     BusyCheck     `json:"free_while_busy"`
	AllocWhileBusy    BusyCheck     `json:"alloc_while_busy"`
	Replay            Replay        `json:"replay"`
}

const (
	spinCheck      = 200 * time.Microsecond
	bubbleKernel   = 50 * time.Microsecond
	bubbleKernels  = 100
	busyKernel     = 20 * time.Millisecond
	probeBudget    = 13 * time.Second
	maxCurveSize   = 4 * gib
	replayFraction = 0.5 // of free memory, so the probe never crowds another process out
	// The replay runs at least replayMinPasses passes and goes on, up to replayMaxPasses,
	// until replayTime has passed.
	replayMinPasses = 7
	replayMaxPasses = 61
	replayTime      = time.Second
	// evictBytes of host memory written before a cold free pass: more than the last-level
	// cache of a server CPU.
	evictBytes = 64 * mib
)

// evictCPUCaches writes a byte in every 64-byte line of buf, pushing whatever the CPU
// caches held (the driver's state among it) out before a cold free pass. Tests replace it
// to tell their simulated driver that its caches are cold.
var evictCPUCaches = func(buf []byte, pass int) {
	for j := 0; j < len(buf); j += 64 {
		buf[j] = byte(pass + j)
	}
}

// curveSizes are the allocation sizes timed, from the small pool's 2 MiB segment up to
// several GiB; sizes above a quarter of free memory are skipped.
var curveSizes = []uint64{2 * mib, 8 * mib, 20 * mib, 64 * mib, 256 * mib, 1 * gib, maxCurveSize}

// prober owns every driver resource it creates, so one close() frees them on any path.
type prober struct {
	drv      Driver
	now      func() time.Time
	progress func(step string)
	ctx      context.Context
	deadline time.Time

	dev     Device
	ctxOK   bool
	module  Module
	spin    Function
	streams []Stream
	events  []Event
	live    map[DevicePtr]uint64
	notes   []string
}

// errNoDevice marks "there is no GPU to probe" as opposed to a failing one.
var errNoDevice = errors.New("no CUDA device")

func (p *prober) step(name string) error {
	if err := p.ctx.Err(); err != nil {
		return fmt.Errorf("probe interrupted: %w", err)
	}
	if p.progress != nil {
		p.progress(name)
	}
	return nil
}

// late reports whether the time budget is spent; loops then stop with what they have.
func (p *prober) late() bool { return p.ctx.Err() != nil || p.now().After(p.deadline) }

func (p *prober) open(index int) (DeviceInfo, DriverInfo, error) {
	var di DeviceInfo
	var dr DriverInfo
	if err := p.drv.Init(); err != nil {
		if resultCode(err) == ResultNoDevice {
			return di, dr, fmt.Errorf("%w (%w)", errNoDevice, err)
		}
		return di, dr, err
	}
	v, err := p.drv.DriverVersion()
	if err != nil {
		return di, dr, err
	}
	dr = DriverInfo{APIVersion: v, Version: fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)}
	n, err := p.drv.DeviceCount()
	if err != nil {
		return di, dr, err
	}
	if n == 0 {
		return di, dr, errNoDevice
	}
	if index < 0 || index >= n {
		return di, dr, fmt.Errorf("%w %d (this machine has %d, numbered from 0)", errNoDevice, index, n)
	}
	p.dev, err = p.drv.DeviceGet(index)
	if err != nil {
		return di, dr, err
	}
	di.Index = index
	if di.Name, err = p.drv.DeviceName(p.dev); err != nil {
		return di, dr, err
	}
	if di.TotalBytes, err = p.drv.DeviceTotalMem(p.dev); err != nil {
		return di, dr, err
	}
	major, err := p.drv.DeviceAttribute(p.dev, AttrComputeCapabilityMajor)
	if err != nil {
		return di, dr, err
	}
	minor, err := p.drv.DeviceAttribute(p.dev, AttrComputeCapabilityMinor)
	if err != nil {
		return di, dr, err
	}
	di.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
	if di.Multiprocessors, err = p.drv.DeviceAttribute(p.dev, AttrMultiprocessorCount); err != nil {
		return di, dr, err
	}
	// The primary context is the one PyTorch uses, so the probe measures the same thing
	// and leaves no context of its own behind.
	c, err := p.drv.PrimaryCtxRetain(p.dev)
	if err != nil {
		return di, dr, err
	}
	p.ctxOK = true
	if err := p.drv.CtxSetCurrent(c); err != nil {
		return di, dr, err
	}
	if di.FreeBytes, _, err = p.drv.MemGetInfo(); err != nil {
		return di, dr, err
	}
	if p.module, err = p.drv.ModuleLoadData([]byte(spinPTX)); err != nil {
		return di, dr, err
	}
	if p.spin, err = p.drv.ModuleGetFunction(p.module, spinKernelName); err != nil {
		return di, dr, err
	}
	return di, dr, nil
}

// close releases everything in reverse order of creation and reports the first failure.
func (p *prober) close() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	if p.ctxOK {
		// Queued kernels may still use the streams and buffers.
		keep(p.drv.CtxSynchronize())
	}
	for ptr := range p.live {
		keep(p.drv.MemFree(ptr))
		delete(p.live, ptr)
	}
	for _, e := range p.events {
		keep(p.drv.EventDestroy(e))
	}
	p.events = nil
	for _, s := range p.streams {
		keep(p.drv.StreamDestroy(s))
	}
	p.streams = nil
	if p.module != 0 {
		keep(p.drv.ModuleUnload(p.module))
		p.module = 0
	}
	if p.ctxOK {
		keep(p.drv.PrimaryCtxRelease(p.dev))
		p.ctxOK = false
	}
	return first
}

func (p *prober) alloc(size uint64) (DevicePtr, time.Duration, error) {
	t0 := p.now()
	ptr, err := p.drv.MemAlloc(size)
	d := p.now().Sub(t0)
	if err != nil {
		return 0, 0, err
	}
	p.live[ptr] = size
	return ptr, d, nil
}

func (p *prober) free(ptr DevicePtr) (time.Duration, error) {
	t0 := p.now()
	err := p.drv.MemFree(ptr)
	d := p.now().Sub(t0)
	if err != nil {
		return 0, err
	}
	delete(p.live, ptr)
	return d, nil
}

func (p *prober) newStream() (Stream, error) {
	s, err := p.drv.StreamCreate(StreamNonBlocking)
	if err != nil {
		return 0, err
	}
	p.streams = append(p.streams, s)
	return s, nil
}

func (p *prober) newEvent() (Event, error) {
	e, err := p.drv.EventCreate(0)
	if err != nil {
		return 0, err
	}
	p.events = append(p.events, e)
	return e, nil
}

func (p *prober) launchSpin(s Stream, d time.Duration) error {
	if d > maxSpin {
		d = maxSpin
	}
	return p.drv.LaunchKernel(p.spin, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, s, uint64(d.Nanoseconds()))
}

// measure runs every measurement on the open device, for workload w.
func (p *prober) measure(w Workload, freeBytes uint64) (Measurements, error) {
	var m Measurements
	var err error
	if err = p.step("idle synchronisation"); err != nil {
		return m, err
	}
	if m.IdleSync, err = p.idleSync(); err != nil {
		return m, err
	}
	stream, err := p.newStream()
	if err != nil {
		return m, err
	}
	if err = p.step("spin kernel"); err != nil {
		return m, err
	}
	if m.SpinKernel, err = p.spinCheck(stream); err != nil {
		return m, err
	}
	if err = p.step("pipeline bubble per sync"); err != nil {
		return m, err
	}
	if m.SyncBubble, m.SyncBubbleEvery10, err = p.bubble(stream); err != nil {
		return m, err
	}
	if err = p.step("cuMemAlloc/cuMemFree latency"); err != nil {
		return m, err
	}
	if m.AllocFree, err = p.allocCurve(freeBytes); err != nil {
		return m, err
	}
	if err = p.step("free and alloc while another stream is busy"); err != nil {
		return m, err
	}
	if m.FreeWhileBusy, err = p.whileBusy(stream, true); err != nil {
		return m, err
	}
	if m.AllocWhileBusy, err = p.whileBusy(stream, false); err != nil {
		return m, err
	}
	if err = p.step(fmt.Sprintf("replaying %d segments", w.Segments())); err != nil {
		return m, err
	}
	if m.Replay, err = p.replay(w, freeBytes, stream); err != nil {
		return m, err
	}
	return m, nil
}

func (p *prober) idleSync() (Stat, error) {
	for i := 0; i < 20; i++ {
		if err := p.drv.CtxSynchronize(); err != nil {
			return Stat{}, err
		}
	}
	var s []time.Duration
	for i := 0; i < 200 && !p.late(); i++ {
		t0 := p.now()
		if err := p.drv.CtxSynchronize(); err != nil {
			return Stat{}, err
		}
		s = append(s, p.now().Sub(t0))
	}
	return newStat(s), nil
}

func (p *prober) spinCheck(s Stream) (Stat, error) {
	start, err := p.newEvent()
	if err != nil {
		return Stat{}, err
	}
	end, err := p.newEvent()
	if err != nil {
		return Stat{}, err
	}
	var us []float64
	for i := 0; i < 6; i++ {
		if err := p.drv.EventRecord(start, s); err != nil {
			return Stat{}, err
		}
		if err := p.launchSpin(s, spinCheck); err != nil {
			return Stat{}, err
		}
		if err := p.drv.EventRecord(end, s); err != nil {
			return Stat{}, err
		}
		if err := p.drv.EventSynchronize(end); err != nil {
			return Stat{}, err
		}
		ms, err := p.drv.EventElapsedMs(start, end)
		if err != nil {
			return Stat{}, err
		}
		if i > 0 { // the first launch pays for loading the module onto the device
			us = append(us, float64(ms)*1000)
		}
	}
	st := statOf(us)
	want := float64(spinCheck) / float64(time.Microsecond)
	if st.Median < 0.9*want || st.Median > 20*want {
		return st, fmt.Errorf("spin kernel asked to run %.0f µs ran %.1f µs: the GPU timer kernel is unusable here", want, st.Median)
	}
	return st, nil
}

// bubble compares a stream of short kernels run back to back with the same stream
// synchronised after every kernel (and every 10th): the extra wall time per sync is what a
// sync costs a GPU that had work queued.
func (p *prober) bubble(s Stream) (Stat, Stat, error) {
	run := func(every int) (time.Duration, error) {
		t0 := p.now()
		for i := 1; i <= bubbleKernels; i++ {
			if err := p.launchSpin(s, bubbleKernel); err != nil {
				return 0, err
			}
			if every > 0 && i%every == 0 {
				if err := p.drv.CtxSynchronize(); err != nil {
					return 0, err
				}
			}
		}
		if err := p.drv.StreamSynchronize(s); err != nil {
			return 0, err
		}
		return p.now().Sub(t0), nil
	}
	if _, err := run(0); err != nil { // warm-up
		return Stat{}, Stat{}, err
	}
	var one, ten []float64
	for r := 0; r < 7 && !p.late(); r++ {
		base, err := run(0)
		if err != nil {
			return Stat{}, Stat{}, err
		}
		t1, err := run(1)
		if err != nil {
			return Stat{}, Stat{}, err
		}
		t10, err := run(10)
		if err != nil {
			return Stat{}, Stat{}, err
		}
		us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
		one = append(one, (us(t1)-us(base))/bubbleKernels)
		ten = append(ten, (us(t10)-us(base))/(bubbleKernels/10))
	}
	return statOf(one), statOf(ten), nil
}

func (p *prober) allocCurve(freeBytes uint64) ([]SizeLatency, error) {
	var out []SizeLatency
	for _, size := range curveSizes {
		if size > freeBytes/4 {
			p.notes = append(p.notes, fmt.Sprintf("allocation sizes above %s skipped: %s free", formatBytes(freeBytes/4), formatBytes(freeBytes)))
			break
		}
		if p.late() {
			p.notes = append(p.notes, fmt.Sprintf("allocation sizes from %s skipped: time budget spent", formatBytes(size)))
			break
		}
		var a, f []time.Duration
		for i := 0; i < 11; i++ {
			ptr, da, err := p.alloc(size)
			if err != nil {
				return out, err
			}
			df, err := p.free(ptr)
			if err != nil {
				return out, err
			}
			if i >= 2 { // warm-ups
				a = append(a, da)
				f = append(f, df)
			}
			if i >= 4 && p.late() {
				break
			}
		}
		out = append(out, SizeLatency{SizeBytes: size, Alloc: newStat(a), Free: newStat(f)})
	}
	return out, nil
}

// whileBusy times cuMemFree (or cuMemAlloc) issued while a 20 ms kernel runs on another
// stream: a call that returns only when the kernel is done waits for the whole device.
func (p *prober) whileBusy(s Stream, free bool) (BusyCheck, error) {
	var blocked []time.Duration
	for i := 0; i < 3; i++ {
		var ptr DevicePtr
		var err error
		if free {
			if ptr, _, err = p.alloc(kSmallBuffer); err != nil {
				return BusyCheck{}, err
			}
		}
		if err = p.launchSpin(s, busyKernel); err != nil {
			return BusyCheck{}, err
		}
		var d time.Duration
		if free {
			d, err = p.free(ptr)
		} else {
			ptr, d, err = p.alloc(kSmallBuffer)
		}
		if err != nil {
			return BusyCheck{}, err
		}
		if err := p.drv.StreamSynchronize(s); err != nil {
			return BusyCheck{}, err
		}
		if !free {
			if _, err := p.free(ptr); err != nil {
				return BusyCheck{}, err
			}
		}
		blocked = append(blocked, d)
	}
	st := newStat(blocked)
	k := float64(busyKernel) / float64(time.Microsecond)
	return BusyCheck{KernelUs: k, Blocked: st, Waits: st.Median > k/2}, nil
}

// replay allocates the workload's segments, then frees them all and allocates them all
// again, timing each pass: the free pass is what empty_cache() does, the alloc pass what
// the next step's cudaMalloc calls do. Segments are written before the timed frees of
// alternate passes, because PyTorch only ever frees memory its kernels have used and the
// driver's free cost may depend on that.
func (p *prober) replay(w Workload, freeBytes uint64, s Stream) (Replay, error) {
	total := w.Bytes()
	r := Replay{Segments: w.Segments(), Bytes: total, Scale: 1}
	groups := w.Released
	budget := uint64(float64(freeBytes) * replayFraction)
	if total > budget {
		r.Scale = float64(budget) / float64(total)
		groups = nil
		for _, g := range w.Released {
			n := int(float64(g.Count) * r.Scale)
			if n < 1 && g.SizeBytes <= budget {
				n = 1
			}
			if n > 0 {
				groups = append(groups, SegmentGroup{Pool: g.Pool, SizeBytes: g.SizeBytes, Count: n})
			}
		}
		replayed := 0
		for _, g := range groups {
			replayed += g.Count
		}
		if replayed == 0 {
			return r, fmt.Errorf("workload segments of %s do not fit in %s of free device memory", formatBytes(w.Released[0].SizeBytes), formatBytes(freeBytes))
		}
		r.Scale = float64(replayed) / float64(r.Segments)
		p.notes = append(p.notes, fmt.Sprintf("replayed %.0f%% of the workload (free memory %s); timings scaled up", r.Scale*100, formatBytes(freeBytes)))
	}
	var ptrs []DevicePtr
	allocAll := func() (time.Duration, error) {
		var sum time.Duration
		for _, g := range groups {
			for i := 0; i < g.Count; i++ {
				ptr, d, err := p.alloc(g.SizeBytes)
				if err != nil {
					return 0, err
				}
				ptrs = append(ptrs, ptr)
				sum += d
			}
		}
		return sum, nil
	}
	freeAll := func() (time.Duration, error) {
		var sum time.Duration
		for len(ptrs) > 0 {
			d, err := p.free(ptrs[len(ptrs)-1])
			if err != nil {
				return 0, err
			}
			ptrs = ptrs[:len(ptrs)-1]
			sum += d
		}
		return sum, nil
	}
	write := func() error {
		for ptr, size := range p.live {
			if err := p.drv.MemsetD32Async(ptr, 0x3f800000, size/4, s); err != nil {
				return err
			}
		}
		return p.drv.StreamSynchronize(s)
	}
	if _, err := allocAll(); err != nil {
		return r, err
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) / r.Scale }
	evict := make([]byte, evictBytes)
	// Pass 0 warms up; then unwritten, written and written-cold passes take turns, so drift
	// hits all three. The driver's free cost drifts between fast and slow phases
	// (docs/probe.md), so the passes go on for replayTime, not for a fixed count, and keep
	// their samples.
	var fs, fu, fc, as []float64
	start := p.now()
	for i := 0; i < replayMaxPasses; i++ {
		written, cold := i%3 != 0, i%3 == 2
		if written {
			if err := write(); err != nil {
				return r, err
			}
		}
		if cold {
			evictCPUCaches(evict, i)
		}
		df, err := freeAll()
		if err != nil {
			return r, err
		}
		da, err := allocAll()
		if err != nil {
			return r, err
		}
		switch {
		case i == 0:
		case cold:
			fc = append(fc, us(df))
			as = append(as, us(da))
		case written:
			fs = append(fs, us(df))
			as = append(as, us(da))
		default:
			fu = append(fu, us(df))
			as = append(as, us(da))
		}
		if i >= 3 && (p.late() || (i >= replayMinPasses && p.now().Sub(start) > replayTime)) {
			break
		}
	}
	if _, err := freeAll(); err != nil {
		return r, err
	}
	r.Free, r.FreeUnwritten, r.FreeCold, r.Alloc = statOf(fs), statOf(fu), statOf(fc), statOf(as)
	r.FreeSamples = fs
	return r, nil
}
