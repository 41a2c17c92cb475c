package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
)

// The shapes of file that once cost superlinear time (issue 17): half-edited files as
// pre-commit and editors see them, and valid Python that stretches one construct. Each
// generator writes about n lines.
var pathological = []struct {
	name string
	gen  func(n int) string
}{
	{"clean", func(n int) string { return stepLoop(n, "") }},
	{"unclosed-bracket", func(n int) string { return stepLoop(n, "        tensor = (\n") }},
	{"unclosed-bracket-calls", func(n int) string {
		return loopHead + "        tensor = (\n" + strings.Repeat("        torch.cuda.empty_cache()\n", n)
	}},
	{"unterminated-string", func(n int) string { return stepLoop(n, "        doc = \"\"\"\n") }},
	{"repeated-statement", func(n int) string { return loopHead + strings.Repeat("        torch.cuda.empty_cache()\n", n) }},
	{"comment-lines", func(n int) string {
		return loopHead + "        loss.backward()\n" + strings.Repeat("        # c\n", n) + "        torch.cuda.empty_cache()\n"
	}},
	{"helper-chain", func(n int) string { return helperChain(n / 4) }},
	{"gated-calls", func(n int) string {
		// Each call behind a switch whose binding is asked about per gate (a walk of the
		// file per call once made this quadratic).
		return "import torch\nLOW = False\n\n\ndef train(model, loader, opt):\n    for x in loader:\n        model(x).backward()\n" +
			strings.Repeat("        if LOW:\n            torch.cuda.empty_cache()\n", n/2)
	}},
	{"deleted-then-cleared", func(n int) string {
		// Each clear beside a `del` of a name bound just before: what the name holds was a
		// walk of the function per clear (quadratic: 2,000 repetitions took 3.3 s).
		var b strings.Builder
		b.WriteString(loopHead)
		for i := range n / 3 {
			fmt.Fprintf(&b, "        out_%d = model(x)\n        del out_%d\n        torch.cuda.empty_cache()\n", i, i)
		}
		return b.String()
	}},
	{"with-blocks", func(n int) string {
		var b strings.Builder
		b.WriteString(loopHead)
		for i := range n / 3 {
			fmt.Fprintf(&b, "        with torch.no_grad():\n            out_%d = model(x)\n            torch.cuda.empty_cache()\n", i)
		}
		return b.String()
	}},
	{"elif-chain", func(n int) string {
		// Each call asked the whole chain for a continue (quadratic: 3,333 clauses took 5.7 s).
		var b strings.Builder
		b.WriteString(loopHead + "        loss = criterion(model(x), y)\n        loss.backward()\n        opt.step()\n        if loss.item() > 9:\n            pass\n")
		for i := range n / 2 {
			fmt.Fprintf(&b, "        elif loss.item() > %d:\n            torch.cuda.empty_cache()\n", i+10)
		}
		return b.String()
	}},
	{"call-chain", func(n int) string {
		return loopHead + "        loss.backward()\n        torch.cuda.empty_cache()\n        f" + strings.Repeat("()", n) + "\n"
	}},
}

const loopHead = "import torch\n\n\ndef train(model, loader, opt, criterion):\n    for step, (x, y) in enumerate(loader):\n"

// stepLoop is a training loop of n lines, the broken line (if any) first in its body.
func stepLoop(n int, broken string) string {
	body := []string{
		"        out = model(x.cuda())", "        loss = criterion(out, y.cuda())", "        loss.backward()",
		"        if step % 10 == 0:", "            opt.step()", "            opt.zero_grad()",
		"        torch.cuda.empty_cache()", "        print(f'step {step} loss {loss.item():.3f}')",
	}
	var b strings.Builder
	b.WriteString(loopHead + broken)
	for i := range n {
		b.WriteString(body[i%len(body)] + "\n")
	}
	return b.String()
}

// helperChain is a step loop calling f0, and f0 ... f(depth) each emptying the cache and
// calling the next.
func helperChain(depth int) string {
	var b strings.Builder
	b.WriteString(loopHead + "        model(x).sum().backward()\n        opt.step()\n        f0()\n")
	for i := range depth + 1 {
		fmt.Fprintf(&b, "\n\ndef f%d():\n    torch.cuda.empty_cache()\n", i)
		if i < depth {
			fmt.Fprintf(&b, "    f%d()\n", i+1)
		}
	}
	return b.String()
}

func writeShape(t testing.TB, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPathologicalFiles: a check over each shape finishes, and either reports a finding in
// the file or names it (CL900 with --show-parse-errors, or a warning): never "All checks
// passed!" with exit 0 on a file whose loop empties the cache.
func TestPathologicalFiles(t *testing.T) {
	for _, s := range pathological {
		t.Run(s.name, func(t *testing.T) {
			dir := writeShape(t, s.gen(2000))
			var out, errb bytes.Buffer
			code := Run(context.Background(), analyzers.Engine, []string{"check", "--no-config", "--show-parse-errors", "--format", "concise", dir}, nil, &out, &errb)
			file := filepath.ToSlash(filepath.Join(dir, "train.py"))
			if code != 1 || !strings.Contains(out.String()+errb.String(), file+":") {
				t.Errorf("exit %d, want 1 with %s named\nstdout:\n%s\nstderr:\n%s", code, file, out.String(), errb.String())
			}
		})
	}
}

// BenchmarkPathological times a whole check over each shape at 1x, 2x, 4x and 8x its base
// size and reports ns per byte of wall time and of CPU time (all threads, steadier on a
// shared machine), which stay flat where the cost is linear:
//
//	go test ./internal/cli -run '^$' -bench Pathological -benchtime 3x
func BenchmarkPathological(b *testing.B) {
	for _, s := range pathological {
		for _, x := range []int{1, 2, 4, 8} {
			src := s.gen(1250 * x)
			dir := writeShape(b, src)
			b.Run(fmt.Sprintf("%s/%dx", s.name, x), func(b *testing.B) {
				cpu := cpuTime()
				for b.Loop() {
					if code := Run(context.Background(), analyzers.Engine, []string{"check", "--exit-zero", "--no-config", "--format", "concise", dir}, nil, io.Discard, io.Discard); code != 0 {
						b.Fatalf("exit %d", code)
					}
				}
				perByte := float64(b.N) * float64(len(src))
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perByte, "ns/byte")
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/perByte, "cpu-ns/byte")
			})
		}
	}
}
