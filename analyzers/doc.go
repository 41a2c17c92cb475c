// Package analyzers holds cachelint's analyses, one driver.Analyzer per concern, run by
// internal/driver over one Pass of Python files (internal/engine sets the run up):
//
//	CacheCalls         parse the files that can matter (all the parsing there is), and find
//	                   every cache-emptying call, direct or through helpers (the call graph)
//	Classify           how often each call runs (frequency) and why (pattern)
//	StepLoop           report CL001–CL004 from the classification
//
// Knowledge about PyTorch and the frameworks (spellings, library helpers, hook tables) is
// kept as data in spellings.go and hooks.go; the prefilter's needles are derived from it
// (Needles), so an entry added there is also parsed for.
package analyzers
