package analyzers

import (
	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/rules"
)

// All is the suite, in no particular order; the driver runs them in Requires order.
var All = []*driver.Analyzer{CacheCalls, Classify, StepLoop, OOMHandler, AllocConf}

// Reporting maps each rule code to the analyzer that reports it.
var Reporting = map[string]*driver.Analyzer{
	rules.CL001: StepLoop, rules.CL002: StepLoop, rules.CL003: StepLoop, rules.CL004: StepLoop,
	rules.CL005: OOMHandler, rules.CL006: OOMHandler,
	rules.CL010: AllocConf, rules.CL011: AllocConf, rules.CL012: AllocConf,
}
