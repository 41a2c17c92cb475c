package analyzers

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cachelint/cachelint/internal/lazyregexp"
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
	optInGate                    // a user's switch for clearing: `if args.empty_cache:`
	unknownGate                  // any other condition: how often it holds cannot be told
)

// gate is a condition guarding the call.
type gate struct {
	Node   *pyparse.Node // the condition expression
	Text   string
	Kind   gateKind
	Period int  // N of `step % N == 0`, 0 when unknown
	Negate bool // the call is in the else branch, or after `if cond: return`
	// Why says why a condition changes nothing ("a rank check"); "" otherwise.
	Why string
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

// nodeOrNil is the loop's node, nil for no loop.
func (l *loop) nodeOrNil() *pyparse.Node {
	if l == nil {
		return nil
	}
	return l.Node
}

// localContext is what encloses a call inside its own function.
type localContext struct {
	Loops []*loop // innermost first
	// Transparent is the innermost loop over modules, parameters or items around the call
	// (transparentLoop): it says nothing of how often the call runs, so it is no governing
	// loop, but the reason names it.
	Transparent *pyparse.Node
	Gates       []*gate // innermost first
	Handlers    []*handler
	Finally     bool
	Withs       []string
	Function    *pyparse.Function // nil at module level (or in a class body)
}

func (lc *localContext) innermostLoop() *loop {
	if len(lc.Loops) == 0 {
		return nil
	}
	return lc.Loops[0]
}

// inStepLoop reports a call inside a step loop of its own function.
func (lc *localContext) inStepLoop() bool {
	for _, l := range lc.Loops {
		if l.Kind == stepLoop {
			return true
		}
	}
	return false
}

// contextOf walks up from a call to its function boundary.
func (a *classifier) contextOf(f *pyparse.File, call *pyparse.Node) *localContext {
	lc := &localContext{Function: f.EnclosingFunction(call)}
	child := call
	var pendingGates []*gate
	for m := call.Parent(); m != nil; child, m = m, m.Parent() {
		switch m.Kind() {
		case "block", "module":
			// `if cond: return` (or continue, break, raise) before the call: it runs only
			// when cond is false.
			stmts := a.exitStatements(m)
			at := child.Index()
			i := sort.Search(len(stmts), func(i int) bool { return stmts[i].Index() >= at })
			for i--; i >= 0; i-- {
				s := stmts[i]
				for _, c := range a.exits[s] {
					g := a.newGate(f, c, true)
					if x := refilled(f, s, c); x != "" && g.Kind != periodicGate && g.Kind != onceGate && g.Kind != initGate {
						// `if self.buffer: return self.buffer.pop(0)` ... `self.buffer = ...`:
						// the call runs when the buffer runs out, once per refill.
						g.Kind, g.Period, g.Why = periodicGate, 0, fmt.Sprintf("once per refill of `%s`", x)
						g.Text = fmt.Sprintf("not %s (refilled below)", x)
					}
					if g.Kind != periodicGate && g.Kind != onceGate && g.Kind != initGate {
						// A guard clause (`if model is None: return`, `if args.x and not y:
						// raise`) rejects what it cannot work on; only a gate we can read thins
						// the call out.
						g.Kind, g.Why = noGate, "a guard clause"
					}
					// The exit is judged where it stands: a guard before the loop conditions
					// the whole loop, not each iteration.
					g.Inside = enclosingLoopOrBody(s)
					pendingGates = append(pendingGates, g)
				}
			}
		case "function_definition", "class_definition":
			lc.Gates = append(lc.Gates, pendingGates...)
			return lc
		case "if_statement":
			switch {
			case child.Field() == "consequence":
				pendingGates = append(pendingGates, a.newGate(f, m.ChildByField("condition"), false))
			case child.Kind() == "elif_clause":
				pendingGates = append(pendingGates, a.newGate(f, child.ChildByField("condition"), false))
			case child.Kind() == "else_clause":
				pendingGates = append(pendingGates, a.newGate(f, m.ChildByField("condition"), true))
			}
		case "for_statement", "while_statement":
			if child.Field() == "body" && transparentLoop(f, m) && lc.Transparent == nil && len(lc.Loops) == 0 {
				lc.Transparent = m
			}
			if child.Field() == "body" && !transparentLoop(f, m) {
				l := a.classifyLoop(f, m)
				lc.Loops = append(lc.Loops, l)
				for _, g := range pendingGates {
					if g.Inside == nil {
						g.Inside = m
					}
				}
			}
		case "try_statement":
			if child.Kind() == "finally_clause" {
				lc.Finally = true
			}
		case "except_clause", "except_group_clause":
			h := &handler{Node: m, Try: m.Parent(), Kind: exceptKindOf(f, m)}
			for _, c := range m.NamedChildren() {
				if c.Kind() != "block" {
					h.Type = exceptType(c, f.Src)
					break
				}
			}
			lc.Handlers = append(lc.Handlers, h)
		case "with_statement":
			if wc := m.NamedChildren(); len(wc) > 0 {
				lc.Withs = append(lc.Withs, wc[0].Text(f.Src))
			} else {
				lc.Withs = append(lc.Withs, m.ChildByField("body").Text(f.Src))
			}
		}
	}
	lc.Gates = append(lc.Gates, pendingGates...)
	return lc
}

// exitStatements are the statements of a block that leave early under some condition, in
// order, with their conditions in a.exits: read once per block, so a call looks only at
// those before it, not at every statement before it.
func (a *classifier) exitStatements(block *pyparse.Node) []*pyparse.Node {
	if stmts, ok := a.blockExits[block]; ok {
		return stmts
	}
	var stmts []*pyparse.Node
	for c := range block.Children() {
		if !c.Named() {
			continue
		}
		if conds := exitConditions(c); len(conds) > 0 {
			a.exits[c] = conds
			stmts = append(stmts, c)
		}
	}
	a.blockExits[block] = stmts
	return stmts
}

// exitConditions returns the conditions under which a statement before the call leaves
// early: the statement's own `if cond: return`, and, inside a compound if/else, the exits
// whose conditions are a modulo test (`if steps % every != 0: return` in an else branch).
// The branch conditions around such an exit are not composed: the modulo test is taken as
// the gate, which is what holds on all but the special-cased steps.
func exitConditions(stmt *pyparse.Node) []*pyparse.Node {
	if c := earlyExit(stmt); c != nil {
		return []*pyparse.Node{c}
	}
	if stmt.Kind() != "if_statement" {
		return nil
	}
	var out []*pyparse.Node
	stmt.Walk(func(m *pyparse.Node) bool {
		if m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda" ||
			m.Kind() == "for_statement" || m.Kind() == "while_statement" {
			return false
		}
		if m != stmt && m.Kind() == "if_statement" {
			if c := earlyExit(m); c != nil && c.Find(func(n *pyparse.Node) bool { return n.Kind() == "binary_operator" && n.HasChild("%") }) != nil {
				out = append(out, c)
			}
		}
		return true
	})
	return out
}

// refilled reports the state an early exit tests when the code after the exit rebinds it:
// `if self._buffered: return self._buffered.pop(0)` followed by `self._buffered = batches[1:]`
// leaves while a buffer lasts and refills it, so what follows runs once per refill. It
// returns the state's name, or "".
func refilled(f *pyparse.File, exit, cond *pyparse.Node) string {
	for cond.Kind() == "parenthesized_expression" && len(cond.NamedChildren()) == 1 {
		cond = cond.NamedChildren()[0]
	}
	if cond.Kind() == "call" && pyparse.DottedName(cond.ChildByField("function"), f.Src) == "len" {
		if args := cond.ChildByField("arguments").NamedChildren(); len(args) == 1 {
			cond = args[0]
		}
	}
	if cond.Kind() != "attribute" && cond.Kind() != "identifier" {
		return ""
	}
	name := cond.Text(f.Src)
	found := false
	for s := range exit.Following() {
		if found {
			break
		}
		s.Walk(func(n *pyparse.Node) bool {
			if n.Kind() == "function_definition" || n.Kind() == "class_definition" || n.Kind() == "lambda" {
				return false
			}
			if n.Kind() == "assignment" {
				if l := n.ChildByField("left"); l != nil && l.Text(f.Src) == name {
					found = true
				}
			}
			return !found
		})
	}
	if !found {
		return ""
	}
	return name
}

// enclosingLoopOrBody is the innermost loop around n in its function, or the function's
// body (the module at top level) when no loop is.
func enclosingLoopOrBody(n *pyparse.Node) *pyparse.Node {
	for m := n.Parent(); m != nil; m = m.Parent() {
		switch m.Kind() {
		case "for_statement", "while_statement":
			return m
		case "function_definition":
			return m.ChildByField("body")
		case "module":
			return m
		}
	}
	return nil
}

// leavesAfter returns the statement by which the code after call always leaves the loop
// whose body is loopBody: a `break`, `return` or `raise` at the top level of the call's own
// block or of a block around it inside the loop, after the call (a `raise` inside a `try`
// body within the loop may be caught there, and `continue` goes round again). nil when the
// loop may run the call again.
func (a *classifier) leavesAfter(call, loopBody *pyparse.Node) *pyparse.Node {
	st := call.Statement()
	for st != nil && st.Parent() != nil && st.Parent().Kind() == "block" {
		if a.continues(st) {
			return nil // `if respawned(): continue` around the call goes round again
		}
		block := st.Parent()
		leaves := a.leaving(block)
		for _, n := range leaves[sort.Search(len(leaves), func(i int) bool { return leaves[i].Start > st.Start }):] {
			switch n.Kind() {
			case "break_statement":
				if !insideLoop(n, loopBody) { // a break leaves the innermost loop only
					return n
				}
			case "return_statement":
				return n
			case "raise_statement":
				if !caughtWithin(block, loopBody) {
					return n
				}
			}
		}
		if block == loopBody {
			return nil
		}
		// Up to the compound statement that holds this block (an if, a try, a with).
		up := block.Parent()
		for up != nil && up.Parent() != nil && up.Parent().Kind() != "block" {
			up = up.Parent()
		}
		st = up
	}
	return nil
}

// leaving are a block's own `break`, `return` and `raise` statements, in order, memoized:
// every call in the block asked about every statement after it.
func (a *classifier) leaving(block *pyparse.Node) []*pyparse.Node {
	if l, ok := a.leaves[block]; ok {
		return l
	}
	var l []*pyparse.Node
	for n := range block.Children() {
		switch n.Kind() {
		case "break_statement", "return_statement", "raise_statement":
			l = append(l, n)
		}
	}
	a.leaves[block] = l
	return l
}

// continues reports a `continue` in st that goes round the loop st is in (not one of a loop
// inside st), memoized: each call in an `if`/`elif` chain asked it of the whole chain.
func (a *classifier) continues(st *pyparse.Node) bool {
	if c, ok := a.conts[st]; ok {
		return c
	}
	found := false
	walkOwn(st, func(m *pyparse.Node) {
		found = found || m.Kind() == "continue_statement" && !insideLoop(m, st)
	})
	a.conts[st] = found
	return found
}

// caughtWithin reports a block inside the body of a try statement that has an except clause,
// at or below loopBody: a raise there may be caught before it leaves the loop.
func caughtWithin(block, loopBody *pyparse.Node) bool {
	for n := block; n != nil && n != loopBody; n = n.Parent() {
		if n.Kind() == "block" && n.Field() == "body" && n.Parent() != nil && n.Parent().Kind() == "try_statement" &&
			n.Parent().HasChild("except_clause") {
			return true
		}
	}
	return false
}

// earlyExit returns the condition of `if cond: return` (continue, break, raise), an if
// statement without elif or else whose block always leaves; nil for any other statement.
func earlyExit(stmt *pyparse.Node) *pyparse.Node {
	if stmt.Kind() != "if_statement" || stmt.ChildByField("alternative") != nil {
		return nil
	}
	body := stmt.ChildByField("consequence")
	if body == nil {
		return nil
	}
	stmts := body.NamedChildren()
	for len(stmts) > 0 && stmts[len(stmts)-1].Kind() == "comment" {
		stmts = stmts[:len(stmts)-1]
	}
	if len(stmts) == 0 {
		return nil
	}
	switch stmts[len(stmts)-1].Kind() {
	case "return_statement", "continue_statement", "break_statement", "raise_statement":
		return stmt.ChildByField("condition")
	}
	return nil
}

// exceptType renders `except (A, B) as e` as "A, B".
func exceptType(n *pyparse.Node, src []byte) string {
	if n.Kind() == "as_pattern" {
		if v := n.NamedChildren(); len(v) > 0 {
			n = v[0]
		}
	}
	if n.Kind() == "tuple" || n.Kind() == "parenthesized_expression" {
		var parts []string
		for _, c := range n.NamedChildren() {
			parts = append(parts, c.Text(src))
		}
		return strings.Join(parts, ", ")
	}
	return n.Text(src)
}

var (
	reModulo   = lazyregexp.New(`%\s*\(?\s*([0-9][0-9_]*)\s*\)?`)
	reTimeGate = lazyregexp.New(`\btime\.(time|perf_counter|monotonic)\(|\btime\(\)|elapsed|interval|last_(clear|clean|empty|flush)`)
	reMemGate  = lazyregexp.New(`memory_allocated|memory_reserved|mem_get_info|max_memory_|memory_stats|memory_usage|get_memory|nvidia_smi|gpu_mem|free_mem|vram`)
	reInSteps  = lazyregexp.New(`\bin\s+[\w.\[\]]*(steps|iters|iterations|every|schedule)\b`)
)

var reModuloName = lazyregexp.New(`%\s*\(?\s*([A-Za-z_][\w.]*)\s*\)?`)

// constantValue finds the integer a name stands for where it is plain to see: a parameter
// default of the enclosing function (`def maybe_free(step, every=50)`) or a module-level
// constant (`CLEAR_EVERY = 100`). 0 when unknown.
func constantValue(f *pyparse.File, at *pyparse.Node, name string) int {
	if fn := f.EnclosingFunction(at); fn != nil {
		if ps := fn.Node.ChildByField("parameters"); ps != nil {
			for _, p := range ps.NamedChildren() {
				if (p.Kind() == "default_parameter" || p.Kind() == "typed_default_parameter") && p.ChildByField("name").Text(f.Src) == name {
					return intLiteral(p.ChildByField("value"), f.Src)
				}
			}
		}
	}
	for _, stmt := range f.Root.NamedChildren() {
		if stmt.Kind() != "expression_statement" || len(stmt.NamedChildren()) != 1 {
			continue
		}
		as := stmt.NamedChildren()[0]
		if as.Kind() == "assignment" && as.ChildByField("left").Text(f.Src) == name {
			return intLiteral(as.ChildByField("right"), f.Src)
		}
	}
	return 0
}

func intLiteral(n *pyparse.Node, src []byte) int {
	if n == nil || n.Kind() != "integer" {
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
	g.Text = shorten(cond.Text(f.Src))
	if negate {
		g.Text = "not (" + g.Text + ")"
	}
	k := condKey{cond, negate}
	r, ok := a.conds[k]
	if !ok {
		r.kind, r.period, r.why = a.condKind(f, cond, negate, 0)
		a.conds[k] = r
	}
	g.Kind, g.Period, g.Why = r.kind, r.period, r.why
	return g
}

// condKey and condResult memoize condKind for a condition read with a polarity.
type condKey struct {
	cond   *pyparse.Node
	negate bool
}

type condResult struct {
	kind   gateKind
	period int
	why    string
}

// selectivity orders gate kinds by how much they thin out a call: an `and` is as selective
// as its most selective part, an `or` as its least.
func selectivity(k gateKind) int {
	switch k {
	case optInGate:
		return 1
	case unknownGate:
		return 2
	case periodicGate:
		return 3
	case onceGate:
		return 4
	case initGate:
		return 5
	}
	return 0
}

// condKind classifies the condition under which a call runs: cond must be true (false when
// negate) for it to run. It returns the kind, the period of a modulo gate when known, and for
// a condition that changes nothing, why (a device or rank check, a frequent branch).
func (a *classifier) condKind(f *pyparse.File, cond *pyparse.Node, negate bool, depth int) (gateKind, int, string) {
	if depth > 8 {
		return unknownGate, 0, ""
	}
	src := f.Src
	switch cond.Kind() {
	case "parenthesized_expression":
		if in := cond.NamedChildren(); len(in) == 1 {
			return a.condKind(f, in[0], negate, depth+1)
		}
	case "not_operator":
		if reInitGate.MatchString(cond.Text(src)) {
			if negate {
				return noGate, 0, "true after the first time"
			}
			return initGate, 0, ""
		}
		if arg := cond.ChildByField("argument"); arg != nil {
			return a.condKind(f, arg, !negate, depth+1)
		}
	case "boolean_operator":
		left, right := cond.ChildByField("left"), cond.ChildByField("right")
		if left == nil || right == nil {
			break
		}
		// not (a and b) is (not a) or (not b): negation swaps which part decides.
		most := cond.HasChild("and") != negate
		lk, lp, lw := a.condKind(f, left, negate, depth+1)
		rk, rp, rw := a.condKind(f, right, negate, depth+1)
		if (selectivity(rk) > selectivity(lk)) == most {
			return rk, rp, rw
		}
		return lk, lp, lw
	case "identifier":
		// A gate held in a variable: `save_now = step % every == 0` ... `if save_now:`.
		if rhs := a.lastAssignment(f, cond); rhs != nil {
			return a.condKind(f, rhs, negate, depth+1)
		}
		if k, ok := a.latch(f, cond, negate, depth); ok {
			return k, 0, ""
		}
	}
	if cond.Kind() == "not_operator" {
		if arg := cond.ChildByField("argument"); arg != nil && arg.Kind() == "identifier" {
			if k, ok := a.latch(f, arg, !negate, depth); ok {
				return k, 0, ""
			}
		}
	}
	t := cond.Text(src)
	if cond.Find(func(n *pyparse.Node) bool { return n.Kind() == "binary_operator" && n.HasChild("%") }) != nil {
		// `step % N == 0` (or `not step % N`) runs one step in N; `step % N != 0` and a bare
		// `step % N` run on the others.
		rare := cond.Kind() == "comparison_operator" && !cond.HasChild("!=") && (cond.HasChild("==") || cond.HasChild("<") || cond.HasChild("<="))
		if rare == negate {
			return noGate, 0, "true on most iterations"
		}
		period := 0
		if m := reModulo.FindStringSubmatch(t); m != nil {
			period, _ = strconv.Atoi(strings.ReplaceAll(m[1], "_", ""))
		} else if m := reModuloName.FindStringSubmatch(t); m != nil {
			period = constantValue(f, cond, m[1])
		}
		return periodicGate, period, ""
	}
	// `for pi in range(num_processes): if pi == local_rank:` picks one pass of the loop,
	// whatever the other side is (a rank here, not a rank check).
	if cond.Kind() == "comparison_operator" && cond.HasChild("==") && !negate && loopVarCompared(f, cond) {
		return onceGate, 0, ""
	}
	if why := a.recordField(f, cond); why != "" {
		return noGate, 0, why
	}
	switch {
	case reDeviceCheck.MatchString(t):
		return noGate, 0, "a device check"
	case reRankCheck.MatchString(t):
		return noGate, 0, "a rank check"
	case reStepBoundary.MatchString(t):
		return noGate, 0, "true on every optimizer step"
	case reMainModule.MatchString(t):
		return noGate, 0, "true when run as a script"
	case reTrainMode.MatchString(t):
		return noGate, 0, "true on every training step"
	case a.runFlag(f, cond):
		return optInGate, 0, ""
	}
	var kind gateKind
	switch {
	case cond.Kind() == "comparison_operator" && cond.HasChild("!=") && changeDetection(f, cond):
		kind = periodicGate
	case cond.Kind() == "comparison_operator" && (cond.HasChild("!=") || cond.HasChild("is not")) && !cond.HasChild("=="):
		// `i != last`: true on all iterations but one; `x is not None` says nothing.
		if cond.HasChild("!=") {
			return noGate, 0, "true on most iterations"
		}
		kind = unknownGate
	case cond.Kind() == "comparison_operator" && cond.HasChild("==") && cond.Find(func(n *pyparse.Node) bool { return n.Kind() == "string" }) == nil:
		// `iteration - start == warmup_steps`, `step == 0`: true once (per pass of the loop
		// when the loop's own variable is compared).
		kind = initGate
		if loopVarCompared(f, cond) {
			kind = onceGate
		}
	case reInitGate.MatchString(t):
		kind = initGate
	case onceCondition(t):
		// `i == 0` on the loop's own variable runs once per pass of the loop; a counter of
		// the whole run (`self.get_num_updates() == 0`, `global_step == 1`) runs once.
		kind = initGate
		if loopVarCompared(f, cond) {
			kind = onceGate
		}
	case reInSteps.MatchString(t) || reMembership.MatchString(t), reTimeGate.MatchString(t), reMemGate.MatchString(t),
		reControlFlag.MatchString(t):
		kind = periodicGate
	default:
		kind = unknownGate
	}
	if negate {
		switch kind {
		case periodicGate, onceGate, initGate:
			return noGate, 0, "true on most iterations"
		}
	}
	return kind, 0, ""
}

// latch reads a flag the loop sets and resets itself: `if not done: flush(); done = True`
// runs once (the test's own branch latches it), and `if flush_next: flush(); flush_next =
// False` runs as often as the places that set it, here under a save gate. It reports the
// gate the flag stands for, and whether it could tell.
func (a *classifier) latch(f *pyparse.File, flag *pyparse.Node, negate bool, depth int) (gateKind, bool) {
	ifStmt := flag.Parent()
	for ifStmt != nil && (ifStmt.Kind() == "not_operator" || ifStmt.Kind() == "parenthesized_expression") {
		ifStmt = ifStmt.Parent()
	}
	fn := f.EnclosingFunction(flag)
	if ifStmt == nil || ifStmt.Kind() != "if_statement" || fn == nil {
		return 0, false
	}
	name := flag.Text(f.Src)
	var sets []*pyparse.Node // assignments of a truthy value
	for _, b := range a.bindingsOf(f)[name] {
		if r := b.node.ChildByField("right"); b.scope == fn.Body && b.node.Kind() == "assignment" && r != nil && r.Kind() == "true" {
			sets = append(sets, b.node)
		}
	}
	if len(sets) == 0 {
		return 0, false
	}
	body := ifStmt.ChildByField("consequence")
	if negate {
		// `if not flag:` whose own branch sets the flag: true the first time only.
		for _, set := range sets {
			if body == nil || !body.Contains(set) {
				return 0, false
			}
		}
		return initGate, true
	}
	// `if flag:`: set elsewhere, each time under a gate: the flag is as rare as the most
	// frequent of those gates.
	kind := gateKind(-1)
	for _, set := range sets {
		g := noGate
		for m := set.Parent(); m != nil && m != fn.Body; m = m.Parent() {
			if m.Kind() == "if_statement" && !m.Contains(flag) {
				if c := m.ChildByField("condition"); c != nil && m.ChildByField("consequence").Contains(set) {
					g, _, _ = a.condKind(f, c, false, depth+1)
				}
				break
			}
		}
		if kind < 0 || selectivity(g) < selectivity(kind) {
			kind = g
		}
	}
	if kind == periodicGate || kind == onceGate || kind == initGate {
		return kind, true
	}
	return 0, false
}

// binding is one assignment to a plain name: the statement, the body it binds in (a
// function's block, or the module), and whether a loop of that body encloses it.
type binding struct {
	node   *pyparse.Node // assignment or augmented_assignment
	scope  *pyparse.Node
	inLoop bool
}

// bindingsOf indexes a file's assignments to plain names, once per file: what gates ask of a
// name (is it set in a loop, what was it last set to, is it a switch) was a walk of its
// function per question, and a file of many gated calls asked it once per call.
func (a *classifier) bindingsOf(f *pyparse.File) map[string][]binding {
	if idx, ok := a.bindings[f]; ok {
		return idx
	}
	idx := map[string][]binding{}
	var walk func(n, scope *pyparse.Node, inLoop bool)
	walk = func(n, scope *pyparse.Node, inLoop bool) {
		switch n.Kind() {
		case "lambda":
			return
		case "function_definition", "class_definition":
			body := n.ChildByField("body")
			for c := range n.Children() {
				if c == body {
					walk(c, body, false)
				}
			}
			return
		case "assignment", "augmented_assignment":
			if l := n.ChildByField("left"); l != nil && l.Kind() == "identifier" {
				name := l.Text(f.Src)
				idx[name] = append(idx[name], binding{node: n, scope: scope, inLoop: inLoop})
			}
		}
		loop := inLoop || n.Kind() == "for_statement" || n.Kind() == "while_statement"
		for c := range n.Children() {
			walk(c, scope, loop)
		}
	}
	walk(f.Root, f.Root, false)
	a.bindings[f] = idx
	return idx
}

// scopeOf is the body a name used at n binds in: its function's block, or the module.
func scopeOf(f *pyparse.File, n *pyparse.Node) *pyparse.Node {
	if fn := f.EnclosingFunction(n); fn != nil {
		return fn.Body
	}
	return f.Root
}

// lastAssignment returns the right side of the last plain assignment to name before it in its
// function, constants aside (`save_now = (step + 1) % every == 0`), or nil.
func (a *classifier) lastAssignment(f *pyparse.File, name *pyparse.Node) *pyparse.Node {
	scope := scopeOf(f, name)
	var found *pyparse.Node
	for _, b := range a.bindingsOf(f)[name.Text(f.Src)] {
		if b.scope != scope || b.node.Kind() != "assignment" || b.node.Start >= name.Start {
			continue
		}
		// `is_sample_step = False` under a switch overrides the gate sometimes; the gate is
		// the computed value.
		if r := b.node.ChildByField("right"); r != nil && !r.Contains(name) && r.Kind() != "true" && r.Kind() != "false" && r.Kind() != "none" {
			found = r
		}
	}
	return found
}

// changeDetection reports `if bucket != current:` whose body rebinds one side of the test
// (`current = bucket`): the call runs when the value changes, not on every iteration.
func changeDetection(f *pyparse.File, cond *pyparse.Node) bool {
	ifStmt := cond.Parent()
	if ifStmt == nil || ifStmt.Kind() != "if_statement" {
		return false
	}
	body := ifStmt.ChildByField("consequence")
	sides := map[string]bool{}
	for _, c := range cond.NamedChildren() {
		sides[c.Text(f.Src)] = true
	}
	found := false
	body.Walk(func(n *pyparse.Node) bool {
		if n.Kind() == "assignment" {
			if l := n.ChildByField("left"); l != nil && sides[l.Text(f.Src)] {
				found = true
			}
		}
		return !found
	})
	return found
}

// runFlag reports a condition fixed for the whole run: a user's switch or a configuration
// value (`if args.empty_cache:`, `if self.use_liger_loss:`, `if cfg.offload_model:`,
// `if args.empty_unused_memory_level >= 1:`). When it holds, the call runs every time.
func (a *classifier) runFlag(f *pyparse.File, cond *pyparse.Node) bool {
	switch cond.Kind() {
	case "identifier", "attribute":
		t := cond.Text(f.Src)
		if cond.Kind() == "identifier" && a.assignedInLoop(f, cond) {
			return false // `flush_next`, set by the loop itself: state, not a switch
		}
		last := t[strings.LastIndex(t, ".")+1:]
		return reConfigRoot.MatchString(t) || reFlagName.MatchString(last) || (reOptIn.MatchString(last) && !strings.HasSuffix(last, "ed")) ||
			setOnlyInInit(f, cond) || (cond.Kind() == "identifier" && a.boolSwitch(f, cond, 0))
	case "comparison_operator":
		parts := cond.NamedChildren()
		if len(parts) == 2 && cond.HasChild("in") && f.Qualify(pyparse.DottedName(parts[1], f.Src)) == "sys.modules" {
			return true // `"bitsandbytes" in sys.modules`: which libraries the run imported
		}
		if len(parts) != 2 || cond.HasChild("is") || cond.HasChild("in") {
			return false
		}
		switch parts[1].Kind() {
		case "integer", "float", "string", "true", "false":
			return (parts[0].Kind() == "attribute" || parts[0].Kind() == "identifier") && reConfigRoot.MatchString(parts[0].Text(f.Src))
		}
	}
	return false
}

// boolSwitch reports a local switch: a name its function sets to True or False only, outside
// any loop, each time unconditionally or under a switch itself (`grad_te = False`,
// `if cfg.train_text_encoder: grad_te = True`). What it holds is fixed for the call.
func (a *classifier) boolSwitch(f *pyparse.File, name *pyparse.Node, depth int) bool {
	fn := f.EnclosingFunction(name)
	if fn == nil || depth > 4 || a.assignedInLoop(f, name) {
		return false
	}
	want := name.Text(f.Src)
	// The scope that binds the name: the function, or one it is nested in (a closure).
	for ; fn != nil; fn = fn.Parent {
		if a.assigns(f, fn.Body, want) {
			break
		}
	}
	if fn == nil {
		return a.moduleSwitch(f, want)
	}
	seen := 0
	for _, b := range a.bindingsOf(f)[want] {
		if b.scope != fn.Body {
			continue
		}
		seen++
		if !boolAssignment(b.node) {
			return false
		}
		// The nearest condition above the assignment must itself be a switch.
		for m := b.node.Parent(); m != nil && m != fn.Body; m = m.Parent() {
			if m.Kind() == "if_statement" || m.Kind() == "elif_clause" {
				if c := m.ChildByField("condition"); c != nil && !a.switchCond(f, c) {
					return false
				}
				break
			}
		}
	}
	return seen > 0
}

// moduleSwitch reports a module-level switch: `HIGH_VRAM = False` at the top of the file,
// set to True or False only, anywhere in the file, and never in a loop (`def
// enable_high_vram(args): global HIGH_VRAM; HIGH_VRAM = True`).
func (a *classifier) moduleSwitch(f *pyparse.File, name string) bool {
	top := false
	for _, b := range a.bindingsOf(f)[name] {
		if !boolAssignment(b.node) || b.inLoop {
			return false
		}
		if st := b.node.Parent(); st != nil && st.Parent() == f.Root {
			top = true
		}
	}
	return top
}

// boolAssignment reports `name = True` or `name = False`.
func boolAssignment(n *pyparse.Node) bool {
	r := n.ChildByField("right")
	return n.Kind() == "assignment" && r != nil && (r.Kind() == "true" || r.Kind() == "false")
}

// assigns reports whether a block binds name by plain assignment (nested definitions aside).
func (a *classifier) assigns(f *pyparse.File, body *pyparse.Node, name string) bool {
	for _, b := range a.bindingsOf(f)[name] {
		if b.scope == body && b.node.Kind() == "assignment" {
			return true
		}
	}
	return false
}

// switchCond reports a condition made of run flags only: `args.a`, `not args.a and not
// cfg.b`.
func (a *classifier) switchCond(f *pyparse.File, c *pyparse.Node) bool {
	switch c.Kind() {
	case "not_operator":
		if arg := c.ChildByField("argument"); arg != nil {
			return a.switchCond(f, arg)
		}
	case "parenthesized_expression":
		if in := c.NamedChildren(); len(in) == 1 {
			return a.switchCond(f, in[0])
		}
	case "boolean_operator":
		l, r := c.ChildByField("left"), c.ChildByField("right")
		return l != nil && r != nil && a.switchCond(f, l) && a.switchCond(f, r)
	}
	return a.runFlag(f, c)
}

// setOnlyInInit reports `self.attr` that its class assigns in __init__ and nowhere else
// (`self._after_iter = after_iter`): fixed for the object's life, a switch like a
// configuration value.
func setOnlyInInit(f *pyparse.File, cond *pyparse.Node) bool {
	attr, ok := strings.CutPrefix(cond.Text(f.Src), "self.")
	if !ok || strings.Contains(attr, ".") {
		return false
	}
	cls := methodClass(f.EnclosingFunction(cond))
	if cls == nil || cls.Methods["__init__"] == nil {
		return false
	}
	inInit := false
	for name, m := range cls.Methods {
		assigned := false
		m.Body.Walk(func(n *pyparse.Node) bool {
			if n.Kind() == "function_definition" || n.Kind() == "class_definition" {
				return n == m.Body
			}
			if n.Kind() == "assignment" || n.Kind() == "augmented_assignment" {
				if l := n.ChildByField("left"); l != nil && l.Text(f.Src) == cond.Text(f.Src) {
					assigned = true
					if name == "__init__" && n.Kind() == "assignment" && switchValue(f, m, n.ChildByField("right")) {
						inInit = true
					}
				}
			}
			return !assigned
		})
		if assigned && name != "__init__" {
			return false
		}
	}
	return inInit
}

// switchValue reports a value a switch is set from: a parameter of the function (the
// constructor's `after_iter=False`), a boolean literal or a configuration value.
func switchValue(f *pyparse.File, fn *pyparse.Function, v *pyparse.Node) bool {
	if v == nil {
		return false
	}
	switch v.Kind() {
	case "true", "false":
		return true
	case "identifier":
		return slices.Contains(fn.Params, v.Text(f.Src))
	case "attribute":
		return reConfigRoot.MatchString(v.Text(f.Src))
	}
	return false
}

// assignedInLoop reports whether the name is bound inside a loop of its function.
func (a *classifier) assignedInLoop(f *pyparse.File, name *pyparse.Node) bool {
	scope := scopeOf(f, name)
	for _, b := range a.bindingsOf(f)[name.Text(f.Src)] {
		if b.scope == scope && b.inLoop {
			return true
		}
	}
	return false
}

var (
	// reConfigRoot: a value read from the run's arguments or configuration.
	reConfigRoot = lazyregexp.New(`^(self\.)?([a-z]+_)?(args|arguments|config|cfg|conf|opts?|hparams|flags|options)\.[\w.]+$`)
	// reFlagName: a switch by its name (`use_ema`, `enable_offload`, `_do_after_iter`).
	reFlagName = lazyregexp.New(`^_*(use|enable|do|with|allow|apply)_\w+$`)
	// reStepBoundary: Accelerate's `sync_gradients` is true when the accumulated gradients
	// are applied: once per optimizer step (accelerate/accelerator.py, Accelerator.sync_gradients).
	reStepBoundary = lazyregexp.New(`^\s*(not\s+)?[\w.]*\bsync_gradients\s*$`)
	reMainModule   = lazyregexp.New(`^\s*__name__\s*==\s*["']__main__["']\s*$`)
	// reTrainMode: the model or loop is in training mode (`self.model.training`,
	// `mode == "train"`): true on every step of a training loop.
	reTrainMode = lazyregexp.New(`^\s*[\w.\[\]]*\btraining\s*$|^\s*[\w.]*\b(mode|split|phase|stage)\s*==\s*["'](train|training|fit)["']\s*$`)
	// reDeviceCheck: conditions true wherever the cache exists, so they change nothing.
	reDeviceCheck = lazyregexp.New(`(?i)^\s*(not\s+)?[\w.]*(cuda|npu|xpu|mps|gpu|accelerator)[\w.]*\.is_available\(\)\s*$|\bis_\w*(cuda|npu|xpu|mps|mlu|musa|hpu|gpu)\w*_available\(\)|\b_?(cuda|npu|xpu|mps|mlu|musa|hpu)_is_available\(\)|\bdevice\.type\s*[!=]=|\.is_cuda\b|^\s*(not\s+)?[\w.]*\b(use_cuda|use_gpu|on_gpu|is_cuda|has_cuda|cuda|cpu|use_cpu|no_cuda|on_cpu|force_cpu)\s*$|["'](cuda|npu|xpu|mps)["']\s+(not\s+)?in\s+|\bin\s*\(\s*["'](cuda|npu|xpu)|\b(device|accelerator)(_type)?(\.type)?\s*(==|!=|not\s+in|in)\s*[("']`)
	// reRankCheck: a call on one rank runs as often there as it would on every rank.
	reRankCheck = lazyregexp.New(`(?i)\b(local_rank|global_rank|rank|get_rank\(\)|process_index|local_process_index)\s*(==|in|<)|\bis_(local_)?main_process\b|\bis_world_process_zero\b|\bis_master\b|\bis_rank_zero\b|\bmain_process\b|\b(num_processes|world_size)\s*(==|<=|<|>|>=|!=)\s*1\b`)
	// reControlFlag: the Trainer's control and state flags are set by its callbacks on
	// logging, evaluation and save steps (transformers trainer_callback.py, TrainerControl).
	reControlFlag = lazyregexp.New(`\bshould_(evaluate|save|log|eval)\b|\b(do|is|should)_(eval|evaluate|save|log|sample|validate|validation)(_step|_now)?\b|\b(eval|save|log|sample|validation|checkpoint)_(now|step|this_step|due)\b`)
	// reOptIn: a user's switch for clearing the cache (`if args.empty_cache_each_step:`).
	reOptIn = lazyregexp.New(`(?i)(empty|clear|free|flush|release|gc|cache|low_?vram|low_?mem|preserve_memory|save_memory|offload)`)
)

var (
	reOnce = lazyregexp.New(`^\s*\(?\s*[\w.\[\]()]+\s*==\s*(\d+|len\(.*\)\s*-\s*1|[\w.]*(num|total|max|last|len)[\w.()]*(\s*-\s*1)?)\s*\)?\s*$|is_last|last_batch|is_first|first_step|first_batch`)
	// reInitGate: one-time initialisation (`"exp_avg" not in state`, `len(state) == 0`,
	// `not self.initialized`).
	reInitGate = lazyregexp.New(`\bnot\s+in\s+[\w.]*state\b|len\([\w.\[\]]*state[\w.\[\]]*\)\s*==\s*0|^\s*not\s+[\w.]*(initiali[sz]ed?|_init|warmed_up|built)\b`)
	// reMembership: the step variable tested against a set of steps (`i in thresholds`).
	reMembership = lazyregexp.New(`^\s*[A-Za-z_]\w*\s+in\s+[\w.]+(\.keys\(\))?\s*$`)
)

func onceCondition(t string) bool { return reOnce.MatchString(t) }

// loopVarCompared reports whether an equality test compares a target variable of an
// enclosing for loop (`for i, batch in enumerate(loader): if i == 0`).
func loopVarCompared(f *pyparse.File, cond *pyparse.Node) bool {
	left := cond
	if cond.Kind() == "comparison_operator" {
		if v := cond.NamedChildren(); len(v) > 0 {
			left = v[0]
		}
	}
	name := left.Text(f.Src)
	for m := cond.Parent(); m != nil && m.Kind() != "function_definition"; m = m.Parent() {
		if m.Kind() != "for_statement" {
			continue
		}
		found := false
		m.ChildByField("left").Walk(func(n *pyparse.Node) bool {
			if n.Kind() == "identifier" && n.Text(f.Src) == name {
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
	reStepIter  = lazyregexp.New(`(?i)(loader|batch|timesteps|sigmas|data_?iter|dataiter|iterator|pbar|progress|prog_bar|\bsteps?\b|max_steps|num_steps|total_steps|train_steps|iters?\b|iterations|num_iter|n_iter|minibatch|mini_batch|samples|prompts|dataset|\bdata\b|train_data|val_data|eval_data|test_data)`)
	reEpochIter = lazyregexp.New(`(?i)epoch`)
	reStepWhile = lazyregexp.New(`(?i)(step|iter|\bbatch(es)?\b|batch_idx|num_batches)`)
)

// classifyLoop decides whether a loop is a step loop, an epoch loop, or something else.
func (a *classifier) classifyLoop(f *pyparse.File, n *pyparse.Node) *loop {
	if l, ok := a.loops.done[n]; ok { // before making a loop that remember would not use
		return l
	}
	// While the loop is being classified, asking again gets the loop as it stands so far.
	l := &loop{Node: n}
	return remember(&a.eff, &a.loops, n, l, func() *loop {
		a.fillLoop(f, n, l)
		return l
	})
}

// fillLoop classifies loop n into l.
func (a *classifier) fillLoop(f *pyparse.File, n *pyparse.Node, l *loop) {
	src := f.Src
	var iter, target string
	if n.Kind() == "for_statement" {
		iter = withoutStrings(f, n.ChildByField("right"))
		target = n.ChildByField("left").Text(src)
		l.Header = shorten("for " + target + " in " + n.ChildByField("right").Text(src))
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
	// Structure first: where the step work is. A loop one iteration of which performs a step
	// in its own body is a step loop, whatever it iterates; one whose step work all sits in
	// an inner step loop, or that runs a whole pipeline, generation or training per
	// iteration, is an outer loop. Names decide only where the structure says nothing.
	switch {
	case a.stepNames[iterHead(iter)]:
		l.Kind, l.Why = stepLoop, "is listed in step-loop-names"
	default:
		if why := directStep(f, body); why != "" {
			l.Kind, l.Why = stepLoop, "runs a step in its body ("+why+")"
		} else if why := a.wholeRun(f, body, 0); why != "" {
			l.Kind, l.Why = epochLoop, "runs "+why+" per iteration"
		} else if why := a.ownStep(f, body); why != "" {
			l.Kind, l.Why = stepLoop, "runs a step in its body ("+why+")"
		} else if a.bodyHasStepLoop(f, body) {
			l.Kind, l.Why = epochLoop, "holds a step loop"
			switch {
			case reEpochIter.MatchString(iter) || reEpochIter.MatchString(target):
				l.Why = "iterates epochs"
			case !nestedOptimizerStep(f, body) && (n.Kind() == "for_statement" && reStepCount.MatchString(iter) ||
				n.Kind() == "while_statement" && reStepWhile.MatchString(iter)):
				// `for step in range(steps):` around a loop over micro-batches that calls the
				// step function: no inner loop steps the optimizer itself, so the name decides.
				l.Kind, l.Why = stepLoop, "iterates steps (an inner loop splits each step)"
			}
		} else if why := a.runsStep(f, body, 0); why != "" {
			l.Kind, l.Why = stepLoop, "runs a step in its body ("+why+")"
		} else {
			switch {
			case reEpochIter.MatchString(iter) || reEpochIter.MatchString(target):
				l.Kind, l.Why = epochLoop, "iterates epochs"
			case n.Kind() == "for_statement" && reStepIter.MatchString(iter) && !reModelLoopIter.MatchString(target):
				l.Kind, l.Why = stepLoop, "iterates batches or steps"
			case n.Kind() == "while_statement" && reStepWhile.MatchString(iter):
				l.Kind, l.Why = stepLoop, "counts steps"
			}
		}
	}
}

// reWholeRun names library calls that run a whole inner loop of steps: a diffusers pipeline
// (its __call__ runs the denoising loop), Hugging Face `generate()` (the decoding loop), a
// trainer's `fit()`/`train()` (the training loop). Framework knowledge: diffusers
// DiffusionPipeline.__call__, transformers GenerationMixin.generate, Lightning Trainer.fit.
var reWholeRun = lazyregexp.New(`(?i)^((self\.)?[\w.]*\b(pipe|pipeline|pipe_\w+|\w+_pipe|\w+_pipeline)|[\w.]*\b\w+_main|[\w.]+\.generate|[\w.]*(trainer|runner)\.(fit|train|evaluate|validate|test|predict)|[\w.]*(sampler|diffusion)\.sample)$`)

// wholeRun finds, in the loop's own body (not nested loops or defs), a call that runs a
// whole inner loop of steps per iteration: a library pipeline, generation or training, or a
// project function that makes such a call outside its own loops
// (`sample_image_inference()` calling `pipeline(...)`).
func (a *classifier) wholeRun(f *pyparse.File, body *pyparse.Node, depth int) string {
	return ownCall(f, body, func(callee string, call *pyparse.Node) bool {
		if reWholeRun.MatchString(callee) {
			return true
		}
		if depth >= 3 {
			return false
		}
		r := a.resolveCall(f, call)
		if r == nil {
			return false
		}
		return remember(&a.eff, &a.runsWhole, depthKey{r.fn, depth + 1}, false, func() bool {
			return a.wholeRun(r.file, r.fn.Body, depth+1) != ""
		})
	})
}

// ownCall returns the first call in a loop's or function's own body (not in a nested loop,
// def or lambda) whose dotted callee matches, rendered for a message; "" when none does.
func ownCall(f *pyparse.File, body *pyparse.Node, match func(callee string, call *pyparse.Node) bool) string {
	why := ""
	body.Walk(func(m *pyparse.Node) bool {
		if why != "" || m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda" ||
			(m != body && (m.Kind() == "for_statement" || m.Kind() == "while_statement")) {
			return false
		}
		if m.Kind() == "call" {
			if callee := pyparse.DottedName(m.ChildByField("function"), f.Src); match(callee, m) {
				why = "`" + callee + "(...)`"
			}
		}
		return why == ""
	})
	return why
}

// reSetupIter: loops over parameters, parameter groups, modules, trackers or config items
// run at set-up or inside one step; they say nothing about frequency, so the loop around
// them (or the hook they are in) decides.
var reSetupIter = lazyregexp.New(`(?i)(param_groups|parameters\(\)|named_parameters|named_modules|named_children|named_buffers|\.modules\(\)|\.children\(\)|\bparams\b|\["params"\]|\['params'\]|trackers|\.items\(\)|\.keys\(\)|\.values\(\)|devices|device_ids|device_count|gpus|layers)`)

func transparentLoop(f *pyparse.File, n *pyparse.Node) bool {
	if n.Kind() != "for_statement" {
		return false
	}
	iter := n.ChildByField("right").Text(f.Src)
	return reSetupIter.MatchString(iter) && !reStepIter.MatchString(iter) ||
		reSmallRange.MatchString(iter) && flushRepeat(f, n.ChildByField("body"))
}

// reFlushCall names the calls of a loop that only repeats a clean-up (`for _ in range(3):
// gc.collect(); torch.cuda.empty_cache()`): the repetition is one clean-up.
var reFlushCall = lazyregexp.New(`(^|\.)(collect|empty_cache|synchronize|ipc_collect|sleep|reset_peak_memory_stats|clear_device_cache|release_memory|free_memory|flush|torch_gc|clean_memory\w*)$`)

// reSmallRange: a literal repeat count (`range(3)`, `range(10)`).
var reSmallRange = lazyregexp.New(`^range\(\s*\d{1,2}\s*\)$`)

func flushRepeat(f *pyparse.File, body *pyparse.Node) bool {
	if body == nil {
		return false
	}
	stmts := 0
	for _, c := range body.NamedChildren() {
		if c.Kind() == "comment" {
			continue
		}
		stmts++
		if c.Kind() == "if_statement" && c.ChildByField("alternative") == nil && flushRepeat(f, c.ChildByField("consequence")) {
			continue // `if torch.cuda.is_available(): torch.cuda.empty_cache()`
		}
		e := c.NamedChildren()
		if c.Kind() != "expression_statement" || len(e) != 1 || e[0].Kind() != "call" ||
			!reFlushCall.MatchString(pyparse.DottedName(e[0].ChildByField("function"), f.Src)) {
			return false
		}
	}
	return stmts > 0
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
	reWrapped       = lazyregexp.New(`^\s*(?:tqdm|enumerate|track|progress_bar)\((?:tqdm\()?\s*([^,()]+)`)
	reModelLoopIter = lazyregexp.New(`(?i)model|pipeline|pipes\b|stage|checkpoint|ckpt|adapter|config|variant`)
)

func iterHead(iter string) string {
	iter = strings.TrimSpace(iter)
	if i := strings.IndexAny(iter, "(["); i >= 0 {
		iter = iter[:i]
	}
	return iter[strings.LastIndex(iter, ".")+1:]
}

// directStep is directStep, read once per loop body (classifier.steps).
func (a *classifier) directStep(f *pyparse.File, body *pyparse.Node) string {
	s, ok := a.steps[body]
	if !ok {
		s = directStep(f, body)
		a.steps[body] = s
	}
	return s
}

// directStep finds `.backward()` or `optimizer.step()` written in the loop's own body (not in
// a nested loop or def): the surest sign that one iteration is one training step.
func directStep(f *pyparse.File, body *pyparse.Node) string {
	return strings.Replace(ownCall(f, body, func(callee string, call *pyparse.Node) bool {
		return strings.HasSuffix(callee, ".backward") || optimStep(f, callee, call)
	}), "(...)", "()", 1)
}

// reStepCount: names that count steps or batches, the only names that keep a loop around
// an inner loop a step loop.
var reStepCount = lazyregexp.New(`(?i)\bsteps?\b|_steps\b|\biters?\b|iterations|\bbatch(es)?\b|loader`)

// withoutStrings renders an expression with its string literals blanked, so that
// `tqdm(configs, desc="Generating samples")` is not judged by its description.
func withoutStrings(f *pyparse.File, n *pyparse.Node) string {
	if n == nil {
		return ""
	}
	b := []byte(n.Text(f.Src))
	n.Walk(func(m *pyparse.Node) bool {
		if m.Kind() == "string" {
			for i := int(m.Start - n.Start); i < int(m.End-n.Start) && i < len(b); i++ {
				b[i] = ' '
			}
			return false
		}
		return true
	})
	return string(b)
}

// nestedOptimizerStep reports an optimizer or scaler step written in the body of a loop
// nested in body: that inner loop is where the steps are.
func nestedOptimizerStep(f *pyparse.File, body *pyparse.Node) bool {
	found := false
	body.Walk(func(m *pyparse.Node) bool {
		if found || m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda" {
			return false
		}
		if m != body && (m.Kind() == "for_statement" || m.Kind() == "while_statement") {
			found = ownCall(f, m.ChildByField("body"), func(callee string, call *pyparse.Node) bool {
				return optimStep(f, callee, call)
			}) != ""
		}
		return !found
	})
	return found
}

// bodyHasStepLoop reports whether a block contains (not in nested defs) a loop that is a
// step loop, or calls a project function that holds one (`train_one_epoch()`).
func (a *classifier) bodyHasStepLoop(f *pyparse.File, body *pyparse.Node) bool {
	found := false
	body.Walk(func(m *pyparse.Node) bool {
		if found || m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda" {
			return false
		}
		if m != body && (m.Kind() == "for_statement" || m.Kind() == "while_statement") {
			if a.classifyLoop(f, m).Kind != otherLoop {
				found = true
				return false
			}
		}
		if m.Kind() == "call" {
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
	// Cycles: assume not while computing. A function that performs a step outside its
	// loops (`optimizer.step()` after a loop over micro-batches) is one step, not a loop of
	// them.
	return remember(&a.eff, &a.hasStepLoop, r.fn, false, func() bool {
		return directStep(r.file, r.fn.Body) == "" && a.bodyHasStepLoop(r.file, r.fn.Body)
	})
}

var (
	reOptimStep = lazyregexp.New(`(?i)(optim|opt|scaler|engine|accelerator|scheduler)[\w]*\.step$`)
	// reUtilityVerb marks functions named like a model (`unwrap_model`, `get_peft_model`)
	// that prepare or load one rather than run it.
	reUtilityVerb = lazyregexp.New(`(^|_)(get|load|from|unwrap|dispatch|prepare|restore|build|create|init|save|to|convert|wrap|setup|make|copy|merge|freeze|print|log|register|patch|replace|compile|quantize|offload|move|resize|set|check|is|has)_`)
	reModelCall   = lazyregexp.New(`^(\w+\.)?(model|net|network|module|unet|transformer|encoder|decoder|generator|discriminator|policy|actor|critic|backbone|ddp_model|model_engine|engine|pipe|pipeline|[\w]*_model|[\w]*_net)$`)
)

// optimStep reports an optimizer, scaler or engine step, or a diffusion scheduler's denoising
// step (`scheduler.step(noise_pred, t, latents)`). A learning-rate scheduler's `step()`
// takes no step of work: it runs per step or per epoch, as the loop around it does.
func optimStep(f *pyparse.File, callee string, call *pyparse.Node) bool {
	if !reOptimStep.MatchString(callee) {
		return false
	}
	if strings.Contains(strings.ToLower(callee), "scheduler") {
		args := call.ChildByField("arguments")
		return args != nil && len(args.NamedChildren()) > 0 && !strings.Contains(strings.ToLower(callee), "lr_")
	}
	return true
}

// runsStep reports whether a block (not in nested defs) runs a training or inference step:
// `.backward()`, `optimizer.step()`, `scaler.step()`, a model forward, or a call of a project
// function that does. It returns a short description of the evidence.
func (a *classifier) runsStep(f *pyparse.File, body *pyparse.Node, depth int) string {
	return a.stepIn(f, body, depth, false)
}

// ownStep is runsStep for a loop's own body: step work in nested loops does not count.
func (a *classifier) ownStep(f *pyparse.File, body *pyparse.Node) string {
	return a.stepIn(f, body, 0, true)
}

// classReceiver reports a call on a class (`StateConfig.from_model(...)`): a constructor or
// class method, not a forward of a model instance.
func classReceiver(callee string) bool {
	head, _, dotted := strings.Cut(callee, ".")
	return dotted && head != "" && head[0] >= 'A' && head[0] <= 'Z'
}

func (a *classifier) stepIn(f *pyparse.File, body *pyparse.Node, depth int, own bool) string {
	if body == nil || depth > 4 {
		return ""
	}
	why := ""
	body.Walk(func(m *pyparse.Node) bool {
		if why != "" || m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda" ||
			own && m != body && (m.Kind() == "for_statement" || m.Kind() == "while_statement") {
			return false
		}
		if m.Kind() != "call" {
			return true
		}
		callee := pyparse.DottedName(m.ChildByField("function"), f.Src)
		switch {
		case strings.HasSuffix(callee, ".backward") || callee == "backward":
			why = "`" + callee + "()`"
		case optimStep(f, callee, m):
			why = "`" + callee + "()`"
		case reModelCall.MatchString(callee) && !reUtilityVerb.MatchString(callee[strings.LastIndex(callee, ".")+1:]) && !classReceiver(callee) && a.resolveCall(f, m) == nil:
			why = "`" + callee + "(...)`"
		case a.moduleForward(f, m, callee):
			// `self.forward(chunk)`, `self.model.forward(x)`: a module's forward is a model
			// forward, whatever the module's forward itself calls.
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
	return remember(&a.eff, &a.runsStepCache, depthKey{r.fn, depth}, "", func() string {
		v := a.runsStep(r.file, r.fn.Body, depth)
		// A function that loops over steps itself is not "one step".
		if v != "" && a.funcHasStepLoop(r) {
			v = ""
		}
		return v
	})
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

// reAvailability names a function that probes for a device: `torch.cuda.is_available`,
// `is_npu_available`.
var reAvailability = lazyregexp.New(`(^|\.)is_available$|(^|\.)is_\w+_available$`)

// recordField judges a condition on a field of records built once and never assigned
// afterwards (index.go, fieldCall):
// `spec.is_available()` where every record was built with a device probe is a device
// check, and `spec.empty_cache_fn` where every record was given a callable or none is
// fixed when the records were built. It returns "" when cond is neither.
func (a *classifier) recordField(f *pyparse.File, cond *pyparse.Node) string {
	n, call := cond, false
	if n.Kind() == "call" {
		if args := n.ChildByField("arguments"); args == nil || len(args.NamedChildren()) > 0 {
			return ""
		}
		n, call = n.ChildByField("function"), true
	}
	if n == nil || n.Kind() != "attribute" {
		return ""
	}
	recv, field, ok := strings.Cut(n.Text(f.Src), ".")
	p := a.g.Project
	if !ok || strings.Contains(field, ".") || !isIdentifier(recv) || recv == "self" || recv == "cls" || !p.classFields()[field] {
		return ""
	}
	if p.mutatedFields()[field] {
		return "" // set after construction somewhere (`state.should_save = True`): not fixed
	}
	ks := p.constructions(f, f.EnclosingFunction(cond), n.ChildByField("object"), 0)
	if len(ks) == 0 {
		return ""
	}
	for _, k := range ks {
		if !p.declaresField(k.file, k.call, field) {
			return ""
		}
		v := keywordArg(k.file, k.call, field)
		switch {
		case call && (v == nil || !reAvailability.MatchString(callableName(k.file, v))):
			return ""
		case !call && v != nil && v.Kind() != "none" && callableName(k.file, v) == "":
			return ""
		}
	}
	if call {
		return "a device check"
	}
	if ks[0].file != f {
		return fmt.Sprintf("fixed when its records were built (%s:%d)", ks[0].file.Path, ks[0].call.Line())
	}
	return fmt.Sprintf("fixed when its records were built (line %d)", ks[0].call.Line())
}

// moduleForward reports a call of a module's forward method: `x.forward(...)` where the
// method resolves to a `forward` of a project class that subclasses a torch module (its
// bases name `Module` or a `*PreTrainedModel`/`*Model` class), or to none that can be told
// apart (`self.model.forward(...)` on an attribute cachelint cannot type).
func (a *classifier) moduleForward(f *pyparse.File, call *pyparse.Node, callee string) bool {
	if !strings.HasSuffix(callee, ".forward") || classReceiver(callee) {
		return false
	}
	r := a.resolveCall(f, call)
	if r == nil {
		return true
	}
	if r.fn.Class == nil || r.fn.Name != "forward" {
		return false
	}
	for _, b := range a.g.Project.classBases(r.file, r.fn.Class) {
		if reModuleBase.MatchString(b) {
			return true
		}
	}
	return false
}

// reModuleBase: a base class that makes a torch module (`nn.Module`, `torch.nn.Module`,
// `PreTrainedModel`, `LlamaPreTrainedModel`, `ModelMixin`, `pl.LightningModule`).
var reModuleBase = lazyregexp.New(`(^|\.)(Module|\w*PreTrainedModel|\w*ModelMixin|LightningModule|\w*Model)$`)
