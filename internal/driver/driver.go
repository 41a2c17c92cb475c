// Package driver runs go/analysis analyzers over Python files: one analysis.Pass for all the
// files in analysis scope, analyzers in Requires order, each analyzer's flags set from the
// options. x/tools' own drivers load Go packages only, so this is our own, small one.
package driver

import (
	"fmt"
	"go/token"
	"go/types"
	"os"
	"runtime/debug"
	"sort"

	"golang.org/x/tools/go/analysis"
)

// Options says what to analyse and how.
type Options struct {
	// Files are the files in analysis scope (the whole project, for resolving helpers).
	Files []string
	// ReadFile reads a file's Python text (notebooks arrive converted); default os.ReadFile.
	ReadFile func(path string) ([]byte, error)
	// Analyzers to run; their Requires are added automatically.
	Analyzers []*analysis.Analyzer
	// Flags sets analyzer flags: Flags["cachecalls"]["root"] = "/src/proj".
	Flags map[string]map[string]string
}

// Diagnostic is a reported diagnostic and the analyzer that reported it.
type Diagnostic struct {
	analysis.Diagnostic
	Analyzer *analysis.Analyzer
}

// Result is what a run produced.
type Result struct {
	Fset        *token.FileSet
	Diagnostics []Diagnostic
	Results     map[*analysis.Analyzer]any
	// Errors are internal errors: an analyzer that failed or panicked. The run went on with
	// the analyzers that did not depend on it.
	Errors []error
}

// InternalErrors is implemented by analyzer results that caught a panic on one file and
// went on with the others.
type InternalErrors interface{ InternalErrors() []error }

// Run runs the analyzers.
func Run(opts Options) (*Result, error) {
	if err := analysis.Validate(opts.Analyzers); err != nil {
		return nil, fmt.Errorf("invalid analyzer suite: %w", err)
	}
	order := topo(opts.Analyzers)
	for _, a := range order {
		for name, value := range opts.Flags[a.Name] {
			if err := a.Flags.Set(name, value); err != nil {
				return nil, fmt.Errorf("analyzer %s: flag -%s=%q: %w", a.Name, name, value, err)
			}
		}
	}
	read := opts.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	files := append([]string(nil), opts.Files...)
	sort.Strings(files)
	res := &Result{Fset: token.NewFileSet(), Results: map[*analysis.Analyzer]any{}}
	failed := map[*analysis.Analyzer]bool{}
	pkg := types.NewPackage("python", "python") // Pass.String dereferences Pkg: never nil
	for _, a := range order {
		skip := false
		for _, req := range a.Requires {
			skip = skip || failed[req]
		}
		if skip {
			failed[a] = true
			continue
		}
		pass := &analysis.Pass{
			Analyzer:   a,
			Fset:       res.Fset,
			Pkg:        pkg,
			TypesInfo:  &types.Info{},
			OtherFiles: files,
			ReadFile:   read,
			ResultOf:   map[*analysis.Analyzer]any{},
			Report: func(d analysis.Diagnostic) {
				res.Diagnostics = append(res.Diagnostics, Diagnostic{Diagnostic: d, Analyzer: a})
			},
		}
		for _, req := range a.Requires {
			pass.ResultOf[req] = res.Results[req]
		}
		out, err := runOne(a, pass)
		if err != nil {
			failed[a] = true
			res.Errors = append(res.Errors, err)
			continue
		}
		res.Results[a] = out
		if ie, ok := out.(InternalErrors); ok {
			res.Errors = append(res.Errors, ie.InternalErrors()...)
		}
	}
	return res, nil
}

func runOne(a *analysis.Analyzer, pass *analysis.Pass) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error: analyzer %s panicked: %v\n%s", a.Name, v, debug.Stack())
		}
	}()
	out, err = a.Run(pass)
	if err != nil {
		return nil, fmt.Errorf("analyzer %s: %w", a.Name, err)
	}
	return out, nil
}

// topo orders analyzers so each runs after its Requires, keeping the given order otherwise.
func topo(roots []*analysis.Analyzer) []*analysis.Analyzer {
	var order []*analysis.Analyzer
	seen := map[*analysis.Analyzer]bool{}
	var visit func(a *analysis.Analyzer)
	visit = func(a *analysis.Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			visit(r)
		}
		order = append(order, a)
	}
	for _, a := range roots {
		visit(a)
	}
	return order
}
