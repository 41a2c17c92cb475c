package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMeasuredCallCostsMatchTheRuns reads the benchmark summaries the costs cite and checks
// that each workload's low and high are the lowest and highest per-call medians recorded
// there, so the figures the messages quote cannot drift from what was measured.
func TestMeasuredCallCostsMatchTheRuns(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "bench", "gpu", "results", "h200-2026-12-0[23]", "summary-[b-f].txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Fatalf("want the summaries of runs b-f, found %v", files)
	}
	re := regexp.MustCompile(`(?m)^(\w+): measured per call ([0-9.]+) ms`)
	low, high, runs := map[string]float64{}, map[string]float64{}, map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", f, m[0], err)
			}
			w := m[1]
			if runs[w] == 0 || v < low[w] {
				low[w] = v
			}
			if runs[w] == 0 || v > high[w] {
				high[w] = v
			}
			runs[w]++
		}
	}
	for _, c := range MeasuredCallCosts {
		if runs[c.Bench] != len(files) {
			t.Errorf("%s: %d runs in the summaries, want one per file (%d)", c.Bench, runs[c.Bench], len(files))
		}
		if c.LowMs != low[c.Bench] || c.HighMs != high[c.Bench] {
			t.Errorf("%s: recorded %.2f-%.2f ms, the runs say %.2f-%.2f ms", c.Bench, c.LowMs, c.HighMs, low[c.Bench], high[c.Bench])
		}
		if c.Device != MeasuredCallCosts[0].Device {
			t.Errorf("%s measured on %s, the others on %s: CallCostRange words one device", c.Bench, c.Device, MeasuredCallCosts[0].Device)
		}
	}
}

// TestCallCostRange: the range spans every workload, and the docs that quote it say the same.
func TestCallCostRange(t *testing.T) {
	got := CallCostRange()
	if want := "5.4-19.6 ms on NVIDIA H200 (measured with a transformer and ResNet-50)"; got != want {
		t.Errorf("CallCostRange() = %q, want %q", got, want)
	}
	figures := got[:strings.Index(got, " ms")+3]
	for _, code := range []string{CL001, CL002, CL003, CL004} {
		r, _ := Lookup(code)
		if !strings.Contains(r.Doc(), figures) {
			t.Errorf("%s.md does not quote the measured per-call cost %q", code, figures)
		}
	}
}
