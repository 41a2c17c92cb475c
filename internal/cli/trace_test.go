package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
)

// TestTraceThenCheck runs `cachelint trace` on the fake-torch project (the real python3;
// the static analysis of the project decides what may be skipped) and merges its profile
// into `check`: the measured site's finding says what it cost in that run, the others
// carry no cost (the trace had no probe estimate).
func TestTraceThenCheck(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH")
	}
	proj, err := filepath.Abs("../../testdata/trace/proj")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PYTHONPATH", filepath.Join(filepath.Dir(proj), "faketorch"))
	profile := filepath.Join(t.TempDir(), "trace.json")
	var out, errb bytes.Buffer
	code := Run(context.Background(), analyzers.Engine, []string{"trace", "--no-config", "--project-root", proj, "--json", profile,
		"--window", "8", "--", "python3", filepath.Join(proj, "train.py"), "120"}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("trace exit %d, stderr:\n%s", code, errb.String())
	}
	for _, want := range []string{"train.py:15 via free_gpu(): 1 call/step, ", "remove it", "train.py:17 via free_gpu(): 1 call(s); not measured: not reported",
		"wrote the cost profile to " + profile} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("trace output lacks %q:\n%s", want, errb.String())
		}
	}

	out.Reset()
	errb.Reset()
	code = Run(context.Background(), analyzers.Engine, []string{"check", "--no-config", "--format", "json", "--cost-profile", profile, proj}, nil, &out, &errb)
	if code != 1 {
		t.Fatalf("check exit %d, stderr %s", code, errb.String())
	}
	var findings []struct {
		File string  `json:"file"`
		Line int     `json:"line"`
		Cost *string `json:"cost"`
	}
	if err := json.Unmarshal(out.Bytes(), &findings); err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, f := range findings {
		measured := strings.HasSuffix(f.File, "train.py") && f.Line == 15
		seen = seen || measured
		switch {
		case measured && (f.Cost == nil || !strings.Contains(*f.Cost, "measured on Fake GPU, 1 call/step (cachelint trace, median of")):
			t.Errorf("measured finding %s:%d cost %v", f.File, f.Line, f.Cost)
		case !measured && f.Cost != nil && *f.Cost != "":
			t.Errorf("finding %s:%d has a cost the trace did not measure: %s", f.File, f.Line, *f.Cost)
		}
	}
	if !seen {
		t.Fatalf("no finding at train.py:15 in %s", out.String())
	}
}

func TestTraceUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"trace"}, "no command"},
		{[]string{"trace", "--window", "1", "--", "python3"}, "at least 2 steps"},
		{[]string{"trace", "--cost-profile", "no-such.json", "--", "python3"}, "--cost-profile"},
		{[]string{"trace", "--bogus"}, "bogus"},
	} {
		var out, errb bytes.Buffer
		if code := Run(context.Background(), analyzers.Engine, c.args, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errb.String(), c.want)
		}
	}
}
