package analyzers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/pyparse"
	"github.com/cachelint/cachelint/rules"
)

// StepLoop reports the costly cache-emptying calls: CL001 (every step), CL002 (every N
// steps), CL003 (once per epoch), CL004 (in a loop of unknown kind). A legitimate pattern
// silences all four.
var StepLoop = &driver.Analyzer{
	Name:     "steploop",
	Doc:      "reports cache-emptying calls that run per step, periodically, per epoch or in an unclassified loop (CL001-CL004)",
	Requires: []*driver.Analyzer{Classify},
	Run:      runStepLoop,
}

const (
	helpPerStep = "remove it; to fight fragmentation set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; to recover from OOM, clear inside an `except torch.cuda.OutOfMemoryError` handler"
	helpPeriod  = "remove it, or move it to the end of an epoch; the cache refills with cudaMalloc after every call, and fragmentation is better fixed with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
	helpEpoch   = "usually safe to remove: the allocator reuses its cache across epochs; keep it only before a phase that needs memory another model holds"
	helpUnknown = "if this loop runs per batch or per step, remove the call; if it switches models or retries after OOM, make that visible (del the model first, or clear inside an `except torch.cuda.OutOfMemoryError` handler)"
)

func runStepLoop(pass *driver.Pass) (any, error) {
	cls := pass.ResultOf[Classify].(*Classification)
	// One finding per call site: a helper that dispatches to several devices' empty_cache
	// (cuda, xpu, mps, ...) reaches the site through several records, whose branches may be
	// judged differently (`elif hasattr(torch, "xpu") and ...` is no known device check).
	// The CUDA branch's record speaks for the site, else the most certain one.
	best := map[string]*Record{}
	var order []string
	for _, r := range cls.Records {
		if r.Rule == "" {
			continue
		}
		k := fmt.Sprintf("%s:%d", r.File.Path, r.Call.Node.Start)
		if cur, ok := best[k]; !ok {
			best[k] = r
			order = append(order, k)
		} else if cuda, curCUDA := strings.Contains(r.Target.Spelling, "cuda"), strings.Contains(cur.Target.Spelling, "cuda"); cuda && !curCUDA ||
			cuda == curCUDA && ruleRank(r.Rule) < ruleRank(cur.Rule) {
			best[k] = r
		}
	}
	for _, k := range order {
		pass.Report(stepLoopDiagnostic(best[k]))
	}
	return nil, nil
}

// ruleRank orders the step-loop rules by how certain and costly what they report is.
func ruleRank(code string) int {
	switch code {
	case rules.CL001:
		return 0
	case rules.CL002:
		return 1
	case rules.CL004:
		return 2
	}
	return 3
}

func functionName(fn *pyparse.Function) string {
	if fn == nil {
		return ""
	}
	return fn.QualName
}

func label(r *Record) string {
	switch r.Rule {
	case rules.CL001:
		return "every step: a CPU-GPU sync plus a cudaMalloc refill"
	case rules.CL002:
		if r.Period > 0 {
			return fmt.Sprintf("every %d steps: a sync and a cache refill", r.Period)
		}
		return "periodically: a sync and a cache refill"
	case rules.CL003:
		return "once per epoch"
	}
	return "every iteration of this loop"
}

func help(r *Record) string {
	switch r.Rule {
	case rules.CL001:
		return helpPerStep
	case rules.CL002:
		return helpPeriod
	case rules.CL003:
		return helpEpoch
	}
	return helpUnknown
}

// what names the call as the message's subject: the spelling, or the helper with its chain.
func what(r *Record) string {
	if len(r.Via) == 0 {
		return r.Target.Spelling + "()"
	}
	if c := r.Via[0].Callee; c.Class != nil && strings.HasPrefix(c.Name, "__") {
		return c.Class.Name + "." + c.Name + "()" // `with ctx:` entering OffloadActivations
	}
	return r.Via[0].Callee.Name + "()"
}

// Chain renders `_cleanup() -> free_gpu_memory() -> torch.cuda.empty_cache() at utils/memory.py:14`.
func Chain(r *Record) string {
	var parts []string
	for _, e := range r.Via {
		parts = append(parts, e.Callee.Name+"()")
	}
	parts = append(parts, r.Target.Spelling+"()")
	return fmt.Sprintf("%s at %s:%d", strings.Join(parts, " -> "), r.Target.File.Path, r.Target.Call.Node.Line())
}

func where(r *Record) string {
	if r.Loop != nil {
		kind := "step loop"
		switch r.Loop.Kind {
		case epochLoop:
			kind = "outer loop"
			if r.Loop.Why == "iterates epochs" {
				kind = "epoch loop"
			}
		case otherLoop:
			kind = "loop"
		}
		at := fmt.Sprintf("line %d", r.Loop.Node.Line())
		if r.LoopFile != nil && r.LoopFile != r.File {
			at = fmt.Sprintf("%s:%d", r.LoopFile.Path, r.Loop.Node.Line())
		}
		s := fmt.Sprintf("the %s at %s (`%s`)", kind, at, r.Loop.Header)
		which := "which runs"
		if r.Loop.Kind == stepLoop {
			s += ", " + stepEvidence(r)
			which = "and runs"
		}
		if e := r.Through; e != nil {
			at = fmt.Sprintf("line %d", e.Call.Node.Line())
			if e.File != r.File {
				at = fmt.Sprintf("%s:%d", e.File.Path, e.Call.Node.Line())
			}
			s += fmt.Sprintf(", %s this %s() through `%s` at %s", which, e.Callee.Name, shorten(e.Call.Node.Text(e.File.Src)), at)
		}
		return s
	}
	if r.Call.Function != nil {
		return "`" + r.Call.Function.Name + "`"
	}
	return "this loop"
}

// stepEvidence says what makes the record's loop a step loop, with the line of the call that
// shows it: "which runs `loss.backward()` at line 41", "which runs `self.train_step()` at
// line 41 (it runs `loss.backward()`)". A loop judged by its names says so.
func stepEvidence(r *Record) string {
	l := r.Loop
	const inBody = "runs a step in its body ("
	switch {
	case strings.HasPrefix(l.Why, inBody):
		what := strings.TrimSuffix(strings.TrimPrefix(l.Why, inBody), ")")
		first, rest, _ := strings.Cut(what, " runs ")
		s := "which runs " + first
		lf := r.LoopFile
		if lf == nil {
			lf = r.File
		}
		if n := evidenceCall(lf, l.Node, first); n != nil {
			s += " at line " + strconv.Itoa(n.Line())
			if lf != r.File {
				s = fmt.Sprintf("which runs %s at %s:%d", first, lf.Path, n.Line())
			}
		}
		if rest != "" {
			s += " (it runs " + rest + ")"
		}
		return s
	case l.Why == "iterates batches or steps" || l.Why == "counts steps":
		return "which " + l.Why + ", judged by its names"
	}
	return "which " + l.Why
}

// evidenceCall finds the call a loop's evidence quotes ("`loss.backward()`",
// "`self.model(...)`") in the loop's body, outside nested definitions: the first one in its
// own body, else the first in a nested loop. Nil when the quote names no call found there.
func evidenceCall(f *pyparse.File, loopNode *pyparse.Node, quoted string) *pyparse.Node {
	callee := strings.TrimSuffix(strings.TrimSuffix(strings.Trim(quoted, "`"), "(...)"), "()")
	body := loopNode.ChildByField("body")
	if body == nil || callee == "" {
		return nil
	}
	// Found, the search stops: a loop with a finding on each of its lines asks once per line.
	find := func(ownBody bool) *pyparse.Node {
		return body.FindOutside(func(m *pyparse.Node) bool {
			return m.Kind() == "call" && pyparse.DottedName(m.ChildByField("function"), f.Src) == callee
		}, func(m *pyparse.Node) bool {
			return m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda" ||
				ownBody && (m.Kind() == "for_statement" || m.Kind() == "while_statement")
		})
	}
	if n := find(true); n != nil {
		return n
	}
	return find(false)
}

// named is the clause for a condition that leaves the frequency alone but that the message
// names: " when `args.empty_cache` is set" for a user's opt-in, " when `rank == 0`".
func named(r *Record) string {
	switch g := r.Named; {
	case g == nil:
		return ""
	case g.Kind == optInGate:
		return fmt.Sprintf(" when `%s` is set", g.Text)
	}
	return fmt.Sprintf(" when `%s`", r.Named.Text)
}

func stepLoopDiagnostic(r *Record) driver.Diagnostic {
	subj := what(r)
	var msg string
	// What one call costs holds whatever a step of this loop is; a share of a step would
	// hold only for a step like the one measured.
	cost := "; one call costs " + rules.CallCostRange()
	switch r.Rule {
	case rules.CL001:
		switch {
		case r.Loop != nil:
			msg = fmt.Sprintf("%s runs on every iteration of %s", subj, where(r))
		case r.Hook == "step function":
			msg = fmt.Sprintf("%s runs on every step: %s", subj, r.Reason[3:])
		case r.Hook == "torch hook":
			msg = fmt.Sprintf("%s runs on every forward or step: %s", subj, r.Reason[3:])
		case r.Hook == "step-loop-names":
			msg = fmt.Sprintf("%s runs on every step: `%s` runs once per step (step-loop-names)", subj, r.Call.Function.Name)
		default:
			// A framework's per-batch hook: training, validation, test or prediction.
			msg = fmt.Sprintf("%s runs on every batch: `%s` is called by %s once per batch", subj, r.Call.Function.Name, r.Hook)
		}
		msg += named(r)
	case rules.CL002:
		gate := ""
		if r.Gate != nil {
			gate = fmt.Sprintf(", gated by `%s`", r.Gate.Text)
		}
		if r.Period > 0 {
			msg = fmt.Sprintf("%s runs every %d iterations of %s%s", subj, r.Period, where(r), gate)
		} else {
			msg = fmt.Sprintf("%s runs periodically in %s%s (period unknown)", subj, where(r), gate)
		}
		cost = "; each call costs " + rules.CallCostRange() + ": it syncs the GPU and empties the allocator cache, which the next steps refill with cudaMalloc"
	case rules.CL003:
		if r.Loop != nil && r.Loop.Kind == epochLoop && r.Loop.Why != "iterates epochs" {
			msg = fmt.Sprintf("%s runs once per iteration of %s, which %s", subj, where(r), r.Loop.Why)
		} else if r.Loop != nil {
			msg = fmt.Sprintf("%s runs once per epoch in %s", subj, where(r))
		} else {
			msg = fmt.Sprintf("%s runs once per epoch: %s", subj, r.Reason)
		}
	case rules.CL004:
		switch {
		case r.Gate != nil && r.Gate.Kind == unknownGate:
			msg = fmt.Sprintf("%s runs in %s when `%s`%s, and cachelint cannot tell how often that holds",
				subj, where(r), r.Gate.Text, strings.Replace(named(r), " when ", " and ", 1))
		case r.Gate != nil && r.Gate.Kind == periodicGate:
			every := "on some iterations"
			if r.Gate.Period > 1 {
				every = fmt.Sprintf("on one iteration in %d", r.Gate.Period)
			}
			msg = fmt.Sprintf("%s runs in %s %s (`%s`)%s, a loop cachelint cannot classify as a step or epoch loop",
				subj, where(r), every, r.Gate.Text, named(r))
		default:
			msg = fmt.Sprintf("%s runs on every iteration of %s%s, a loop cachelint cannot classify as a step or epoch loop", subj, where(r), named(r))
		}
	}
	msg += cost
	if len(r.Via) > 0 {
		msg += "; via " + Chain(r)
	}
	n := r.Call.Node
	d := driver.Diagnostic{
		Pos: r.File.Pos(int(n.Start)), End: r.File.Pos(int(n.End)), Code: r.Rule, Message: msg,
		Label: label(r), Help: help(r), Function: functionName(r.Call.Function),
		Snippet: strings.Join(strings.Fields(n.Statement().Text(r.File.Src)), " "),
		Period:  r.Period,
	}
	for _, e := range r.Via {
		d.Related = append(d.Related, driver.Related{
			Pos: e.CalleeFile.Pos(int(e.Callee.Node.Start)), End: e.CalleeFile.Pos(int(e.Callee.Node.Start)),
			Message: fmt.Sprintf("%s() is defined here", e.Callee.Name),
		})
	}
	if len(r.Via) > 0 {
		t := r.Target
		d.Related = append(d.Related, driver.Related{
			Pos: t.File.Pos(int(t.Call.Node.Start)), End: t.File.Pos(int(t.Call.Node.End)),
			Message: t.Spelling + "() empties the cache here",
		})
	}
	if r.Rule == rules.CL001 && len(r.Via) == 0 {
		if fix, ok := removeStatement(r.File, n); ok {
			d.Fix = fix
		}
	}
	return d
}

// removeStatement deletes the statement that is exactly this call (with its line), or
// replaces it with `pass` when it is the only statement of its block. Removing a per-step
// call is unsafe: code may rely on the memory being returned (SPEC §7).
func removeStatement(f *pyparse.File, call *pyparse.Node) (*driver.Fix, bool) {
	stmt := call.Statement()
	if stmt == nil || stmt.Kind() != "expression_statement" || len(stmt.NamedChildren()) != 1 || stmt.NamedChildren()[0] != call {
		return nil, false
	}
	src := f.Src
	lineStart := stmt.Start
	for lineStart > 0 && src[lineStart-1] != '\n' {
		lineStart--
	}
	if strings.TrimSpace(string(src[lineStart:stmt.Start])) != "" {
		return nil, false // something else precedes it on the line
	}
	lineEnd := int(stmt.End)
	for lineEnd < len(src) && src[lineEnd] != '\n' {
		lineEnd++
	}
	rest := strings.TrimSpace(string(src[stmt.End:lineEnd]))
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return nil, false // `a(); b()` on one line
	}
	if lineEnd < len(src) {
		lineEnd++
	}
	others := 0
	if stmt.Parent() != nil {
		for c := range stmt.Parent().Children() {
			if c.Named() && c.Kind() != "comment" && c != stmt {
				others++
				break // one is enough, and a long block is not read per call
			}
		}
	}
	if others == 0 {
		return &driver.Fix{Message: "replace the call with `pass`", Edits: []driver.Edit{{
			Pos: f.Pos(int(stmt.Start)), End: f.Pos(int(stmt.End)), NewText: "pass",
		}}}, true
	}
	return &driver.Fix{Message: "remove the call", Edits: []driver.Edit{{
		Pos: f.Pos(int(lineStart)), End: f.Pos(lineEnd),
	}}}, true
}
