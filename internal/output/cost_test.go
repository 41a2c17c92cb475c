package output

import (
	"testing"
	"time"

	"github.com/cachelint/cachelint/internal/report"
)

func TestCostLine(t *testing.T) {
	costs := &report.Costs{PerCall: 25 * time.Millisecond, Device: "NVIDIA H200", Segments: 96}
	for _, tc := range []struct {
		code   string
		period int
		want   string
	}{
		{"CL001", 0, "~25 ms per step on NVIDIA H200 (probe profile, 96 segments)"},
		{"CL002", 100, "~25 ms per call, ~250 µs per step at one call every 100 steps on NVIDIA H200 (probe profile, 96 segments)"},
		{"CL002", 0, "~25 ms per call on NVIDIA H200 (probe profile, 96 segments)"},
		{"CL003", 0, "~25 ms per epoch on NVIDIA H200 (probe profile, 96 segments)"},
		{"CL004", 0, "~25 ms per call on NVIDIA H200 (probe profile, 96 segments)"},
		{"CL010", 0, ""},
		{"CL900", 0, ""},
		{"CL999", 0, ""},
	} {
		f := &report.Finding{Code: tc.code, Period: tc.period}
		if got := CostLine(f, costs); got != tc.want {
			t.Errorf("CostLine(%s, period %d) = %q, want %q", tc.code, tc.period, got, tc.want)
		}
	}
	costs.Step = 55 * time.Millisecond
	if got, want := CostLine(&report.Finding{Code: "CL001"}, costs), "~25 ms per step (45% of a 55 ms step) on NVIDIA H200 (probe profile, 96 segments)"; got != want {
		t.Errorf("with step time: %q, want %q", got, want)
	}
	if CostLine(&report.Finding{Code: "CL001"}, nil) != "" {
		t.Error("no profile, no cost line")
	}
}
