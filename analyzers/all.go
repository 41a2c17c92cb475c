package analyzers

import (
	"golang.org/x/tools/go/analysis"

	"github.com/cachelint/cachelint/pyparse"
)

// All is the suite, in no particular order; the driver runs them in Requires order.
var All = []*analysis.Analyzer{pyparse.Analyzer, CacheCalls, Classify, StepLoop, OOMHandler, AllocConf}

// Reporting maps each rule code to the analyzer that reports it.
var Reporting = map[string]*analysis.Analyzer{
	"CL001": StepLoop, "CL002": StepLoop, "CL003": StepLoop, "CL004": StepLoop,
	"CL005": OOMHandler, "CL006": OOMHandler,
	"CL010": AllocConf, "CL011": AllocConf, "CL012": AllocConf,
}

// Needles are the byte strings a file must contain to be parsed in the first round.
func Needles() []string { return needles() }
