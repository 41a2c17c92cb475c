package analyzers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
)

// helperChain writes train.py: a step loop calling f0, and f0 ... f(depth) each calling
// the next; every helper empties the cache when each is true, only the last one otherwise.
func helperChain(t *testing.T, depth int, each bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("import torch\n\n\ndef train(model, loader, opt):\n    for batch in loader:\n" +
		"        model(batch).sum().backward()\n        opt.step()\n        f0()  # want \"CL001\"\n")
	for i := 0; i <= depth; i++ {
		fmt.Fprintf(&b, "\n\ndef f%d():\n", i)
		if each || i == depth {
			b.WriteString("    torch.cuda.empty_cache()\n")
		}
		if i < depth {
			fmt.Fprintf(&b, "    f%d()\n", i+1)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHelperChainRecords: in a chain of helpers that each empty the cache, each helper's
// call is followed to the callers once, so the records grow with the chain, not its square
// (each call followed to the loop made depth^2/2 records, with chains as long as depth).
func TestHelperChainRecords(t *testing.T) {
	const depth = 300
	res := analyzertest.Run(t, helperChain(t, depth, true), analyzers.StepLoop)
	if n := len(res.Calls); n > 3*(depth+1) {
		t.Errorf("%d call records for %d helpers, want at most %d", n, depth+1, 3*(depth+1))
	}
}

// TestLongLoopBody: many cache calls in one long loop body are each classified, with the
// early exits and OOM handlers before them read once per statement and loop, not per call;
// and the retry loop's handler, read once, still makes its calls legitimate.
func TestLongLoopBody(t *testing.T) {
	var b strings.Builder
	b.WriteString("import torch\n\n\ndef train(model, loader, opt):\n    for step, batch in enumerate(loader):\n" +
		"        if step == 0:\n            continue\n        model(batch).sum().backward()\n        opt.step()\n")
	for range 200 {
		b.WriteString("        torch.cuda.empty_cache()  # want \"CL001\"\n        with torch.no_grad():\n            x = 1\n")
	}
	b.WriteString("\n\ndef retry(model, batch, size):\n    while size > 1:\n        try:\n            return model(batch[:size])\n" +
		"        except torch.cuda.OutOfMemoryError:\n            size //= 2\n")
	for range 50 {
		b.WriteString("        torch.cuda.empty_cache()\n")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	analyzertest.Run(t, dir, analyzers.StepLoop)
}
