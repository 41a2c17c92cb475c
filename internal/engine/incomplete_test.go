package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/rules"
)

// overBudget is the real suite, except that the files named in slow ran out of their parse
// budget (as a file tree-sitter cannot parse in time does).
type overBudget struct {
	engine.Analysis
	slow []string
}

func (o overBudget) Facts(res *driver.Result) (*engine.Facts, error) {
	facts, err := o.Analysis.Facts(res)
	if err != nil {
		return nil, err
	}
	for _, p := range o.slow {
		delete(facts.Files, p)
		facts.Failures = append(facts.Failures, engine.Failure{Path: p, OverBudget: true,
			Err: errors.New(p + ": not analysed: parsing took longer than its budget of 1s (1 KB)")})
	}
	return facts, nil
}

// TestIncompleteFiles: a file out of its parse budget is an Incomplete file and a warning
// naming it (not an unreadable one), and a CL900 finding when parse errors are shown; the
// other files are analysed as usual.
func TestIncompleteFiles(t *testing.T) {
	dir := t.TempDir()
	step := "import torch\n\ndef train(loader, model, opt):\n    for b in loader:\n        model(b).backward()\n        opt.step()\n        torch.cuda.empty_cache()\n"
	for _, name := range []string{"slow.py", "fine.py"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(step), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slow := filepath.ToSlash(filepath.Join(dir, "slow.py"))
	enabled := allRules()
	enabled[rules.CL900] = true
	res, err := engine.Run(context.Background(), engine.Options{Analysis: overBudget{analyzers.Engine, []string{slow}},
		Paths: []string{dir}, Root: dir, Rules: enabled})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Incomplete) != 1 || res.Incomplete[0].Path != slow || len(res.Unreadable) != 0 {
		t.Fatalf("incomplete %v, unreadable %v", res.Incomplete, res.Unreadable)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.HasPrefix(w, slow+": not analysed") }) {
		t.Errorf("warnings %q do not name %s", res.Warnings, slow)
	}
	var codes []string
	for _, f := range res.Report.Findings {
		codes = append(codes, filepath.Base(f.File)+":"+f.Code)
	}
	if strings.Join(codes, " ") != "fine.py:CL001 slow.py:CL900" {
		t.Errorf("findings %v, want fine.py:CL001 slow.py:CL900", codes)
	}
}

// TestCutChainWarns: a helper chain longer than the callers followed from one call says so
// in a warning naming the file, and the run is incomplete.
func TestCutChainWarns(t *testing.T) {
	var b strings.Builder
	b.WriteString("import torch\n\ndef train(loader, model, opt):\n    for x in loader:\n        model(x).backward()\n        opt.step()\n        f0()\n")
	const depth = 250
	for i := range depth {
		fmt.Fprintf(&b, "\ndef f%d():\n    f%d()\n", i, i+1)
	}
	fmt.Fprintf(&b, "\ndef f%d():\n    torch.cuda.empty_cache()\n", depth)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "chain.py"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Rules: allRules()})
	if err != nil {
		t.Fatal(err)
	}
	chain := filepath.ToSlash(filepath.Join(dir, "chain.py"))
	if len(res.Incomplete) != 1 || res.Incomplete[0].Path != chain || !strings.Contains(res.Incomplete[0].What, "followed through") {
		t.Fatalf("incomplete %v", res.Incomplete)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.HasPrefix(w, chain+": the callers of") }) {
		t.Errorf("warnings %q do not name %s", res.Warnings, chain)
	}
}

// TestNotebookMalformedCell: a notebook with one malformed cell keeps the findings of its
// valid cells, and a warning names the cell left out; so does one for a notebook that is
// never parsed (it mentions nothing to follow, and is not kept while the run goes on).
func TestNotebookMalformedCell(t *testing.T) {
	cell := func(src string) string {
		return `{"cell_type": "code", "metadata": {}, "outputs": [], "source": ` + src + `}`
	}
	nb := `{"nbformat": 4, "metadata": {}, "cells": [` + strings.Join([]string{
		cell(`["import torch\n"]`), cell(`42`),
		cell(`["for b in loader:\n", "    model(b).backward()\n", "    opt.step()\n", "    torch.cuda.empty_cache()\n"]`),
	}, ", ") + `]}`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "train.ipynb"), []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	other := `{"nbformat": 4, "metadata": {}, "cells": [` + cell(`["print(1)\n"]`) + ", " + cell(`7`) + `]}`
	if err := os.WriteFile(filepath.Join(dir, "other.ipynb"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Rules: allRules()})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.ToSlash(filepath.Join(dir, "train.ipynb"))
	if len(res.Report.Findings) != 1 || res.Report.Findings[0].Code != rules.CL001 || res.Report.Findings[0].Cell != 3 {
		t.Errorf("findings %+v, want CL001 in cell 3", res.Report.Findings)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.HasPrefix(w, path+": cell 2 left out: ") }) {
		t.Errorf("warnings %q do not name cell 2 of %s", res.Warnings, path)
	}
	if res.Stats.Parsed != 1 {
		t.Errorf("%d files parsed, want train.ipynb alone", res.Stats.Parsed)
	}
	otherPath := filepath.ToSlash(filepath.Join(dir, "other.ipynb"))
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.HasPrefix(w, otherPath+": cell 2 left out: ") }) {
		t.Errorf("warnings %q do not name cell 2 of %s", res.Warnings, otherPath)
	}
}

// TestBrokenRegionKeepsTheRest: an unclosed bracket in one function leaves the calls of the
// functions before it found and classified; CL900 points at the broken region.
func TestBrokenRegionKeepsTheRest(t *testing.T) {
	src := "import torch\n\n\ndef train(model, loader, opt):\n    for batch in loader:\n        model(batch).sum().backward()\n" +
		"        opt.step()\n        torch.cuda.empty_cache()\n\n\ndef evaluate(model, loader):\n    for batch in loader:\n" +
		"        tensor = (\n" + strings.Repeat("        model(batch)\n        torch.cuda.empty_cache()\n", 500)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	enabled := allRules()
	enabled[rules.CL900] = true
	res, err := engine.Run(context.Background(), engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Rules: enabled})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Report.Findings {
		got = append(got, fmt.Sprintf("%s@%d", f.Code, f.Line))
	}
	if strings.Join(got, " ") != "CL001@8 CL900@13" {
		t.Errorf("findings %v, want CL001@8 CL900@13", got)
	}
}
