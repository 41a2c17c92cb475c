package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// CallCost is what one `torch.cuda.empty_cache()` call after every optimizer step cost a
// measured training workload: the call phase's step time minus that of the plain phases
// around it (bench/gpu/empty_cache_bench.py). The findings of CL001-CL003 quote the range of
// these figures, a cost per call that holds whatever one "step" of the user's loop is,
// instead of a throughput loss that holds only for a step like the one measured.
type CallCost struct {
	// Workload names the measured step as a message says it ("a transformer"); Setup is
	// the rest of docs/probe.md's description of it.
	Workload, Setup string
	// Bench is the workload's name in the benchmark's summaries ("resnet50").
	Bench  string
	Device string
	// LowMs and HighMs are the lowest and highest of the runs' median per-call costs.
	LowMs, HighMs float64
	// Runs names the runs and where their raw output is.
	Runs string
}

// measuredRuns is where the per-call costs below are recorded.
const measuredRuns = "runs b-f, bench/gpu/results/h200-2026-12-02/summary-{b,c}.txt and h200-2026-12-03/summary-{d,e,f}.txt"

// MeasuredCallCosts are the per-call costs measured on an NVIDIA H200 (driver 580.159.04,
// PyTorch 2.11.0+cu130), docs/probe.md "Validation on an NVIDIA H200": runs b-f, each the
// median over its benchmark processes. A test checks them against the runs' summaries.
var MeasuredCallCosts = []CallCost{
	{
		Workload: "a transformer", Setup: "8×1024, batch 16, 128-1024 tokens, bf16", Bench: "transformer",
		Device: "NVIDIA H200", LowMs: 5.44, HighMs: 9.90, Runs: measuredRuns,
	},
	{
		Workload: "ResNet-50", Setup: "batch 128, fp32", Bench: "resnet50",
		Device: "NVIDIA H200", LowMs: 11.39, HighMs: 19.57, Runs: measuredRuns,
	},
}

// CallCostRange words the measured range for a message: "5.4-19.6 ms on NVIDIA H200
// (measured with a transformer and ResNet-50)". The costs share one device.
func CallCostRange() string {
	low, high := MeasuredCallCosts[0].LowMs, MeasuredCallCosts[0].HighMs
	var names []string
	for _, c := range MeasuredCallCosts {
		low, high = min(low, c.LowMs), max(high, c.HighMs)
		names = append(names, c.Workload)
	}
	last := len(names) - 1
	with := names[last]
	if last > 0 {
		with = strings.Join(names[:last], ", ") + " and " + names[last]
	}
	return fmt.Sprintf("%s-%s ms on %s (measured with %s)", ms(low), ms(high), MeasuredCallCosts[0].Device, with)
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
