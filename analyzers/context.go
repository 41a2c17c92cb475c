package analyzers

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/cachelint/cachelint/pyparse"
)

// loopKind says what a loop iterates.
type loopKind int

const (
	otherLoop loopKind = iota
	stepLoop           // over batches or steps
	epochLoop          // over epochs: its body holds a step loop, or range(epochs)
)

// loop is an enclosing for/while loop of a call.
type loop struct {
	Node   *pyparse.Node
	Kind   loopKind
	Header string // "for batch in train_loader"
	// Names is the loop's target and the last name of what it iterates ("name model_names"),
	// for judging whether it loops over models.
	Names string
	Why   string // why it was classified so
}

// gateKind says how a condition around the call thins out how often it runs.
type gateKind int

const (
	noGate       gateKind = iota // a flag or check that does not change the frequency
	periodicGate                 // step % N, step in eval_steps, time or memory pressure
	onceGate                     // step == 0, i == len(loader) - 1: once per pass of the loop
	initGate                     // "exp_avg" not in state, get_num_updates() == 0: once per run
)

// gate is a condition guarding the call.
type gate struct {
	Node   *pyparse.Node // the condition expression
	Text   string
	Kind   gateKind
	Period int  // N of `step % N == 0`, 0 when unknown
	Negate bool // the call is in the else branch
	// Inside is the innermost enclosing loop of the condition (nil: none in the function).
	Inside *pyparse.Node
}

// handler is an except clause around the call.
type handler struct {
	Node *pyparse.Node // except_clause
	Type string        // "RuntimeError", "torch.cuda.OutOfMemoryError", "" for bare
	Try  *pyparse.Node
	Kind exceptKind // what it catches, resolved through imports
}

// localContext is what encloses a call inside its own function.
type localContext struct {
	Loops    []*loop // innermost first
	Gates    []*gate // innermost first
	Handlers []*handler
	Finally  bool
	Withs    []string
	Function *pyparse.Function // nil at module level (or in a class body)
}

func (lc *localContext) innermostLoop() *loop {
	if len(lc.Loops) == 0 {
		return nil
	}
	return lc.Loops[0]
}

// contextOf walks up from a call to its function boundary.
func (a *classifier) contextOf(f *pyparse.File, call *pyparse.Node) *localContext {
	lc := &localContext{Function: f.EnclosingFunction(call)}
	child := call
	var pendingGates []*gate
	for m := call.Parent; m != nil; child, m = m, m.Parent {
		switch m.Kind {
		case "function_definition", "class_definition":
			lc.Gates = append(lc.Gates, pendingGates...)
			return lc
		case "if_statement":
			switch {
			case child.Field == "consequence":
				pendingGates = append(pendingGates, a.newGate(f, m.ChildByField("condition"), false))
			case child.Kind == "elif_clause":
				pendingGates = append(pendingGates, a.newGate(f, child.ChildByField("condition"), false))
			case child.Kind == "else_clause":
				pendingGates = append(pendingGates, a.newGate(f, m.ChildByField("condition"), true))
			}
		case "for_statement", "while_statement":
			if child.Field == "body" && !transparentLoop(f, m) {
				l := a.classifyLoop(f, m)
				lc.Loops = append(lc.Loops, l)
				for _, g := range pendingGates {
					if g.Inside == nil {
						g.Inside = m
					}
				}
			}
		case "try_statement":
			if child.Kind == "finally_clause" {
				lc.Finally = true
			}
		case "except_clause", "except_group_clause":
			h := &handler{Node: m, Try: m.Parent, Kind: exceptKindOf(f, m)}
			for _, c := range m.NamedChildren() {
				if c.Kind != "block" {
					h.Type = exceptType(c, f.Src)
					break
				}
			}
			lc.Handlers = append(lc.Handlers, h)
		case "with_statement":
			lc.Withs = append(lc.Withs, m.ChildByField("body").Text(f.Src))
			if wc := m.NamedChildren(); len(wc) > 0 {
				lc.Withs[len(lc.Withs)-1] = wc[0].Text(f.Src)
			}
		}
	}
	lc.Gates = append(lc.Gates, pendingGates...)
	return lc
}

// exceptType renders `except (A, B) as e` as "A, B".
func exceptType(n *pyparse.Node, src []byte) string {
	if n.Kind == "as_pattern" {
		if v := n.NamedChildren(); len(v) > 0 {
			n = v[0]
		}
	}
	if n.Kind == "tuple" || n.Kind == "parenthesized_expression" {
		var parts []string
		for _, c := range n.NamedChildren() {
			parts = append(parts, c.Text(src))
		}
		return strings.Join(parts, ", ")
	}
	return n.Text(src)
}

var (
	reModulo   = regexp.MustCompile(`%\s*\(?\s*([0-9][0-9_]*)\s*\)?`)
	reTimeGate = regexp.MustCompile(`\btime\.(time|perf_counter|monotonic)\(|\btime\(\)|elapsed|interval|last_(clear|clean|empty|flush)`)
	reMemGate  = regexp.MustCompile(`memory_allocated|memory_reserved|mem_get_info|max_memory_|memory_stats|memory_usage|get_memory|nvidia_smi|gpu_mem|free_mem|vram`)
	reInSteps  = regexp.MustCompile(`\bin\s+[\w.\[\]]*(steps|iters|iterations|every|schedule)\b`)
)

var reModuloName = regexp.MustCompile(`%\s*\(?\s*([A-Za-z_][\w.]*)\s*\)?`)

// constantValue finds the integer a name stands for where it is plain to see: a parameter
// default of the enclosing function (`def maybe_free(step, every=50)`) or a module-level
// constant (`CLEAR_EVERY = 100`). 0 when unknown.
func constantValue(f *pyparse.File, at *pyparse.Node, name string) int {
	if fn := f.EnclosingFunction(at); fn != nil {
		if ps := fn.Node.ChildByField("parameters"); ps != nil {
			for _, p := range ps.NamedChildren() {
				if (p.Kind == "default_parameter" || p.Kind == "typed_default_parameter") && p.ChildByField("name").Text(f.Src) == name {
					return intLiteral(p.ChildByField("value"), f.Src)
				}
			}
		}
	}
	for _, stmt := range f.Root.NamedChildren() {
		if stmt.Kind != "expression_statement" || len(stmt.NamedChildren()) != 1 {
			continue
		}
		as := stmt.NamedChildren()[0]
		if as.Kind == "assignment" && as.ChildByField("left").Text(f.Src) == name {
			return intLiteral(as.ChildByField("right"), f.Src)
		}
	}
	return 0
}

func intLiteral(n *pyparse.Node, src []byte) int {
	if n == nil || n.Kind != "integer" {
		return 0
	}
	v, err := strconv.Atoi(strings.ReplaceAll(n.Text(src), "_", ""))
	if err != nil {
		return 0
	}
	return v
}

func (a *classifier) newGate(f *pyparse.File, cond *pyparse.Node, negate bool) *gate {
	g := &gate{Node: cond, Negate: negate}
	if cond == nil {
		return g
	}
	t := cond.Text(f.Src)
	g.Text = shorten(t)
	hasMod := cond.Find(func(n *pyparse.Node) bool { return n.Kind == "binary_operator" && n.HasChild("%") }) != nil
	switch {
	case hasMod:
		// `step % N == 0` (or `not step % N`) runs one step in N; `step % N != 0` and a bare
		// `if step % N:` run on the others, so only their else branch is thinned out.
		rare := (strings.Contains(t, "==") || strings.HasPrefix(strings.TrimSpace(t), "not ") ||
			strings.ContainsAny(t, "<>")) && !strings.Contains(t, "!=")
		if rare != negate {
			g.Kind = periodicGate
			if m := reModulo.FindStringSubmatch(t); m != nil {
				g.Period, _ = strconv.Atoi(strings.ReplaceAll(m[1], "_", ""))
			} else if m := reModuloName.FindStringSubmatch(t); m != nil {
				g.Period = constantValue(f, cond, m[1])
			}
		}
	case negate:
		// The else branch of a non-modulo condition: no thinning we can tell.
	default:
		g.Kind = conjunctionKind(f, cond)
	}
	return g
}

// conjunctionKind classifies a condition that is not a modulo test: `a and b` thins out as
// much as its most selective part.
func conjunctionKind(f *pyparse.File, cond *pyparse.Node) gateKind {
	if cond.Kind == "boolean_operator" && cond.HasChild("and") {
		best := noGate
		for _, part := range cond.NamedChildren() {
			switch conjunctionKind(f, part) {
			case onceGate, initGate:
				return conjunctionKind(f, part)
			case periodicGate:
				best = periodicGate
			}
		}
		return best
	}
	if cond.Kind == "parenthesized_expression" {
		if in := cond.NamedChildren(); len(in) == 1 {
			return conjunctionKind(f, in[0])
		}
	}
	t := cond.Text(f.Src)
	if cond.Kind == "comparison_operator" && cond.HasChild("==") && !cond.HasChild("!=") && !strings.Contains(t, "%") &&
		cond.Find(func(n *pyparse.Node) bool { return n.Kind == "string" }) == nil {
		// `iteration - start == warmup_steps`, `step == 0`: true once (per pass of the loop
		// when the loop's own variable is compared).
		if loopVarCompared(f, cond) {
			return onceGate
		}
		return initGate
	}
	switch {
	case reInitGate.MatchString(t):
		return initGate
	case onceCondition(t):
		// `i == 0` on the loop's own variable runs once per pass of the loop; a counter of
		// the whole run (`self.get_num_updates() == 0`, `global_step == 1`) runs once.
		if loopVarCompared(f, cond) {
			return onceGate
		}
		return initGate
	case reInSteps.MatchString(t) || reMembership.MatchString(t):
		return periodicGate
	case reTimeGate.MatchString(t):
		return periodicGate
	case reMemGate.MatchString(t):
		return periodicGate
	}
	return noGate
}

var (
	reOnce = regexp.MustCompile(`^\s*\(?\s*[\w.\[\]()]+\s*==\s*(\d+|len\(.*\)\s*-\s*1|[\w.]*(num|total|max|last|len)[\w.()]*(\s*-\s*1)?)\s*\)?\s*$|is_last|last_batch|is_first|first_step|first_batch`)
	// reInitGate: one-time initialisation (`"exp_avg" not in state`, `len(state) == 0`,
	// `not self.initialized`).
	reInitGate = regexp.MustCompile(`\bnot\s+in\s+[\w.]*state\b|len\([\w.\[\]]*state[\w.\[\]]*\)\s*==\s*0|^\s*not\s+[\w.]*(initiali[sz]ed?|_init|warmed_up|built)\b`)
	// reMembership: the step variable tested against a set of steps (`i in thresholds`).
	reMembership = regexp.MustCompile(`^\s*[A-Za-z_]\w*\s+in\s+[\w.]+(\.keys\(\))?\s*$`)
)

func onceCondition(t string) bool { return reOnce.MatchString(t) }

// loopVarCompared reports whether an equality test compares a target variable of an
// enclosing for loop (`for i, batch in enumerate(loader): if i == 0`).
func loopVarCompared(f *pyparse.File, cond *pyparse.Node) bool {
	left := cond
	if cond.Kind == "comparison_operator" {
		if v := cond.NamedChildren(); len(v) > 0 {
			left = v[0]
		}
	}
	name := left.Text(f.Src)
	for m := cond.Parent; m != nil && m.Kind != "function_definition"; m = m.Parent {
		if m.Kind != "for_statement" {
			continue
		}
		found := false
		m.ChildByField("left").Walk(func(n *pyparse.Node) bool {
			if n.Kind == "identifier" && n.Text(f.Src) == name {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

var (
	reStepIter  = regexp.MustCompile(`(?i)(loader|batch|data_?iter|dataiter|iterator|tqdm|pbar|progress|prog_bar|\bsteps?\b|max_steps|num_steps|total_steps|train_steps|iters?\b|iterations|num_iter|n_iter|minibatch|mini_batch|samples|prompts|dataset|\bdata\b|train_data|val_data|eval_data|test_data)`)
	reEpochIter = regexp.MustCompile(`(?i)epoch`)
	reStepWhile = regexp.MustCompile(`(?i)(step|iter|\bbatch(es)?\b|batch_idx|num_batches)`)
)

// classifyLoop decides whether a loop is a step loop, an epoch loop, or something else.
func (a *classifier) classifyLoop(f *pyparse.File, n *pyparse.Node) *loop {
	if l, ok := a.loops[n]; ok {
		return l
	}
	l := &loop{Node: n}
	a.loops[n] = l
	src := f.Src
	var iter, target string
	if n.Kind == "for_statement" {
		iter = n.ChildByField("right").Text(src)
		target = n.ChildByField("left").Text(src)
		l.Header = shorten("for " + target + " in " + iter)
		l.Names = target + " " + iterHead(iter)
		// `tqdm(pipelines)` iterates what it wraps: judge that.
		if m := reWrapped.FindStringSubmatch(iter); m != nil && !reStepIter.MatchString(m[1]) && reModelLoopIter.MatchString(m[1]) {
			iter = m[1]
		}
	} else {
		iter = n.ChildByField("condition").Text(src)
		l.Header = shorten("while " + iter)
	}
	body := n.ChildByField("body")
	// Direct evidence first: what the loop iterates, and a step written in its own body. A
	// step loop that also calls an evaluation loop or holds a micro-batch loop stays a step
	// loop; only a loop with no such evidence becomes an epoch loop by holding one.
	switch {
	case reEpochIter.MatchString(iter) || reEpochIter.MatchString(target):
		l.Kind, l.Why = epochLoop, "iterates epochs"
	case a.stepNames[iterHead(iter)]:
		l.Kind, l.Why = stepLoop, "is listed in step-loop-names"
	case n.Kind == "for_statement" && reStepIter.MatchString(iter):
		l.Kind, l.Why = stepLoop, "iterates batches or steps"
	case n.Kind == "while_statement" && reStepWhile.MatchString(iter):
		l.Kind, l.Why = stepLoop, "counts steps"
	default:
		if why := directStep(f, body); why != "" {
			l.Kind, l.Why = stepLoop, "runs a step in its body ("+why+")"
		} else if a.bodyHasStepLoop(f, body) {
			l.Kind, l.Why = epochLoop, "holds a step loop"
		} else if why := a.runsStep(f, body, 0); why != "" {
			l.Kind, l.Why = stepLoop, "runs a step in its body ("+why+")"
		}
	}
	return l
}

// reSetupIter: loops over parameters, parameter groups, modules, trackers or config items
// run at set-up or inside one step; they say nothing about frequency, so the loop around
// them (or the hook they are in) decides.
var reSetupIter = regexp.MustCompile(`(?i)(param_groups|parameters\(\)|named_parameters|named_modules|named_children|named_buffers|\.modules\(\)|\.children\(\)|\bparams\b|\["params"\]|\['params'\]|trackers|\.items\(\)|\.keys\(\)|\.values\(\)|devices|device_ids|gpus|layers)`)

func transparentLoop(f *pyparse.File, n *pyparse.Node) bool {
	if n.Kind != "for_statement" {
		return false
	}
	iter := n.ChildByField("right").Text(f.Src)
	return reSetupIter.MatchString(iter) && !reStepIter.MatchString(iter)
}

// shorten makes source text fit a one-line message: whitespace collapsed, long text cut.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(strings.ReplaceAll(s, "( ", "("), " )", ")")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}

var (
	reWrapped       = regexp.MustCompile(`^\s*(?:tqdm|enumerate|track|progress_bar)\((?:tqdm\()?\s*([^,()]+)`)
	reModelLoopIter = regexp.MustCompile(`(?i)model|pipeline|pipes\b|stage|checkpoint|ckpt|adapter|config|variant`)
)

func iterHead(iter string) string {
	iter = strings.TrimSpace(iter)
	if i := strings.IndexAny(iter, "(["); i >= 0 {
		iter = iter[:i]
	}
	return iter[strings.LastIndex(iter, ".")+1:]
}

// directStep finds `.backward()` or `optimizer.step()` written in the loop's own body (not in
// a nested loop or def): the surest sign that one iteration is one training step.
func directStep(f *pyparse.File, body *pyparse.Node) string {
	why := ""
	body.Walk(func(m *pyparse.Node) bool {
		if why != "" || m.Kind == "function_definition" || m.Kind == "class_definition" || m.Kind == "lambda" ||
			(m != body && (m.Kind == "for_statement" || m.Kind == "while_statement")) {
			return false
		}
		if m.Kind == "call" {
			callee := pyparse.DottedName(m.ChildByField("function"), f.Src)
			if strings.HasSuffix(callee, ".backward") || reOptimStep.MatchString(callee) {
				why = "`" + callee + "()`"
			}
		}
		return why == ""
	})
	return why
}

// bodyHasStepLoop reports whether a block contains (not in nested defs) a loop that is a
// step loop, or calls a project function that holds one (`train_one_epoch()`).
func (a *classifier) bodyHasStepLoop(f *pyparse.File, body *pyparse.Node) bool {
	found := false
	body.Walk(func(m *pyparse.Node) bool {
		if found || m.Kind == "function_definition" || m.Kind == "class_definition" || m.Kind == "lambda" {
			return false
		}
		if m != body && (m.Kind == "for_statement" || m.Kind == "while_statement") {
			if a.classifyLoop(f, m).Kind != otherLoop {
				found = true
				return false
			}
		}
		if m.Kind == "call" {
			if fn := a.resolveCall(f, m); fn != nil && a.funcHasStepLoop(fn) {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

func (a *classifier) funcHasStepLoop(r *funcRef) bool {
	if v, ok := a.hasStepLoop[r.fn]; ok {
		return v
	}
	a.hasStepLoop[r.fn] = false // cycles: assume not while computing
	v := a.bodyHasStepLoop(r.file, r.fn.Body)
	a.hasStepLoop[r.fn] = v
	return v
}

var (
	reOptimStep = regexp.MustCompile(`(?i)(optim|opt|scaler|engine|accelerator|lr_scheduler|scheduler)[\w]*\.step$`)
	// reUtilityVerb marks functions named like a model (`unwrap_model`, `get_peft_model`)
	// that prepare or load one rather than run it.
	reUtilityVerb = regexp.MustCompile(`^(get|load|unwrap|dispatch|prepare|restore|build|create|init|save|to|convert|wrap|setup|make|copy|merge|freeze|print|log|register|patch|replace|compile|quantize|offload|move|resize|set|check|is|has)_`)
	reModelCall   = regexp.MustCompile(`^(self\.)?(model|net|network|module|unet|transformer|encoder|decoder|generator|discriminator|policy|actor|critic|backbone|ddp_model|model_engine|engine|pipe|pipeline|[\w]*_model|[\w]*_net)$`)
)

// runsStep reports whether a block (not in nested defs) runs a training or inference step:
// `.backward()`, `optimizer.step()`, `scaler.step()`, a model forward, or a call of a project
// function that does. It returns a short description of the evidence.
func (a *classifier) runsStep(f *pyparse.File, body *pyparse.Node, depth int) string {
	if body == nil || depth > 4 {
		return ""
	}
	why := ""
	body.Walk(func(m *pyparse.Node) bool {
		if why != "" || m.Kind == "function_definition" || m.Kind == "class_definition" || m.Kind == "lambda" {
			return false
		}
		if m.Kind != "call" {
			return true
		}
		callee := pyparse.DottedName(m.ChildByField("function"), f.Src)
		switch {
		case strings.HasSuffix(callee, ".backward") || callee == "backward":
			why = "`" + callee + "()`"
		case reOptimStep.MatchString(callee):
			why = "`" + callee + "()`"
		case reModelCall.MatchString(callee) && !reUtilityVerb.MatchString(callee[strings.LastIndex(callee, ".")+1:]) && a.resolveCall(f, m) == nil:
			why = "`" + callee + "(...)`"
		default:
			if r := a.resolveCall(f, m); r != nil {
				if w := a.funcRunsStep(r, depth+1); w != "" {
					why = "`" + callee + "()` runs " + w
				}
			}
		}
		return why == ""
	})
	return why
}

func (a *classifier) funcRunsStep(r *funcRef, depth int) string {
	if v, ok := a.runsStepCache[r.fn]; ok {
		return v
	}
	a.runsStepCache[r.fn] = ""
	v := a.runsStep(r.file, r.fn.Body, depth)
	// A function that loops over steps itself is not "one step".
	if v != "" && a.funcHasStepLoop(r) {
		v = ""
	}
	a.runsStepCache[r.fn] = v
	return v
}

// resolveCall resolves a call node to a project function (cached per node).
func (a *classifier) resolveCall(f *pyparse.File, call *pyparse.Node) *funcRef {
	if r, ok := a.resolved[call]; ok {
		return r
	}
	var r *funcRef
	if c := f.CallOf(call); c != nil {
		r = a.g.Project.resolve(f, c)
	}
	a.resolved[call] = r
	return r
}
