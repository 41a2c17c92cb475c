package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

func allRules() map[string]bool {
	m := map[string]bool{}
	for _, r := range rules.All() {
		m[r.Code] = r.Default
	}
	return m
}

// TestRunTypedFindings runs a fixture project and checks that findings carry what the
// printers need (name, severity, URL, code-point positions, fix applicability from the
// registry) and that the calls and stats are filled in.
func TestRunTypedFindings(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "src", "fixes")
	res, err := engine.Run(context.Background(), engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Rules: allRules(), Calls: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 || len(res.Report.Findings) == 0 || len(res.Calls) == 0 {
		t.Fatalf("errors %v, %d findings, %d calls", res.Errors, len(res.Report.Findings), len(res.Calls))
	}
	for _, f := range res.Report.Findings {
		rule, ok := rules.Lookup(f.Code)
		if !ok || f.Name != rule.Name || f.Severity != rule.Severity || f.URL == "" || f.Line < 1 || f.Column < 1 {
			t.Errorf("finding %+v does not carry its rule", f)
		}
		if f.Fix != nil && f.Fix.Applicability != string(rule.Fix) {
			t.Errorf("%s: fix applicability %q, registry says %q", f.Code, f.Fix.Applicability, rule.Fix)
		}
	}
	if res.Stats.Parsed == 0 || res.Stats.Indexed < res.Stats.Parsed || res.Stats.Rounds < 1 {
		t.Errorf("stats %+v", res.Stats)
	}
}

// TestCallRecordsInChunks: the call records resolved a few at a time on several goroutines
// are those resolved 256 at a time, in the same order, none lost or repeated.
func TestCallRecordsInChunks(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "src", "helpers")
	run := func(chunk int) []report.CallRecord {
		defer engine.SetRecordsPerChunk(engine.SetRecordsPerChunk(chunk))
		res, err := engine.Run(context.Background(), engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir,
			Rules: allRules(), Calls: true, Jobs: 4})
		if err != nil || len(res.Errors) > 0 {
			t.Fatalf("%v %v", err, res.Errors)
		}
		return res.Calls
	}
	whole, chunked := run(256), run(3)
	if len(whole) < 7 {
		t.Fatalf("%d call records: too few to cut into several chunks of 3", len(whole))
	}
	if !reflect.DeepEqual(whole, chunked) {
		t.Errorf("256 at a time:\n%v\n3 at a time:\n%v", whole, chunked)
	}
}

// TestRunCancelled shows that a cancelled context stops the run with its error.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := filepath.Join("..", "..", "testdata", "src")
	_, err := engine.Run(ctx, engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Rules: allRules()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRunBadOptions(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "src", "fixes")
	for _, c := range []struct {
		opts engine.Options
		want string
	}{
		{engine.Options{Paths: []string{dir}}, "no analysis"},
		{engine.Options{Analysis: analyzers.Engine, Paths: []string{"no/such/dir"}}, "no/such/dir: no such file or directory"},
		{engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Jobs: -1}, "--jobs must be at least 1"},
		{engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: filepath.Join(dir, "train.py")}, "not a directory"},
	} {
		if _, err := engine.Run(context.Background(), c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want it to say %q", err, c.want)
		}
	}
}
