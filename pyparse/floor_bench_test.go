package pyparse

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkParseFloor parses the Python files under $CACHELINT_BENCH_FLOOR whose text names
// empty_cache, the files `rg -l empty_cache` lists there, on GOMAXPROCS goroutines, the
// largest first: a cold run cannot leave them unparsed, since its findings are in them, so
// this is the least a cold run of an analysis that parses what it classifies spends, whatever
// it does with the other files (bench/floor.sh sets it beside ripgrep's whole run).
// "tree-sitter" is the parser alone (as a run calls it, the tree dropped unread), "pyparse"
// a run's parse of each file (tree-sitter, the tree flattened, the model built). The files
// are read before the timer starts; hidden folders (.git) are skipped.
//
//	CACHELINT_BENCH_FLOOR=<tree> go test ./pyparse -run '^$' -bench ParseFloor -count 5
func BenchmarkParseFloor(b *testing.B) {
	root := os.Getenv("CACHELINT_BENCH_FLOOR")
	if root == "" {
		b.Skip("CACHELINT_BENCH_FLOOR names no tree")
	}
	srcs := floorFiles(b, root)
	size := 0
	for _, src := range srcs {
		size += len(src)
	}
	b.Logf("%d files naming empty_cache, %.1f MB", len(srcs), float64(size)/1e6)
	loadLanguage()
	for _, c := range []struct {
		name  string
		parse func(p *Parser, src []byte) error
	}{
		{"tree-sitter", func(p *Parser, src []byte) error {
			if !parseOnly(p.arena, parseText(src), time.Hour, p.cancel) {
				return errors.New("parse cut short")
			}
			return nil
		}},
		{"pyparse", func(p *Parser, src []byte) error {
			_, err := p.Parse(context.Background(), "x.py", src)
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if err := eachParallel(srcs, c.parse); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// floorFiles reads the .py files under root that name empty_cache, largest first.
func floorFiles(b *testing.B, root string) [][]byte {
	b.Helper()
	var srcs [][]byte
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !d.Type().IsRegular() || filepath.Ext(path) != ".py" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(src, []byte("empty_cache")) {
			srcs = append(srcs, src)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(srcs) == 0 {
		b.Fatalf("no .py file under %s names empty_cache", root)
	}
	slices.SortStableFunc(srcs, func(x, y []byte) int { return len(y) - len(x) })
	return srcs
}

// eachParallel parses srcs with parse on GOMAXPROCS goroutines, each with a parser of its
// own, in order; the first error.
func eachParallel(srcs [][]byte, parse func(p *Parser, src []byte) error) error {
	next := make(chan []byte)
	errs := make(chan error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			p, err := NewParser()
			if err == nil {
				defer p.Close()
			}
			for src := range next {
				if err == nil {
					err = parse(p, src)
				}
			}
			errs <- err
		})
	}
	for _, src := range srcs {
		next <- src
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestParseOnly holds BenchmarkParseFloor's "tree-sitter" case to a parse: one that is
// cancelled or out of time is cut short, which only a parse that runs can be.
func TestParseOnly(t *testing.T) {
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src := []byte(strings.Repeat("def f(x):\n    for i in range(x):\n        g(i, [1, 2], {'a': 3})\n", 20000))
	if !parseOnly(p.arena, src, time.Hour, p.cancel) {
		t.Fatal("parse cut short with an hour and no cancel")
	}
	if parseOnly(p.arena, src, 0, p.cancel) {
		t.Error("parse with no time left not cut short")
	}
	p.cancel.store(1)
	defer p.cancel.store(0)
	if parseOnly(p.arena, src, time.Hour, p.cancel) {
		t.Error("cancelled parse not cut short")
	}
}
