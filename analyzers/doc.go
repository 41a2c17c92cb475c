// Package analyzers holds cachelint's analyses, one golang.org/x/tools/go/analysis Analyzer
// per concern, run by internal/driver over one Pass of Python files:
//
//	pyparse.Analyzer   parse the files that can matter, build the Python model
//	CacheCalls         find every cache-emptying call, direct or through helpers (the call graph)
//	Classify           how often each call runs (frequency) and why (pattern)
//	StepLoop           report CL001–CL004 from the classification
//
// Knowledge about PyTorch and the frameworks (spellings, library helpers, hook tables) is
// kept as data in spellings.go and hooks.go.
package analyzers
