package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/trace"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
)

// BenchmarkCheckCorpus runs a whole check over a corpus: $CACHELINT_BENCH_CORPUS (e.g. one
// made by bench/gen_corpus.py or a real checkout), else a small generated one.
//
//	go test ./internal/cli -run '^$' -bench CheckCorpus -benchtime 3x
func BenchmarkCheckCorpus(b *testing.B) {
	dir := os.Getenv("CACHELINT_BENCH_CORPUS")
	if dir == "" {
		dir = b.TempDir()
		writeSmallCorpus(b, dir, 2000)
	}
	for b.Loop() {
		if code := Run(context.Background(), analyzers.Engine, []string{"check", "--exit-zero", "--no-config", "--format", "concise", dir}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkCheckCorpusWarm is BenchmarkCheckCorpus answered from the cache: the run after
// one that changed nothing.
//
//	go test ./internal/cli -run '^$' -bench CheckCorpusWarm -benchtime 5x
func BenchmarkCheckCorpusWarm(b *testing.B) {
	dir := os.Getenv("CACHELINT_BENCH_CORPUS")
	if dir == "" {
		dir = b.TempDir()
		writeSmallCorpus(b, dir, 2000)
	}
	b.Setenv("CACHELINT_NO_CACHE", "")
	args := []string{"check", "--exit-zero", "--no-config", "--format", "concise", "--cache-dir", b.TempDir(), dir}
	if code := Run(context.Background(), analyzers.Engine, args, nil, io.Discard, io.Discard); code != 0 {
		b.Fatalf("exit %d", code)
	}
	for b.Loop() {
		if code := Run(context.Background(), analyzers.Engine, args, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

func writeSmallCorpus(b *testing.B, dir string, n int) {
	b.Helper()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname='x'\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "mem.py"), []byte("import torch\n\ndef free_gpu():\n    torch.cuda.empty_cache()\n"), 0o644))
	body := []byte("import torch\nimport torch.nn as nn\n\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n\n    def run(self, x):\n        return [self.fc(v) for v in x]\n")
	train := []byte("from mem import free_gpu\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        free_gpu()\n")
	for i := range n {
		sub := filepath.Join(dir, "pkg", string(rune('a'+i%26)))
		must(os.MkdirAll(sub, 0o755))
		data := body
		if i%50 == 0 {
			data = train
		}
		must(os.WriteFile(filepath.Join(sub, "f"+itoa(i)+".py"), data, 0o644))
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// BenchmarkCheckCorpusEdited is the run after an edit of one parsed file (as pre-commit runs
// after a commit that changed it): $CACHELINT_BENCH_CORPUS must be a copy the benchmark may
// write, $CACHELINT_BENCH_EDIT the file (relative to it) it appends a comment line to before
// each run (with $CACHELINT_BENCH_EDIT_INTERFACE set, a module-level assignment: an edit that
// changes what other files read of it, so that the prefilter's rounds run in full). With
// $CACHELINT_BENCH_ONE_FILE set the timed runs check the edited file alone, as pre-commit
// does (the project analysed, one file reported); the first run checks the whole tree.
//
//	go test ./internal/cli -run '^$' -bench CheckCorpusEdited -benchtime 5x
func BenchmarkCheckCorpusEdited(b *testing.B) {
	dir, rel := os.Getenv("CACHELINT_BENCH_CORPUS"), os.Getenv("CACHELINT_BENCH_EDIT")
	if dir == "" || rel == "" {
		dir, rel = b.TempDir(), filepath.Join("pkg", "a", "f0.py")
		writeSmallCorpus(b, dir, 2000)
	}
	file := filepath.Join(dir, rel)
	interfaceEdit := os.Getenv("CACHELINT_BENCH_EDIT_INTERFACE") != ""
	orig, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.WriteFile(file, orig, 0o644) })
	b.Setenv("CACHELINT_NO_CACHE", "")
	args := []string{"check", "--exit-zero", "--no-config", "--format", "concise", "--cache-dir", b.TempDir(), dir}
	if code := Run(context.Background(), analyzers.Engine, args, nil, io.Discard, io.Discard); code != 0 {
		b.Fatalf("exit %d", code)
	}
	if os.Getenv("CACHELINT_BENCH_ONE_FILE") != "" {
		args[len(args)-1] = file
	}
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		edit := "# edit " + itoa(n) + "\n"
		if interfaceEdit {
			edit = "EDITED = " + itoa(n) + "\n"
		}
		if err := os.WriteFile(file, append(orig, []byte(edit)...), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		// A region per timed run: bench/serial -within "edited run" leaves out the first.
		trace.WithRegion(context.Background(), "edited run", func() {
			if code := Run(context.Background(), analyzers.Engine, args, nil, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit %d", code)
			}
		})
	}
}
