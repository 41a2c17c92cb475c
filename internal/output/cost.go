package output

import (
	"fmt"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/units"
	"github.com/cachelint/cachelint/rules"
)

// CostLine words the `= cost:` line of a finding from a profile's costs. A site a trace
// measured gets what it cost per step in that run, whatever the rule. Otherwise, from the
// probe's estimate: per step, per call (and per step at the finding's period when known)
// or per epoch, as the rule's registry entry says its call runs. "" when costs is nil or
// the rule is not about a call.
func CostLine(f *report.Finding, costs *report.Costs) string {
	rule, ok := rules.Lookup(f.Code)
	if costs == nil || !ok || rule.Cost == rules.CostNone {
		return ""
	}
	if m := costs.Measured; m != nil {
		what := units.Duration(m.PerStep) + " per step"
		if costs.Step > 0 {
			what += fmt.Sprintf(" (%.0f%% of a %s step)", 100*float64(m.PerStep)/float64(costs.Step), units.Duration(costs.Step))
		}
		return fmt.Sprintf("%s measured on %s, %.3g call/step (cachelint trace, median of %d window pairs)", what, costs.Device, m.CallsPerStep, m.Pairs)
	}
	if costs.PerCall <= 0 {
		return ""
	}
	call := "~" + units.Duration(costs.PerCall)
	var what string
	switch rule.Cost {
	case rules.CostPerStep:
		what = call + " per step"
		if costs.Step > 0 {
			what += fmt.Sprintf(" (%.0f%% of a %s step)", 100*float64(costs.PerCall)/float64(costs.Step), units.Duration(costs.Step))
		}
	case rules.CostPerCall:
		what = call + " per call"
		if f.Period > 0 {
			what += fmt.Sprintf(", ~%s per step at one call every %d steps", units.Duration(costs.PerStep(f.Period)), f.Period)
		}
	case rules.CostPerEpoch:
		what = call + " per epoch"
	default:
		return ""
	}
	return fmt.Sprintf("%s on %s (probe profile, %d segments)", what, costs.Device, costs.Segments)
}
