package analyzers

import (
	"context"
	"errors"
	"fmt"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/pyparse"
)

// Engine is the suite as the engine runs it: cmd/cachelint and the analyzer tests pass it
// in engine.Options.Analysis.
var Engine engine.Analysis = suite{}

type suite struct{}

func (suite) Analyzers() []*driver.Analyzer { return All }

// Facts reads CacheCalls' parsed project and Classify's records.
func (suite) Facts(res *driver.Result) (*engine.Facts, error) {
	g, _ := res.Results[CacheCalls].(*CallGraph)
	if g == nil {
		return nil, errors.New("internal error: the call graph was not built")
	}
	parsed := g.Parsed()
	out := &engine.Facts{Files: make(map[string]*engine.File, len(parsed.Files)), Seen: parsed.Seen,
		Parsed: parsed.Parsed, Reused: int(parsed.Reused.Load()), Rounds: g.Rounds, Needles: g.Needles,
		ImportsAsked: parsed.ImportsAsked(), Unread: parsed.Unread(), Signatures: parsed, Kept: g.keptFiles, KeptAgain: g.keptAgain, KeptMiss: g.keptMiss, Graph: g.kept,
		Lookups: g.Project.looked.lookups()}
	for path, asked := range g.keptAsked {
		// Asked by the calls of files whose graph was kept, of files still unparsed.
		if out.ImportsAsked == nil {
			out.ImportsAsked = map[string]map[string]bool{}
		}
		if out.ImportsAsked[path] == nil {
			out.ImportsAsked[path] = map[string]bool{}
		}
		for name, yes := range asked {
			if _, ok := out.ImportsAsked[path][name]; !ok {
				out.ImportsAsked[path][name] = yes
			}
		}
	}
	for _, f := range parsed.Files {
		ef := &engine.File{Path: f.Path, Src: f.Src, Position: f.Position, Hash: f.TextHash}
		for _, e := range f.Errors {
			ef.Errors = append(ef.Errors, engine.SyntaxError{Line: e.Line, Col: e.Col, Msg: e.Msg})
		}
		out.Files[f.Path] = ef
	}
	for _, fl := range parsed.Failures {
		out.Failures = append(out.Failures, engine.Failure{Path: fl.Path, Err: fl.Err,
			Internal: errors.Is(fl.Err, pyparse.ErrInternal), OverBudget: errors.Is(fl.Err, pyparse.ErrTimeout)})
	}
	cls, _ := res.Results[Classify].(*Classification)
	if cls == nil {
		return out, nil
	}
	out.CacheCalls, out.Classified = len(cls.Graph.Targets), cls.Followed
	for _, t := range cls.Cut {
		out.Cut = append(out.Cut, engine.Cut{Path: t.File.Path, What: fmt.Sprintf(
			"the callers of the %s() at line %d were followed through %d call sites or %d helpers deep only; a loop further up is not known",
			t.Spelling, t.Call.Node.Line(), maxRecordsPerTarget, maxChainDepth)})
	}
	out.Calls = make([]engine.Call, 0, len(cls.Records))
	for _, r := range cls.Records {
		c := engine.Call{Offset: int(r.Call.Node.Start), Record: report.CallRecord{
			File: r.File.Path, Callee: r.Target.Spelling, Role: r.Role, Frequency: string(r.Frequency),
			Pattern: string(r.Pattern), Reason: r.Reason,
		}}
		if r.Period > 0 {
			p := r.Period
			c.Record.Period = &p
		}
		if r.Rule != "" {
			rule := r.Rule
			c.Record.Rule = &rule
		}
		if r.Loop != nil {
			c.LoopLine = r.Loop.Node.Line()
			if r.LoopFile != nil && r.LoopFile != r.File {
				c.LoopFile = r.LoopFile.Path
			}
		}
		if len(r.Via) > 0 {
			c.Via = make([]engine.Step, len(r.Via))
			for i, e := range r.Via {
				c.Via[i] = engine.Step{File: e.CalleeFile.Path, QualName: e.Callee.QualName}
			}
		}
		out.Calls = append(out.Calls, c)
	}
	return out, nil
}

// Matcher reports whether a file's text mentions one of the needles, as the prefilter reads it.
func (suite) Matcher(needles []string) func(src []byte, asked map[string]bool) bool {
	return pyparse.Matcher(needles)
}

// SyntaxErrors parses src on its own.
func (suite) SyntaxErrors(ctx context.Context, path string, src []byte) (int, error) {
	f, err := pyparse.ParseAlone(ctx, path, src)
	if err != nil {
		return 0, err
	}
	return len(f.Errors), nil
}

func (suite) TreeKey(src []byte) string { return pyparse.TreeKey(src) }

func (suite) Tree(ctx context.Context, path string, src []byte) ([]byte, error) {
	f, err := pyparse.ParseAlone(ctx, path, src)
	if err != nil {
		return nil, err
	}
	return pyparse.EncodeTree(f), nil
}
