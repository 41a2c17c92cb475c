package runtimecheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// traceProcess is what the shim writes for one Python process (runtime-check/shim).
type traceProcess struct {
	PID        int           `json:"pid"`
	Argv       []string      `json:"argv"`
	Torch      string        `json:"torch"`
	Device     traceDevice   `json:"device"`
	Window     int           `json:"window"`
	StepSource string        `json:"step_source"`
	Steps      int           `json:"steps"`
	Entries    []string      `json:"entries"`
	SkipStop   string        `json:"skip_stopped"`
	Notes      []string      `json:"notes"`
	Windows    []traceWindow `json:"windows"`
	Sites      []traceSite   `json:"sites"`
}

type traceDevice struct {
	Index      int    `json:"index"`
	Name       string `json:"name"`
	UUID       string `json:"uuid"`
	TotalBytes uint64 `json:"total_bytes"`
}

type traceWindow struct {
	Kind         string         `json:"kind"` // warmup, plain or skip
	Skip         string         `json:"skip"` // the skipped site's key
	Steps        int            `json:"steps"`
	Seconds      float64        `json:"seconds"`
	Calls        map[string]int `json:"calls"`
	Skipped      int            `json:"skipped"`
	PeakReserved uint64         `json:"peak_reserved"`
	AllocRetries int            `json:"alloc_retries"`
	Aborted      bool           `json:"aborted"`
	WallStart    float64        `json:"wall_start"`
	WallEnd      float64        `json:"wall_end"`
}

type traceSite struct {
	Key       string       `json:"key"`
	Entry     string       `json:"entry"`
	Frames    []TraceFrame `json:"frames"`
	File      string       `json:"file"`
	Line      int          `json:"line"`
	Rule      string       `json:"rule"`
	Via       []string     `json:"via"`
	Skippable bool         `json:"skippable"`
	Calls     int          `json:"calls"`
	Skipped   int          `json:"skipped"`
	InHandler int          `json:"in_handler"`
	Released  []uint64     `json:"released_bytes"`
}

// TraceFrame is one frame of a call site's stack: the calling frame first, then the
// user's project frames outwards.
type TraceFrame struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
}

// MeasuredSite is one call site's cost as `cachelint trace` measured it in the user's own
// run. Per-step figures compare windows of steps in which the site's calls ran with windows
// in which they were skipped: PerStepUs is the median over pairs of windows of (step time
// with) - (step time without), LowUs-HighUs the spread of those pairs.
type MeasuredSite struct {
	// File is relative to the traced project's root (forward slashes); Line is where the
	// static analysis reports the call (for a helper, the call of the helper).
	File     string       `json:"file"`
	Line     int          `json:"line"`
	Function string       `json:"function,omitempty"`
	Via      []string     `json:"via,omitempty"`
	Entry    string       `json:"entry"`
	Rule     string       `json:"rule,omitempty"`
	Frames   []TraceFrame `json:"frames"`
	Calls    int          `json:"calls"`
	// InHandler counts the calls made while an exception was being handled (never skipped).
	InHandler    int     `json:"in_handler"`
	CallsPerStep float64 `json:"calls_per_step"`
	// Measured is false when the site was only observed; Reason then says why.
	Measured  bool    `json:"measured"`
	Reason    string  `json:"reason,omitempty"`
	PerStepUs float64 `json:"per_step_us,omitempty"`
	LowUs     float64 `json:"low_us,omitempty"`
	HighUs    float64 `json:"high_us,omitempty"`
	PerCallUs float64 `json:"per_call_us,omitempty"`
	Pairs     int     `json:"pairs,omitempty"`
	// PairsUs are the pairs' differences (step time with - without), in run order.
	PairsUs    []float64 `json:"pairs_us,omitempty"`
	StepUs     float64   `json:"step_us,omitempty"`
	StepUsSkip float64   `json:"step_us_without,omitempty"`
	// Memory with the calls (plain windows) and without them (this site's skip windows).
	PeakReserved     uint64 `json:"peak_reserved_bytes"`
	PeakReservedSkip uint64 `json:"peak_reserved_bytes_without,omitempty"`
	Retries          int    `json:"alloc_retries"`
	RetriesSkip      int    `json:"alloc_retries_without,omitempty"`
	ReleasedPerCall  uint64 `json:"released_bytes_per_call,omitempty"`
	// GPUUtil and GPUUtilSkip are the mean GPU utilisation (NVML, percent) in windows
	// with the calls and in this site's windows without them; nil where no sample fell.
	GPUUtil     *float64 `json:"gpu_util_percent,omitempty"`
	GPUUtilSkip *float64 `json:"gpu_util_percent_without,omitempty"`
	Verdict     string   `json:"verdict"`
}

// TraceRun describes the traced run.
type TraceRun struct {
	Command    []string `json:"command"`
	ExitCode   int      `json:"exit_code"`
	Root       string   `json:"root"`
	Processes  int      `json:"processes"`
	Torch      string   `json:"torch,omitempty"`
	Window     int      `json:"window"`
	NoSkip     bool     `json:"no_skip"`
	StepSource string   `json:"step_source"`
	Steps      int      `json:"steps"`
	// PlainWindows and SkipWindows count the windows used (warm-up and aborted ones left out).
	PlainWindows int     `json:"plain_windows"`
	SkipWindows  int     `json:"skip_windows"`
	StepUs       float64 `json:"step_us"`
	SkipStopped  string  `json:"skip_stopped,omitempty"`
	// Pauses counts the times the program left a phase out (_cachelint_trace.pause()).
	Pauses int `json:"pauses,omitempty"`
	// GPUUtil is the mean GPU utilisation (NVML, percent) in windows with every call;
	// UtilNote says why there is none.
	GPUUtil  *float64 `json:"gpu_util_percent,omitempty"`
	UtilNote string   `json:"gpu_util_note,omitempty"`
	// Notes are what the shim could not do as planned (a missing hook, an unreadable device).
	Notes []string `json:"notes,omitempty"`
}

// Step sources, as the shim names them.
const (
	StepsAtOptimizer = "optimizer-step"
	StepsAtForward   = "module-forward"
)

// readTraceDir reads every process file the shim wrote into dir.
func readTraceDir(dir string) ([]traceProcess, error) {
	names, err := filepath.Glob(filepath.Join(dir, "trace-*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var procs []traceProcess
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("read trace: %w", err)
		}
		var p traceProcess
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("trace %s: %w", filepath.Base(n), err)
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// stepUs is a window's mean step time in microseconds.
func (w *traceWindow) stepUs() float64 { return w.Seconds * 1e6 / float64(w.Steps) }

func (w *traceWindow) usable() bool { return !w.Aborted && w.Steps > 0 && w.Kind != "warmup" }

// summarise turns the processes' windows into one figure per call site. root is the
// project's absolute root: site files are given relative to it.
func summarise(procs []traceProcess, root string, samples []gpuSample) (TraceRun, []MeasuredSite) {
	var run TraceRun
	run.Root = root
	type acc struct {
		site                  traceSite
		diffs                 []float64
		plainSteps, plainCall int
		skipSteps             []float64
		peak, peakSkip        uint64
		retries, retriesSkip  int
		skipWindows           int
		released              []uint64
		utilSkip              []float64
	}
	sites := map[string]*acc{}
	var order []string
	var plainSteps, plainUtil []float64
	for _, p := range procs {
		if len(p.Sites) == 0 && p.Steps == 0 {
			continue // a process that imported torch and did nothing traced (a launcher)
		}
		run.Processes++
		run.Steps += p.Steps
		if run.Torch == "" {
			run.Torch = p.Torch
		}
		if run.StepSource == "" {
			run.StepSource = p.StepSource
		}
		if p.SkipStop != "" && run.SkipStopped == "" {
			run.SkipStopped = p.SkipStop
		}
		for _, n := range p.Notes {
			if !slices.Contains(run.Notes, n) {
				run.Notes = append(run.Notes, n)
			}
		}
		for _, s := range p.Sites {
			a := sites[s.Key]
			if a == nil {
				a = &acc{site: s}
				a.site.Calls, a.site.Skipped, a.site.InHandler = 0, 0, 0
				sites[s.Key] = a
				order = append(order, s.Key)
			}
			a.site.Calls += s.Calls
			a.site.Skipped += s.Skipped
			a.site.InHandler += s.InHandler
			a.released = append(a.released, s.Released...)
		}
		ws := p.Windows
		for i := range ws {
			w := &ws[i]
			if w.Kind == "pause" {
				run.Pauses++
			}
			if !w.usable() {
				continue
			}
			util, hasUtil := windowUtil(samples, p.Device.UUID, w)
			if w.Kind == "plain" {
				if hasUtil {
					plainUtil = append(plainUtil, util)
				}
				run.PlainWindows++
				plainSteps = append(plainSteps, w.stepUs())
				for k, a := range sites {
					a.plainCall += w.Calls[k]
					a.plainSteps += w.Steps
					a.peak = max(a.peak, w.PeakReserved)
					a.retries += w.AllocRetries
				}
				continue
			}
			a := sites[w.Skip]
			if a == nil || w.Skipped == 0 {
				continue
			}
			run.SkipWindows++
			a.skipWindows++
			a.skipSteps = append(a.skipSteps, w.stepUs())
			a.peakSkip = max(a.peakSkip, w.PeakReserved)
			a.retriesSkip += w.AllocRetries
			if hasUtil {
				a.utilSkip = append(a.utilSkip, util)
			}
			if d, ok := pairDiff(ws, i); ok {
				a.diffs = append(a.diffs, d)
			}
		}
	}
	run.StepUs = statOf(plainSteps).Median
	run.GPUUtil = mean(plainUtil)
	out := make([]MeasuredSite, 0, len(order))
	for _, k := range order {
		a := sites[k]
		m := MeasuredSite{File: relTo(root, a.site.File), Line: a.site.Line, Via: a.site.Via, Entry: a.site.Entry,
			Rule: a.site.Rule, Frames: a.site.Frames, Calls: a.site.Calls, InHandler: a.site.InHandler,
			PeakReserved: a.peak, Retries: a.retries}
		for i := range m.Frames {
			m.Frames[i].File = relTo(root, m.Frames[i].File)
		}
		for _, f := range a.site.Frames {
			if f.File == a.site.File && f.Line == a.site.Line {
				m.Function = f.Function
			}
		}
		if a.plainSteps > 0 {
			m.CallsPerStep = float64(a.plainCall) / float64(a.plainSteps)
		}
		if len(a.released) > 0 {
			r := make([]float64, len(a.released))
			for i, b := range a.released {
				r[i] = float64(b)
			}
			m.ReleasedPerCall = uint64(statOf(r).Median)
		}
		switch {
		case len(a.diffs) > 0:
			st := statOf(a.diffs)
			m.Measured, m.Pairs, m.PairsUs = true, st.N, a.diffs
			m.PerStepUs, m.LowUs, m.HighUs = st.Median, st.Min, st.Max
			if m.CallsPerStep > 0 {
				m.PerCallUs = m.PerStepUs / m.CallsPerStep
			}
			m.StepUs = run.StepUs
			m.StepUsSkip = statOf(a.skipSteps).Median
			m.PeakReservedSkip, m.RetriesSkip = a.peakSkip, a.retriesSkip
			m.GPUUtil, m.GPUUtilSkip = run.GPUUtil, mean(a.utilSkip)
		case !a.site.Skippable && a.site.Rule == "":
			m.Reason = "not reported by the static analysis (CL001/CL002/CL004): observed, never skipped"
		case !a.site.Skippable:
			m.Reason = "--no-skip: observed, never skipped"
		case a.site.InHandler == a.site.Calls:
			m.Reason = "every call ran while an exception was being handled: never skipped"
		case run.SkipStopped != "":
			m.Reason = "skipping stopped before a window without its calls completed"
		default:
			m.Reason = "no window without its calls completed (run longer, or a smaller --window)"
		}
		m.Verdict = verdict(&m)
		out = append(out, m)
	}
	return run, out
}

func mean(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	var s float64
	for _, x := range v {
		s += x
	}
	s /= float64(len(v))
	return &s
}

// pairDiff compares skip window i with the plain windows next to it (their mean, so that a
// linear drift cancels): the step time the site's calls add.
func pairDiff(ws []traceWindow, i int) (float64, bool) {
	var sum float64
	n := 0
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(ws) && ws[j].usable() && ws[j].Kind == "plain" {
			sum += ws[j].stepUs()
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum/float64(n) - ws[i].stepUs(), true
}

// verdict says what to do with the site, from what the run showed.
func verdict(m *MeasuredSite) string {
	if !m.Measured {
		return "not measured: " + m.Reason
	}
	grew := m.PeakReservedSkip > m.PeakReserved+m.PeakReserved/10
	if grew || m.RetriesSkip > m.Retries {
		return fmt.Sprintf("without it peak reserved %s (was %s), %d allocator retries (was %d): it buys memory; try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True before removing it",
			formatBytes(m.PeakReservedSkip), formatBytes(m.PeakReserved), m.RetriesSkip, m.Retries)
	}
	if m.LowUs <= 0 && m.PerStepUs < 0.02*m.StepUs {
		return "peak reserved unchanged, no measurable cost"
	}
	return "peak reserved unchanged: remove it"
}

// relTo gives path relative to root with forward slashes, or path itself outside root.
func relTo(root, path string) string {
	if root == "" {
		return filepath.ToSlash(path)
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// siteName is how the table names a site: "train.py:88 via free_gpu()".
func (m *MeasuredSite) siteName() string {
	s := fmt.Sprintf("%s:%d", m.File, m.Line)
	if len(m.Via) > 0 {
		s += " via " + strings.Join(m.Via, "() -> ") + "()"
	}
	return s
}
