package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/rules"
)

// FuzzEngine runs the whole pipeline (walk, notebook reading, prefilter, parse, every
// analyzer, suppression, CL900, fixes) on arbitrary bytes, written as a Python file, as
// the one code cell of a notebook, and as a notebook's raw JSON. It checks: no error and
// no internal error, every finding and call inside its file, unsafe fixes never leaving a
// file with more syntax errors than before, and a second run over the fixed files still
// clean of internal errors.
//
//	go test ./internal/engine -run '^$' -fuzz FuzzEngine -fuzztime 10m
func FuzzEngine(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/src/*/*.py")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"cells": [{"cell_type": "code", "source": "for b in l:\n    torch.cuda.empty_cache()"}], "nbformat": 4}`))
	f.Add([]byte("import torch\nfor b in loader:\n    opt.step()\n    torch.cuda.empty_cache()  # noqa: CL001\r\n"))
	// Issue 17's shapes, small: an unclosed bracket, a helper chain, a CR-only file.
	f.Add([]byte("import torch\nfor b in loader:\n    opt.step()\n    x = (\n" + strings.Repeat("    torch.cuda.empty_cache()\n", 100)))
	chain := "import torch\nfor b in loader:\n    opt.step()\n    f0()\n"
	for i := range 60 {
		chain += fmt.Sprintf("def f%d():\n    torch.cuda.empty_cache()\n    f%d()\n", i, i+1)
	}
	f.Add([]byte(chain))
	f.Add([]byte("import torch\rfor b in loader:\r    opt.step()\r    torch.cuda.empty_cache()\r"))
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		cell, _ := json.Marshal(map[string]any{
			"cells":    []any{map[string]any{"cell_type": "code", "metadata": map[string]any{}, "source": string(src)}},
			"metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5,
		})
		files := map[string][]byte{"train.py": src, "cell.ipynb": cell, "raw.ipynb": src}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		opts := engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Jobs: 1, Rules: map[string]bool{}, Calls: true}
		for _, r := range rules.All() {
			opts.Rules[r.Code] = true
		}
		res := runClean(t, opts)
		before := syntaxErrors(t, filepath.Join(dir, "train.py"))
		for _, fd := range res.Report.Findings {
			name := filepath.Base(fd.File)
			b, ok := files[name]
			if !ok {
				t.Fatalf("finding in a file not written: %s", fd.File)
			}
			if fd.Line < 1 || fd.Column < 1 || fd.EndLine < fd.Line || (fd.EndLine == fd.Line && fd.EndColumn < fd.Column) {
				t.Fatalf("%s %s: bad span %d:%d-%d:%d", fd.File, fd.Code, fd.Line, fd.Column, fd.EndLine, fd.EndColumn)
			}
			// Lines end as Python ends them: at "\n", "\r\n" or a lone "\r".
			if lines := bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\r")) - bytes.Count(b, []byte("\r\n")) + 1; fd.Line > lines {
				t.Fatalf("%s at line %d of a %d-line %s", fd.Code, fd.Line, lines, name)
			}
			if !utf8.ValidString(fd.Message) {
				t.Fatalf("%s: message not UTF-8: %q", fd.Code, fd.Message)
			}
		}
		for _, c := range res.Calls {
			if _, ok := files[filepath.Base(c.File)]; !ok || c.Line < 1 || c.Column < 1 {
				t.Fatalf("call record %s:%d:%d", c.File, c.Line, c.Column)
			}
		}
		if _, err := res.ApplyFixes(engine.FixOptions{Unsafe: true}); err != nil {
			t.Fatalf("fixes: %v", err)
		}
		if after := syntaxErrors(t, filepath.Join(dir, "train.py")); after > before {
			t.Fatalf("fixes added syntax errors: %d -> %d", before, after)
		}
		runClean(t, opts)
	})
}

func runClean(t *testing.T, opts engine.Options) *engine.Result {
	t.Helper()
	res, err := engine.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, e := range res.Errors {
		t.Fatalf("internal error: %v", e)
	}
	return res
}

func syntaxErrors(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := analyzers.Engine.SyntaxErrors(context.Background(), path, b)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return n
}
