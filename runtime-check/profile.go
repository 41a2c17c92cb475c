package runtimecheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cachelint/cachelint/internal/report"
)

// Profile schema identifiers. Version changes only when a field changes meaning or goes
// away; new fields may appear within a version.
const (
	ProfileSchema  = "cachelint-cost-profile"
	ProfileVersion = 1
)

// Estimate is the modelled cost of one torch.cuda.empty_cache() call:
//
//	per call = sync bubble + Σ cuMemFree(released segment) + exposed refill
//
// The sync drains the pipeline and the frees run while the GPU idles: both are always
// lost. cuMemFree is CPU work in the kernel driver (a loop over every 64 KiB frame), and in
// a training loop a whole step of CPU work runs between two calls, so the frees start
// with the CPU caches cold: FreeUs is the replay's cold-cache pass, and the warm pass
// (FreeWarmUs, what a tight loop of frees sees) is the range's low end. The next step's
// cudaMalloc calls for the same segments (RefillUs) block only the CPU (the probe checks
// that cuMemAlloc does not wait for the device), so in principle the GPU loses that time
// only while its queue is empty. Measured on an H200 on workloads the model was not fitted
// on (issue 15, docs/probe.md), the step after the call ran 5-8 ms slower: the sync leaves
// the queue empty and the refill comes before the step's first long kernels, so it is
// exposed. The point estimate counts it in full; LowUs counts none (a step whose
// allocations come after long kernels hides it); HighUs counts refillHighFactor times it (a
// launch-bound step pays more than a tight loop of cuMemAlloc); --refill-ms, what the user
// measured, replaces all three. When cuMemAlloc waits for the device, every re-allocation
// also drains the pipeline: a bubble each.
type Estimate struct {
	PerCallUs float64 `json:"per_call_us"`
	LowUs     float64 `json:"low_us"`
	HighUs    float64 `json:"high_us"`
	SyncUs    float64 `json:"sync_us"`
	// SyncSource says where SyncUs comes from: the probe's synthetic pipeline bubble, or
	// the drain cost the user measured on their own step (--sync-ms).
	SyncSource string  `json:"sync_source"`
	FreeUs     float64 `json:"free_us"`
	FreeWarmUs float64 `json:"free_warm_us"`
	// RefillUs is the CPU time of the next step's cudaMalloc calls; ExposedRefillUs the
	// part of it counted in PerCallUs, as RefillSource says.
	RefillUs        float64 `json:"refill_us"`
	ExposedRefillUs float64 `json:"exposed_refill_us"`
	RefillSource    string  `json:"refill_source,omitempty"`
	Segments        int     `json:"segments"`
	Bytes           uint64  `json:"bytes"`
	// StepUs is the user's step time (--step-ms), 0 when not given; Fraction is
	// PerCallUs/StepUs.
	StepUs   float64 `json:"step_us,omitempty"`
	Fraction float64 `json:"fraction_of_step,omitempty"`
}

// CostProfile is what `cachelint probe --json` writes and `check --cost-profile` reads.
type CostProfile struct {
	Schema       string       `json:"schema"`
	Version      int          `json:"version"`
	CreatedAt    string       `json:"created_at"`
	Device       DeviceInfo   `json:"device"`
	Driver       DriverInfo   `json:"driver"`
	Workload     Workload     `json:"workload"`
	Measurements Measurements `json:"measurements"`
	Estimate     Estimate     `json:"estimate"`
	Notes        []string     `json:"notes,omitempty"`
	// Trace and Sites are what `cachelint trace --json` measured in the user's own run:
	// per call site, the cost of its calls. Estimate is then zero unless the trace was
	// given a probe profile (--cost-profile), whose estimate stays for the sites the run
	// never reached.
	Trace *TraceRun      `json:"trace,omitempty"`
	Sites []MeasuredSite `json:"sites,omitempty"`
}

// Where Estimate.SyncUs comes from.
const (
	SyncFromProbe = "probe-bubble"
	SyncFromUser  = "sync-ms"
)

// Where Estimate.ExposedRefillUs comes from: the probe's replay counted in full, the
// user's measurement (--refill-ms), or the replay in full because cuMemAlloc waits.
const (
	RefillFromProbe  = "probe-refill"
	RefillFromUser   = "refill-ms"
	RefillAllocWaits = "alloc-waits"
)

// estimate models one call; syncMs < 0 means the user gave no --sync-ms.
//
// The sync costs what the GPU idles while the CPU, released from the sync, rebuilds its
// lead: for a step whose first kernels are short and launch-bound that is far more than
// the probe's synthetic bubble (docs/probe.md: 9-12 µs on an H200 against 2-3 ms for a
// transformer step), and only the user's own step shows it. Given, it replaces the bubble.
// refillMs < 0 means the user gave no --refill-ms.
//
// What a step pays for the refill, measured in the loop (a step synchronised at both ends
// right after the call, less one after none; bench/gpu/trace/parts.py and inproc.py), was
// 0.36 to 3.3 times the replay's cuMemAlloc pass over six workloads in four processes on an
// H100 (bench/gpu/results/h100-2026-12-05-parts, -inproc5, -inproc6, -inproc7-vit): a step
// whose first kernels are long hides part of it (VGG 0.36-0.43x, segmentation 0.5-0.9x);
// one whose CPU issues it barely ahead of the GPU pays more than the bare driver calls (ViT
// 1.3-3.3x, decoder LM 1.3-2.2x, diffusion sampling 1.8-2.6x, MLP 2.6-2.8x). The driver
// shows nothing that tells the two apart; a range that counted the refill at most once left
// the measured cost of four of six workloads above it. So the upper end counts it
// refillHighFactor times.
const refillHighFactor = 3.0

func estimate(m Measurements, w Workload, stepMs, syncMs, refillMs float64) Estimate {
	warm, free, alloc := m.Replay.acrossProcesses()
	e := Estimate{
		SyncUs:     m.SyncBubble.Median,
		SyncSource: SyncFromProbe,
		FreeUs:     free.Median,
		FreeWarmUs: warm.Median,
		RefillUs:   alloc.Median,
		Segments:   w.Segments(),
		Bytes:      w.Bytes(),
	}
	lowSync, highSync := m.SyncBubble.P10, m.SyncBubble.P90
	if syncMs >= 0 {
		e.SyncUs, e.SyncSource = syncMs*1000, SyncFromUser
		lowSync, highSync = e.SyncUs, e.SyncUs
	}
	e.ExposedRefillUs, e.RefillSource = e.RefillUs, RefillFromProbe
	lowRefill, highRefill := 0.0, refillHighFactor*alloc.P90
	switch {
	case m.AllocWhileBusy.Waits:
		n := float64(e.Segments)
		e.SyncUs += n * m.SyncBubble.Median
		lowSync += n * m.SyncBubble.P10
		highSync += n * m.SyncBubble.P90
		e.RefillSource = RefillAllocWaits
		lowRefill, highRefill = alloc.P10, alloc.P90
	case refillMs >= 0:
		e.ExposedRefillUs, e.RefillSource = refillMs*1000, RefillFromUser
		lowRefill, highRefill = e.ExposedRefillUs, e.ExposedRefillUs
	}
	e.PerCallUs = e.SyncUs + e.FreeUs + e.ExposedRefillUs
	e.LowUs = math.Max(0, lowSync) + math.Min(warm.P10, free.P10) + lowRefill
	e.HighUs = highSync + free.P90 + highRefill
	if stepMs > 0 {
		e.StepUs = stepMs * 1000
		e.Fraction = e.PerCallUs / e.StepUs
	}
	return e
}

// LoadProfile reads a cost profile written by `cachelint probe --json` or `cachelint
// trace --json`.
func LoadProfile(path string) (*CostProfile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read cost profile: %w", err)
	}
	var p CostProfile
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("cost profile %s: not valid JSON: %w", path, err)
	}
	if p.Schema != ProfileSchema {
		return nil, fmt.Errorf("cost profile %s: schema is %q, want %q (write one with `cachelint probe --json FILE`)", path, p.Schema, ProfileSchema)
	}
	if p.Version != ProfileVersion {
		return nil, fmt.Errorf("cost profile %s: version %d is not supported (this cachelint reads version %d)", path, p.Version, ProfileVersion)
	}
	if p.Device.Name == "" {
		return nil, fmt.Errorf("cost profile %s: no device name", path)
	}
	if p.Trace == nil && (!(p.Estimate.PerCallUs > 0) || math.IsInf(p.Estimate.PerCallUs, 0)) {
		return nil, fmt.Errorf("cost profile %s: estimate.per_call_us must be a positive number", path)
	}
	for _, s := range p.Sites {
		if s.File == "" || s.Line < 1 || (s.Measured && (math.IsNaN(s.PerStepUs) || math.IsInf(s.PerStepUs, 0))) {
			return nil, fmt.Errorf("cost profile %s: a measured site needs a file, a line and a finite per_step_us", path)
		}
	}
	return &p, nil
}

// WriteFile writes the profile as indented JSON.
func (p *CostProfile) WriteFile(path string) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("encode cost profile: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write cost profile: %w", err)
	}
	return nil
}

// EstimatedCallCost is the modelled cost of one torch.cuda.empty_cache() call.
func (p *CostProfile) EstimatedCallCost() time.Duration {
	if p == nil {
		return 0
	}
	return time.Duration(p.Estimate.PerCallUs * float64(time.Microsecond))
}

func us(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }

// Costs are the profile's estimate, independent of any rule (internal/output words the
// `= cost:` line from them); nil when the profile holds no estimate.
func (p *CostProfile) Costs() *report.Costs {
	if p == nil || !(p.Estimate.PerCallUs > 0) {
		return nil
	}
	return &report.Costs{PerCall: us(p.Estimate.PerCallUs), Step: us(p.Estimate.StepUs), Device: p.Device.Name,
		Segments: p.Estimate.Segments}
}

// CostsAt are the costs for a finding at file:line (file as check shows it, relative to
// the working directory or absolute): what a trace measured at that site, else the
// estimate (nil when there is neither).
func (p *CostProfile) CostsAt(file string, line int) *report.Costs {
	if p == nil {
		return nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	abs = filepath.ToSlash(abs)
	for i := range p.Sites {
		s := &p.Sites[i]
		if !s.Measured || s.Line != line || (abs != s.File && !strings.HasSuffix(abs, "/"+s.File)) {
			continue
		}
		return &report.Costs{PerCall: us(s.PerCallUs), Step: us(s.StepUs), Device: p.Device.Name,
			Measured: &report.Measured{PerStep: us(s.PerStepUs), CallsPerStep: s.CallsPerStep, Pairs: s.Pairs}}
	}
	return p.Costs()
}

func formatBytes(b uint64) string {
	switch {
	case b >= gib:
		return fmt.Sprintf("%.1f GiB", float64(b)/gib)
	case b >= mib:
		return fmt.Sprintf("%.0f MiB", float64(b)/mib)
	default:
		return fmt.Sprintf("%d B", b)
	}
}

var errUsage = errors.New("usage")
