package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
)

// TestCostProfile: with a probe profile measured on an H200, CL001/CL002 findings carry the
// estimated cost in text and JSON output.
func TestCostProfile(t *testing.T) {
	profile := "../../bench/gpu/results/h200-profile-resnet50.json"
	var out, errb bytes.Buffer
	code := Run(context.Background(), analyzers.Engine, []string{"check", "--no-config", "--cost-profile", profile, "../../examples/train.py"}, nil, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "= cost: ~") || !strings.Contains(out.String(), "NVIDIA H200") {
		t.Errorf("text output has no cost line:\n%s", out.String())
	}
	// The CL002 finding's gate period (step % 100) reaches the cost line.
	if !strings.Contains(out.String(), "per step at one call every 100 steps on NVIDIA H200") {
		t.Errorf("CL002 cost line lacks the gate's period:\n%s", out.String())
	}
	out.Reset()
	code = Run(context.Background(), analyzers.Engine, []string{"check", "--no-config", "--format", "json", "--cost-profile", profile, "../../examples/train.py"}, nil, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var findings []struct {
		Code string  `json:"code"`
		Cost *string `json:"cost"`
	}
	if err := json.Unmarshal(out.Bytes(), &findings); err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if (f.Code == "CL001" || f.Code == "CL002") && (f.Cost == nil || *f.Cost == "") {
			t.Errorf("%s finding without cost", f.Code)
		}
	}
	if len(findings) == 0 {
		t.Fatal("no findings")
	}
}

func TestCostProfileErrors(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), analyzers.Engine, []string{"check", "--cost-profile", "no-such-profile.json", "../../examples"}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--cost-profile") || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
