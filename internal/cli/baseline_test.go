package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
)

// TestBaselineEndToEnd: a baselined finding stays silent when lines are added above it,
// and a second identical call in the same function is reported as new.
func TestBaselineEndToEnd(t *testing.T) {
	dir := t.TempDir()
	write := func(src string) {
		if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), analyzers.Engine, append([]string{"check", "--no-config", "--format", "concise"}, append(args, dir)...), nil, &out, &errb)
		return code, out.String() + errb.String()
	}
	must := func(code int, out string, want int) {
		t.Helper()
		if code != want {
			t.Fatalf("exit %d, want %d:\n%s", code, want, out)
		}
	}
	loop := "import torch\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        torch.cuda.empty_cache()\n"
	write(loop)
	bl := filepath.Join(t.TempDir(), "baseline.json")
	code, out := check("--write-baseline", bl)
	must(code, out, 0)
	code, out = check("--baseline", bl)
	must(code, out, 0)

	write("import os\nimport sys\n\n# a new comment\n" + loop)
	code, out = check("--baseline", bl)
	must(code, out, 0)

	write(strings.Replace(loop, "        torch.cuda.empty_cache()\n", "        torch.cuda.empty_cache()\n        torch.cuda.empty_cache()\n", 1))
	code, out = check("--baseline", bl)
	must(code, out, 1)
	if strings.Count(out, "CL001") != 1 || !strings.Contains(out, "train.py:8:") {
		t.Errorf("want exactly the second call (line 8) reported:\n%s", out)
	}
}
