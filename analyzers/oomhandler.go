package analyzers

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/lazyregexp"
	"github.com/cachelint/cachelint/pyparse"
	"github.com/cachelint/cachelint/rules"
)

// OOMHandler reports out-of-memory handlers that clear the cache badly: CL005 when the
// handler re-runs the failed work before leaving the `except` block (the traceback still
// pins the failed attempt's tensors), CL006 when a RuntimeError/Exception/bare handler
// clears the cache without checking that the error is an OOM.
var OOMHandler = &driver.Analyzer{
	Name:     "oomhandler",
	Doc:      "reports OOM handlers that retry inside the except block (CL005) or catch more than OOM (CL006)",
	Requires: []*driver.Analyzer{CacheCalls},
	Run:      runOOMHandler,
}

const (
	helpRetryInside = "set a flag in the handler (`oom = True`), leave the `except` block, then call torch.cuda.empty_cache() and retry after the `try` statement, as the PyTorch FAQ shows"
	helpTooBroad    = "catch `torch.cuda.OutOfMemoryError` (PyTorch >= 1.13), or test `isinstance(e, torch.cuda.OutOfMemoryError)` and re-raise every other error"
)

var (
	// reOOMCheck matches a condition that tells an OOM from other errors: the message
	// test fairseq uses, an is_oom-style predicate, or an OOM flag.
	reOOMCheck = lazyregexp.New(`(?i)out of memory|outofmemory|out_of_memory|\boom\b|is_oom|oom_error|_oom\b`)
	// notWork are calls that a handler makes around the retry without re-running the failed
	// work: logging, cleanup and builtins, matched on the callee's last part.
	notWork = map[string]bool{
		"print": true, "len": true, "str": true, "repr": true, "isinstance": true, "type": true,
		"int": true, "float": true, "min": true, "max": true, "range": true, "enumerate": true,
		"zero_grad": true, "collect": true, "synchronize": true, "warn": true, "warning": true,
		"info": true, "debug": true, "error": true, "exception": true, "critical": true,
		"log": true, "format": true, "append": true, "items": true, "keys": true, "values": true,
		"get": true, "set_postfix": true, "sleep": true, "reset_peak_memory_stats": true,
	}
	notWorkPrefixes = []string{"torch.cuda.", "gc.", "logging.", "logger.", "log.", "warnings.", "time.", "os.", "sys.", "traceback."}
)

func runOOMHandler(pass *driver.Pass) (any, error) {
	g := pass.ResultOf[CacheCalls].(*CallGraph)
	clears := clearingCalls(g)
	// Each file's except clauses were collected by its model's walk (File.ExceptClauses).
	// A handler's findings are in its own file: those of files not reported are not looked
	// for.
	reported := pass.Settings.Reported
	for _, f := range g.Project.res.Files {
		if reported != nil && !reported(f.Path) {
			continue
		}
		for _, n := range f.ExceptClauses() {
			checkHandler(pass, g, f, n, clears)
		}
	}
	return nil, nil
}

// clearingCalls maps every call node that empties the cache, directly or through a
// project helper, to how it does so.
func clearingCalls(g *CallGraph) map[*pyparse.Node]string {
	out := map[*pyparse.Node]string{}
	for _, t := range g.Targets {
		out[t.Call.Node] = t.Spelling + "()"
	}
	for fn, edges := range g.Callers {
		for _, e := range edges {
			if _, ok := out[e.Call.Node]; !ok {
				out[e.Call.Node] = fn.Name + "()"
			}
		}
	}
	return out
}

// exceptKind is what an except clause catches, as far as OOM is concerned.
type exceptKind struct {
	text  string          // the type as written ("RuntimeError", "" for bare)
	value *pyparse.Node   // the type expression (nil for bare)
	elems []*pyparse.Node // the types, one per tuple element
	name  string          // the `as` name, "" when none
	oom   bool            // some element is an OutOfMemoryError
	broad *pyparse.Node   // the first element that catches every RuntimeError (nil: none)
	// memory is set for `except MemoryError`, which does not catch a CUDA OOM
	// (torch.OutOfMemoryError is a RuntimeError) but is written to handle one.
	memory bool
	bare   bool
}

// catchesOOM reports whether the clause is there to handle an out-of-memory error: it
// names an OutOfMemoryError or MemoryError, or catches every RuntimeError or Exception, or
// everything. Names are matched whole, after imports: `requests.RequestException` and
// `MyRuntimeErrorWrapper` are not OOM handlers.
func (k exceptKind) catchesOOM() bool {
	return k.bare || k.oom || k.memory || k.broad != nil
}

func exceptKindOf(f *pyparse.File, clause *pyparse.Node) exceptKind {
	k := exceptKind{}
	v := clause.ChildByField("value")
	if v == nil {
		for _, c := range clause.NamedChildren() {
			if c.Kind() != "block" && c.Kind() != "comment" {
				v = c
				break
			}
		}
	}
	if v == nil {
		k.bare = true
		return k
	}
	if v.Kind() == "as_pattern" {
		if a := v.ChildByField("alias"); a != nil {
			k.name = strings.TrimSpace(a.Text(f.Src))
		}
		if inner := v.NamedChildren(); len(inner) > 0 {
			v = inner[0]
		}
	}
	k.value, k.text = v, v.Text(f.Src)
	k.elems = []*pyparse.Node{v}
	if v.Kind() == "tuple" || v.Kind() == "parenthesized_expression" {
		k.elems = nil
		for _, c := range v.NamedChildren() {
			if c.Kind() != "comment" {
				k.elems = append(k.elems, c)
			}
		}
	}
	for _, e := range k.elems {
		q := f.Qualify(pyparse.DottedName(e, f.Src))
		switch {
		case strings.HasSuffix(q, "OutOfMemoryError"):
			k.oom = true
		case isBroadException(q) && k.broad == nil:
			k.broad = e
		case strings.TrimPrefix(q, "builtins.") == "MemoryError":
			k.memory = true
		}
	}
	return k
}

func isBroadException(q string) bool {
	switch strings.TrimPrefix(q, "builtins.") {
	case "RuntimeError", "Exception", "BaseException":
		return true
	}
	return false
}

// walkOwn visits the nodes of a block that run as part of it: nested definitions and
// lambdas are skipped, since their bodies run later, if at all.
func walkOwn(n *pyparse.Node, fn func(*pyparse.Node)) {
	n.Walk(func(m *pyparse.Node) bool {
		if m != n && (m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda") {
			return false
		}
		fn(m)
		return true
	})
}

func checkHandler(pass *driver.Pass, g *CallGraph, f *pyparse.File, clause *pyparse.Node, clears map[*pyparse.Node]string) {
	k := exceptKindOf(f, clause)
	if !k.bare && !k.oom && k.broad == nil {
		return // cannot catch an OOM
	}
	body := handlerBody(clause)
	try := clause.Parent()
	if body == nil || try == nil || try.Kind() != "try_statement" {
		return
	}
	var clear *pyparse.Node
	walkOwn(body, func(m *pyparse.Node) {
		if _, ok := clears[m]; ok && m.Kind() == "call" && clear == nil {
			clear = m
		}
	})
	if clear == nil {
		return // not a cache-clearing handler: not ours to judge
	}
	retry, failed := findRetry(g, f, try, body, clear, clears)
	fnName := functionName(f.EnclosingFunction(clause))
	if retry != nil {
		reportRetry(pass, f, clause, clear, clears[clear], retry, failed, fnName, false)
	} else if k.oom || k.memory {
		// A handler for OOM alone that computes the failed result another way on the same
		// inputs (a tiled fallback) runs it while the failed attempt's memory is held.
		if fb, w := findFallback(g, f, try, body, clear, clears); fb != nil {
			reportRetry(pass, f, clause, clear, clears[clear], fb, w, fnName, true)
		}
	}
	// Too broad only when the handler retries: a broad handler that clears and then logs,
	// re-raises, skips the item or falls back to other work hides no error behind a retry.
	if (k.bare || k.broad != nil) && (retry != nil || retryLoop(try, body)) && !checksOOM(f, body, k) && !reportsError(f, body, k) {
		reportTooBroad(pass, f, clause, k, clear, clears[clear], fnName)
	}
}

// handlerBody is an except clause's block.
func handlerBody(clause *pyparse.Node) *pyparse.Node {
	if body := clause.ChildByField("body"); body != nil {
		return body
	}
	var body *pyparse.Node
	for _, c := range clause.NamedChildren() {
		if c.Kind() == "block" {
			body = c
		}
	}
	return body
}

// retryLoop reports a try that a loop repeats until it succeeds: the try sits in a loop's
// body, leaves the loop when its work succeeds (a `break` or `return` in the try body or its
// else clause), and the handler lets the loop go round again (no raise, return or break of
// its own).
func retryLoop(try, handler *pyparse.Node) bool {
	loop := try.Parent()
	if loop != nil && loop.Kind() == "block" {
		loop = loop.Parent()
	}
	if loop == nil || (loop.Kind() != "for_statement" && loop.Kind() != "while_statement") {
		return false
	}
	leaves := func(n *pyparse.Node, kinds ...string) bool {
		found := false
		walkOwn(n, func(m *pyparse.Node) {
			if slices.Contains(kinds, m.Kind()) && (m.Kind() != "break_statement" || !insideLoop(m, n)) {
				found = true
			}
		})
		return found
	}
	exits := leaves(try.ChildByField("body"), "break_statement", "return_statement")
	for _, c := range try.NamedChildren() {
		if c.Kind() == "else_clause" {
			exits = exits || leaves(c, "break_statement", "return_statement")
		}
	}
	return exits && !leaves(handler, "raise_statement", "return_statement", "break_statement")
}

// insideLoop reports whether m sits in a loop nested inside top (its break ends that loop).
func insideLoop(m, top *pyparse.Node) bool {
	for p := m.Parent(); p != nil && p != top; p = p.Parent() {
		if p.Kind() == "for_statement" || p.Kind() == "while_statement" {
			return true
		}
	}
	return false
}

// findRetry returns the call in the handler that re-runs the failed work after the cache
// is cleared: a call of a function the try body called, or of the enclosing function
// itself (a recursive retry). failed is the try body's call it repeats (nil for recursion).
func findRetry(g *CallGraph, f *pyparse.File, try, handler, clear *pyparse.Node, clears map[*pyparse.Node]string) (retry, failed *pyparse.Node) {
	work := failedWork(g, f, try, clears)
	if work == nil {
		return nil, nil
	}
	self := f.EnclosingFunction(try)
	walkOwn(handler, func(m *pyparse.Node) {
		if retry != nil || m.Kind() != "call" {
			return
		}
		if _, ok := clears[m]; ok || !afterClear(m, clear, handler) {
			return
		}
		c := f.CallOf(m)
		if c == nil {
			return
		}
		if q := g.Project.qualifiedCallee(f, c); q != "" {
			if w, ok := work[q]; ok {
				retry, failed = m, w
				return
			}
		}
		if self != nil && callsItself(g, f, c, self) {
			retry = m
		}
	})
	return retry, failed
}

// failedWork is the work a try body attempts, by qualified callee: the calls of its first
// statement that does any (what comes after it, `_adjust_batch_size(...)` in Lightning's
// batch-size finder, is bookkeeping the handler may well do again without retrying
// anything). nil when the try has no body.
func failedWork(g *CallGraph, f *pyparse.File, try *pyparse.Node, clears map[*pyparse.Node]string) map[string]*pyparse.Node {
	tryBody := try.ChildByField("body")
	if tryBody == nil {
		return nil
	}
	work := map[string]*pyparse.Node{}
	for _, stmt := range tryBody.NamedChildren() {
		walkOwn(stmt, func(m *pyparse.Node) {
			if m.Kind() != "call" {
				return
			}
			if _, ok := clears[m]; ok {
				return
			}
			c := f.CallOf(m)
			if c == nil {
				return
			}
			if q := g.Project.qualifiedCallee(f, c); q != "" && isWork(q) {
				if _, seen := work[q]; !seen {
					work[q] = m
				}
			}
		})
		if len(work) > 0 {
			break
		}
	}
	return work
}

// findFallback finds, in a handler, the call after the clear that runs the failed work's
// inputs again by other means (`_tiled_attention(query, key, value)` after
// `sdpa(query, key, value)` ran out of memory): it passes two or more of the failed call's
// positional arguments. The inputs, and all the failed attempt held, are still alive there.
func findFallback(g *CallGraph, f *pyparse.File, try, handler, clear *pyparse.Node, clears map[*pyparse.Node]string) (fallback, failed *pyparse.Node) {
	work := failedWork(g, f, try, clears)
	walkOwn(handler, func(m *pyparse.Node) {
		if fallback != nil || m.Kind() != "call" {
			return
		}
		if _, ok := clears[m]; ok || !afterClear(m, clear, handler) {
			return
		}
		if c := f.CallOf(m); c == nil || !isWork(g.Project.qualifiedCallee(f, c)) {
			return // a log line that names the inputs runs nothing
		}
		args := positionalNames(f, m)
		for _, w := range work {
			shared := 0
			for a := range positionalNames(f, w) {
				if args[a] {
					shared++
				}
			}
			if shared >= 2 {
				fallback, failed = m, w
				return
			}
		}
	})
	return fallback, failed
}

// positionalNames are the plain names a call passes as positional arguments.
func positionalNames(f *pyparse.File, call *pyparse.Node) map[string]bool {
	out := map[string]bool{}
	if args := call.ChildByField("arguments"); args != nil {
		for _, a := range args.NamedChildren() {
			if a.Kind() == "identifier" {
				out[a.Text(f.Src)] = true
			}
		}
	}
	return out
}

func isWork(q string) bool {
	if notWork[q[strings.LastIndex(q, ".")+1:]] {
		return false
	}
	for _, p := range notWorkPrefixes {
		if strings.HasPrefix(q, p) {
			return false
		}
	}
	return true
}

// afterClear reports whether the call runs after the cache clear: later in the handler,
// or in the same loop inside the handler (the next iteration follows the clear).
func afterClear(call, clear, handler *pyparse.Node) bool {
	if call.Start >= clear.End {
		return true
	}
	for m := clear.Parent(); m != nil && m != handler; m = m.Parent() {
		if (m.Kind() == "for_statement" || m.Kind() == "while_statement") && m.Contains(call) {
			return true
		}
	}
	return false
}

func callsItself(g *CallGraph, f *pyparse.File, c *pyparse.Call, self *pyparse.Function) bool {
	if r := g.Project.resolve(f, c); r != nil {
		return r.fn == self
	}
	switch c.Callee {
	case self.Name:
		return self.Class == nil
	case "self." + self.Name, "cls." + self.Name:
		return self.Class != nil
	}
	return false
}

// reportsError reports whether a broad handler passes the error on to whoever waits for
// the work: it hands the exception object to a call that is not logging
// (`queue.put(Response(error=e))`, `future.set_exception(e)`). Such an `except Exception`
// handler is an error path that also frees memory; it hides no error behind a retry.
func reportsError(f *pyparse.File, body *pyparse.Node, k exceptKind) bool {
	if k.bare || k.broad == nil || strings.HasSuffix(k.broad.Text(f.Src), "BaseException") {
		return false // it also swallows KeyboardInterrupt and SystemExit, reported or not
	}
	found := false
	walkOwn(body, func(m *pyparse.Node) {
		if found || m.Kind() != "call" {
			return
		}
		callee := pyparse.DottedName(m.ChildByField("function"), f.Src)
		if k.name == "" || !isWork(callee) || callee == "str" || callee == "repr" {
			return // logging it is not passing it on: the work carries on as if it were OOM
		}
		if args := m.ChildByField("arguments"); args != nil {
			args.Walk(func(a *pyparse.Node) bool {
				if a.Kind() == "identifier" && a.Text(f.Src) == k.name {
					found = true
				}
				return !found
			})
		}
	})
	return found
}

// checksOOM reports whether a broad handler tells OOM apart from other errors, or lets
// everything propagate anyway: an OOM test in a condition, a re-raise that depends on the
// exception, or an unconditional raise at the handler's top level.
func checksOOM(f *pyparse.File, body *pyparse.Node, k exceptKind) bool {
	return propagates(f, body) || testsOOM(f, body, k)
}

// propagates reports a handler that ends by raising at its top level: a `raise`, or
// pytest.skip(), pytest.fail(), sys.exit().
func propagates(f *pyparse.File, body *pyparse.Node) bool {
	for _, stmt := range body.NamedChildren() {
		if stmt.Kind() == "raise_statement" {
			return true
		}
		if stmt.Kind() == "expression_statement" {
			if c := stmt.NamedChildren(); len(c) == 1 && c[0].Kind() == "call" {
				switch pyparse.DottedName(c[0].ChildByField("function"), f.Src) {
				case "pytest.skip", "pytest.fail", "pytest.exit", "sys.exit", "exit", "os._exit", "self.skipTest", "unittest.SkipTest":
					return true
				}
			}
		}
	}
	return false
}

// testsOOM reports a broad handler that tells OOM apart from other errors: an OOM test in a
// condition, or a re-raise that depends on the exception.
func testsOOM(f *pyparse.File, body *pyparse.Node, k exceptKind) bool {
	var reName *regexp.Regexp
	if k.name != "" {
		reName = regexp.MustCompile(`\b` + regexp.QuoteMeta(k.name) + `\b`)
	}
	found := false
	walkOwn(body, func(m *pyparse.Node) {
		if found {
			return
		}
		var cond *pyparse.Node
		switch m.Kind() {
		case "if_statement", "elif_clause", "while_statement":
			cond = m.ChildByField("condition")
		case "conditional_expression", "assert_statement":
			cond = m
		case "call":
			if pyparse.DottedName(m.ChildByField("function"), f.Src) == "isinstance" && strings.Contains(m.Text(f.Src), "OutOfMemoryError") {
				found = true
			}
			return
		default:
			return
		}
		if cond == nil {
			return
		}
		t := cond.Text(f.Src)
		if reOOMCheck.MatchString(t) || strings.Contains(t, "OutOfMemoryError") {
			found = true
			return
		}
		// `if not <test of e>: raise` discriminates errors even with another wording.
		if reName != nil && reName.MatchString(t) && m.Kind() != "conditional_expression" && m.Kind() != "assert_statement" {
			if m.Find(func(n *pyparse.Node) bool { return n.Kind() == "raise_statement" }) != nil {
				found = true
			}
		}
	})
	return found
}

func snippet(f *pyparse.File, n *pyparse.Node) string {
	return strings.Join(strings.Fields(n.Text(f.Src)), " ")
}

func shortText(f *pyparse.File, n *pyparse.Node) string {
	s := snippet(f, n)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func calleeText(f *pyparse.File, call *pyparse.Node) string {
	if d := pyparse.DottedName(call.ChildByField("function"), f.Src); d != "" {
		return d + "()"
	}
	return shortText(f, call)
}

func reportRetry(pass *driver.Pass, f *pyparse.File, clause, clear *pyparse.Node, how string, retry, failed *pyparse.Node, fnName string, fallback bool) {
	stmt := retry.Statement()
	what := fmt.Sprintf("re-runs `%s`, the work that failed,", calleeText(f, retry))
	switch {
	case fallback:
		what = fmt.Sprintf("runs `%s` on the inputs of `%s`, the work that failed,", calleeText(f, retry), calleeText(f, failed))
	case failed == nil:
		what = fmt.Sprintf("retries by calling `%s` again", calleeText(f, retry))
	}
	msg := fmt.Sprintf("%s inside the except block (handler at line %d): until the handler ends, the exception's traceback keeps the failed attempt's tensors alive, so %s frees little and the retry can run out of memory again", what, clause.Line(), how)
	d := driver.Diagnostic{
		Pos: f.Pos(int(stmt.Start)), End: f.Pos(int(stmt.End)), Code: rules.CL005, Message: msg,
		Label: "retried while the failed attempt's memory is still held", Help: helpRetryInside,
		Function: fnName, Snippet: snippet(f, stmt),
		Related: []driver.Related{{
			Pos: f.Pos(int(clear.Start)), End: f.Pos(int(clear.End)), Message: how + " clears the cache here, while the exception is still alive",
		}},
	}
	if failed != nil {
		d.Related = append(d.Related, driver.Related{
			Pos: f.Pos(int(failed.Start)), End: f.Pos(int(failed.End)), Message: "the attempt that failed",
		})
	}
	pass.Report(d)
}

func reportTooBroad(pass *driver.Pass, f *pyparse.File, clause *pyparse.Node, k exceptKind, clear *pyparse.Node, how string, fnName string) {
	caught, every := "bare `except:`", "every exception"
	if !k.bare {
		caught = "`except " + k.text + "`"
		every = "every " + f.Qualify(pyparse.DottedName(k.broad, f.Src))
	}
	msg := fmt.Sprintf("%s catches more than OOM: it calls %s and retries for %s (shape errors, device-side asserts, NCCL failures), which hides the real error behind a retry", caught, how, every)
	header := clause
	end := clause.Start
	for c := range clause.Children() {
		if c.Kind() == ":" {
			end = c.End
			break
		}
	}
	if end == clause.Start {
		end = header.End
	}
	label := "catches every error, not only OOM"
	if !k.bare {
		label = "catches every " + pyparse.DottedName(k.broad, f.Src) + ", not only OOM"
	}
	d := driver.Diagnostic{
		Pos: f.Pos(int(clause.Start)), End: f.Pos(int(end)), Code: rules.CL006, Message: msg,
		Label: label, Help: helpTooBroad, Function: fnName, Snippet: snippet(f, header),
		Related: []driver.Related{{
			Pos: f.Pos(int(clear.Start)), End: f.Pos(int(clear.End)), Message: how + " runs here for every caught error",
		}},
	}
	if fix, ok := narrowExceptFix(f, clause, k); ok {
		d.Fix = fix
	}
	pass.Report(d)
}

// narrowExceptFix replaces the broad type with torch.cuda.OutOfMemoryError, spelt through
// the file's own torch import. A tuple that already names an OOM type, or holds several
// broad types, gets no fix: what to keep is the author's call.
func narrowExceptFix(f *pyparse.File, clause *pyparse.Node, k exceptKind) (*driver.Fix, bool) {
	name := oomTypeSpelling(f)
	if name == "" || k.oom {
		return nil, false
	}
	fix := &driver.Fix{Message: "catch " + name + " instead"}
	if k.bare {
		for c := range clause.Children() {
			if c.Kind() == "except" {
				fix.Edits = []driver.Edit{{Pos: f.Pos(int(c.End)), End: f.Pos(int(c.End)), NewText: " " + name}}
				return fix, true
			}
		}
		return nil, false
	}
	broad := 0
	for _, e := range k.elems {
		if isBroadException(f.Qualify(pyparse.DottedName(e, f.Src))) {
			broad++
		}
	}
	if broad != 1 {
		return nil, false
	}
	fix.Edits = []driver.Edit{{Pos: f.Pos(int(k.broad.Start)), End: f.Pos(int(k.broad.End)), NewText: name}}
	return fix, true
}

// oomTypeSpelling names torch.cuda.OutOfMemoryError the way the file can reach it: an
// imported OutOfMemoryError, an imported torch.cuda, or torch under its alias. "" when the
// file does not import torch. Module-level imports are preferred over function-local ones.
func oomTypeSpelling(f *pyparse.File) string {
	for _, moduleLevel := range []bool{true, false} {
		best, rank := "", 0
		for _, imp := range f.Imports {
			if moduleLevel && !atModuleLevel(imp.Node) {
				continue
			}
			switch {
			case (imp.Qualified == "torch.cuda.OutOfMemoryError" || imp.Qualified == "torch.OutOfMemoryError") && rank < 3:
				best, rank = imp.Local, 3
			case imp.Qualified == "torch.cuda" && rank < 2:
				best, rank = imp.Local+".OutOfMemoryError", 2
			case imp.Qualified == "torch" && rank < 1:
				best, rank = imp.Local+".cuda.OutOfMemoryError", 1
			}
		}
		if best != "" {
			return best
		}
	}
	return ""
}

func atModuleLevel(n *pyparse.Node) bool {
	return n != nil && n.Parent() != nil && n.Parent().Kind() == "module"
}
