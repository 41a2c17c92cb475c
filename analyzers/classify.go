package analyzers

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/lazyregexp"
	"github.com/cachelint/cachelint/internal/parallel"
	"github.com/cachelint/cachelint/pyparse"
	"github.com/cachelint/cachelint/rules"
)

// Classify gives every cache-emptying call a frequency (SPEC §3) and a pattern (SPEC §4),
// following helpers to the loops and hooks that call them. Its result is the list of
// records `cachelint calls` prints and StepLoop reports from.
var Classify = &driver.Analyzer{
	Name:     "classify",
	Doc:      "classifies each cache-emptying call by how often it runs and which legitimate use it matches",
	Requires: []*driver.Analyzer{CacheCalls},
	Run:      runClassify,
}

// reStepFuncName names functions that run one step: `train_step`, `training_step`,
// `valid_step`, `train_batch`, `run_batch`, `step`, `update_step`, `forward_backward`.
var reStrongStepName = lazyregexp.New(`^_*(train_step|training_step|train_batch|train_on_batch|valid_step|validation_step|eval_step|forward_backward|fwd_bwd|forward_backward_step)$`)

var reStepFuncName = lazyregexp.New(`(?i)^_*(step|(train|training|eval|valid|validation|val|test|predict|inference|infer|update|optim|optimizer|opt|forward_backward|fwd_bwd|run|process|micro)_?(step|batch|iter|iteration)|forward_backward|train_on_batch|fwd_bwd)$`)

// Frequency is how often a call runs.
type Frequency string

const (
	PerIteration Frequency = "per_iteration"
	Periodic     Frequency = "periodic"
	PerEpoch     Frequency = "per_epoch"
	Once         Frequency = "once"
	Unknown      Frequency = "unknown"
)

// Record is one classified call site: a direct cache-emptying call, or a call of a helper.
type Record struct {
	File *pyparse.File
	Call *pyparse.Call
	// Callee is the name as written at the site, qualified through imports.
	Callee string
	// Via is the chain of helpers from the site to the cache-emptying call (empty for a
	// direct call); Via[0] is the helper called at the site.
	Via []*Edge
	// Target is the cache-emptying call the chain ends in.
	Target *Target
	Role   string // "call" or "helper_body"

	Frequency Frequency
	Period    int
	Pattern   Pattern
	Rule      string // "" when nothing is reported
	// Loop is the governing loop (nil for hooks and code outside loops), in LoopFile when
	// that is not File (a base class's loop that runs the override this call sits in).
	Loop     *loop
	LoopFile *pyparse.File
	// Through is the call in a base class that runs the override this record sits in.
	Through *Edge
	// Hook names the framework hook that makes this per-step or per-epoch, if any.
	Hook string
	// Gate is the condition that made the call periodic or once-per-loop.
	Gate *gate
	// Named is a condition that does not thin the call out but that the message names: a
	// user's opt-in (`if args.empty_cache:`) or a rank check.
	Named  *gate
	Reason string
}

// Classification is Classify's result.
type Classification struct {
	Records []*Record
	Graph   *CallGraph
	// Cut are the cache-emptying calls whose callers were not all followed: more than
	// maxRecordsPerTarget call sites lead to them. The engine warns about each.
	Cut []*Target
	// Errors are panics caught while classifying one call, naming its file.
	Errors []error
	// Followed is how many of Graph's targets were followed: those whose records can fall
	// in a reported file (reach).
	Followed int
}

// InternalErrors lets the driver report the panics caught here.
func (c *Classification) InternalErrors() []error { return c.Errors }

// guard runs fn and turns a panic into an internal error naming the file, so the run goes
// on with the other files and still exits 2.
func guard(errs *[]error, file string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			*errs = append(*errs, fmt.Errorf("internal error while analysing %s: %v", file, v))
		}
	}()
	fn()
}

type classifier struct {
	g         *CallGraph
	stepNames map[string]bool
	// eff is what the effect memos share (effects.go): loops, hasStepLoop, runsStepCache,
	// runsWhole, loads and requests recurse through functions, so their answers are kept
	// only when no cycle or depth bound cut them short.
	eff           effects
	loops         effectMemo[*pyparse.Node, *loop]
	hasStepLoop   effectMemo[*pyparse.Function, bool]
	runsStepCache effectMemo[depthKey, string]
	runsWhole     effectMemo[depthKey, bool]
	resolved      map[*pyparse.Node]*funcRef
	// registered maps the functions handed to a torch hook registrar to their registration
	// (built on first use, once for the classifier and prewarm's workers: a walk of every
	// parsed call, 13 ms of CPU of diffusers' edited run when each built its own).
	registered *registrationTable
	// clears maps every cache-emptying call node to its spelling (built on first use).
	clears map[*pyparse.Node]string
	// loads memoizes, per function, how it loads a model (loadEffect).
	loads effectMemo[*pyparse.Function, loadEffect]
	// prompts memoizes promptMethod; methods lists the methods it reads by name (built on
	// first use, shared by prewarm's classifiers).
	prompts map[string]string
	methods map[string][]*funcRef
	// frees memoizes freesIn.
	frees map[*pyparse.Function]string
	// requests memoizes requestOnly.
	requests effectMemo[depthKey, string]
	// bindings indexes each file's assignments to plain names (bindingsOf).
	bindings map[*pyparse.File]map[string][]binding
	// walked remembers each function whose callers one cache call was followed to, with what
	// it passed up, and whether a rule or pattern was found there: another cache call of the
	// same function passing up the same is not followed again. Without it a chain of N
	// helpers that each empty the cache made O(N^2) records with O(N) chains each.
	walked map[walkKey]walkDone
	// inheritIDs and inheritTexts intern what walk keys inherit (inheritID): follow asks at
	// every record that goes up, and building the key's text each time was a quarter of it.
	inheritIDs   map[inheritKey]int32
	inheritTexts map[string]int32
	// again remembers, for the cache call being followed, each walk to a function's callers
	// with what it passed up and the chain of helpers below (againKey): a second call of
	// the same helper in the same function, reached by the same chain, walks up again only
	// to make the same records along chains of the same helpers, which dedupe drops (unsloth:
	// 31,000 records made, 7,400 kept). produced counts the records made for it so far, the
	// ones such a walk would have made included: the cap on them (maxRecordsPerTarget) falls
	// where it would.
	again    map[againKey]againDone
	produced int
	// recs are the records made so far, in order: follow appends each record it makes,
	// its callers' records after it, instead of each level copying its callers' up.
	recs []*Record
	// oomLoops and exits remember what was read from a loop body or a statement for one
	// call, for the other calls in it: read per call, a long loop cost its length squared.
	oomLoops map[*pyparse.Node]bool
	// patterns memoizes patternOf per call node: a helper's call sites are classified once
	// per cache call that reaches them, and the pattern depends on the site alone.
	patterns map[patternKey]patternResult
	// steps, inputs and takes memoize directStep, readsInput and takesRequest per loop body:
	// the patterns of every call in a loop asked them again (a 10,000-line step loop with a
	// clear on every line took minutes).
	steps, inputs, takes map[*pyparse.Node]string
	// ownPattern marks the clears whose pattern is their function's own business (a helper
	// that measures what its own clear frees): its callers do not inherit it.
	ownPattern map[*pyparse.Node]bool
	// web caches servesWeb per file.
	web map[*pyparse.File]bool
	// hooks memoizes hookOf per function: it reads every call of the function's file, once
	// for each record followed through the function.
	hooks map[*pyparse.Function]hookAnswer
	// others memoizes otherCallers, loaders loadsByName, per function.
	others  map[*pyparse.Function][]*Edge
	loaders map[*pyparse.Function]bool
	// closed memoizes closedFor per site and call of its helper.
	closed map[closedKey]bool
	// freqs memoizes frequency per call node and whether its function has other callers
	// (siteFrequency): prewarm reads it for every site, follow again for each record.
	freqs map[freqKey]siteFreq
	// contexts memoizes contextOf per call node: a site reached by several clears or chains
	// is followed once for each (unsloth: 8,432 records at 992 sites). Nothing changes a
	// context once built; copies are made where one is narrowed.
	contexts map[*pyparse.Node]*localContext
	// conds memoizes condKind per condition and polarity: every call in a branch, and every
	// record followed through it, reads the same conditions (its regular expressions were a
	// tenth of a cold run on unsloth).
	conds      map[condKey]condResult
	exits      map[*pyparse.Node][]*pyparse.Node
	blockExits map[*pyparse.Node][]*pyparse.Node
	// withs memoizes exitingWiths per block, leaves leaving, conts continues.
	withs, leaves map[*pyparse.Node][]*pyparse.Node
	conts         map[*pyparse.Node]bool
	// cut are the calls whose callers were not all followed (maxRecordsPerTarget).
	cut map[*Target]bool
	// stopped are the targets follow does not go up from (stopsUp): only their own
	// record can be reported.
	stopped map[*Target]bool
	// literals memoizes bindLiterals per helper and call (closedFor); callees
	// qualifiedCallee per call (siteCallee).
	literals map[literalsKey]map[string]string
	callees  map[*pyparse.Node]string
}

// walkKey is a function and what a cache call in it passes up to its callers (inherits:
// inherited.key's text, interned by inheritID).
type walkKey struct {
	fn       *pyparse.Function
	inherits int32
	// cuda keeps a cuda call walked when a non-cuda one of the same helper was: the site's
	// finding names the cuda spelling.
	cuda bool
}

type walkDone struct {
	target *Target
	judged bool
}

// reuseWalks lets follow take a walk it made for a cache call from another call of the same
// helper (again); tests turn it off to compare.
var reuseWalks = true

// againKey is a walk to fn's callers (walk) from below a chain of helpers (chain: the
// helpers' functions, bottom last, as bytes).
type againKey struct {
	walk  walkKey
	chain string
}

// againDone is what such a walk made: how many records, and whether one was judged.
type againDone struct {
	records int
	judged  bool
}

// helperChain names the helpers of a chain, in order, by their functions.
func helperChain(via []*Edge) string {
	b := make([]byte, 0, 8*len(via))
	for _, e := range via {
		b = binary.LittleEndian.AppendUint64(b, uint64(uintptr(unsafe.Pointer(e.Callee))))
	}
	return string(b)
}

// registration is one `module.register_forward_hook(fn)`: PyTorch calls fn by itself.
type registration struct {
	file *pyparse.File
	call *pyparse.Call
	why  string
}

// registrations finds every function the parsed files hand to a torch hook registrar
// (registrars), resolved by binding: `register_forward_hook(self._hook)`,
// `register_hook(functools.partial(clear, name))`.
func (a *classifier) registrations() map[*pyparse.Function]*registration {
	t := a.registered
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m != nil {
		return t.m
	}
	m := map[*pyparse.Function]*registration{}
	p := a.g.Project
	for _, f := range p.res.Files {
		for _, c := range f.Calls {
			if !strings.HasSuffix(c.Callee, "hook") { // every registrar's name does
				continue
			}
			why, ok := registrars[c.Callee[strings.LastIndex(c.Callee, ".")+1:]]
			if !ok || c.Args == nil {
				continue
			}
			hook := hookArgument(f, c.Args)
			if hook == nil {
				continue
			}
			if r := p.resolveName(f, c.Function, pyparse.DottedName(hook, f.Src), 0); r != nil {
				if _, seen := m[r.fn]; !seen {
					m[r.fn] = &registration{file: f, call: c, why: why}
				}
			}
		}
	}
	t.m = m
	return m
}

// registrationTable is registrations' answer, built once for every classifier given it
// (any of them builds the same: a worker's lookups are the project's); one whose building
// failed (prewarm recovers a worker's failure) is built again by the next to ask.
type registrationTable struct {
	mu sync.Mutex
	m  map[*pyparse.Function]*registration
}

// hookArgument is the function a registrar is given: its first positional argument or
// `hook=`, seen through `functools.partial(fn, ...)`.
func hookArgument(f *pyparse.File, args *pyparse.Node) *pyparse.Node {
	var hook *pyparse.Node
	for i, a := range args.NamedChildren() {
		if a.Kind() == "keyword_argument" {
			if n := a.ChildByField("name"); n != nil && n.Text(f.Src) == "hook" {
				hook = a.ChildByField("value")
			}
			continue
		}
		if i == 0 {
			hook = a
		}
	}
	if hook != nil && hook.Kind() == "call" {
		if fn := hook.ChildByField("function"); fn != nil && strings.HasSuffix(f.Qualify(pyparse.DottedName(fn, f.Src)), "functools.partial") {
			if inner := hook.ChildByField("arguments"); inner != nil && len(inner.NamedChildren()) > 0 {
				hook = inner.NamedChildren()[0]
			}
		}
	}
	if hook == nil || (hook.Kind() != "identifier" && hook.Kind() != "attribute") {
		return nil
	}
	return hook
}

func runClassify(pass *driver.Pass) (any, error) {
	g := pass.ResultOf[CacheCalls].(*CallGraph)
	return classify(pass.Context, g, pass.Settings.StepLoopNames, pass.Settings.Jobs, pass.Settings.Reported)
}

// classify gives the targets of g their records, reading the sites on jobs goroutines
// (prewarm) and following them up to their callers in order. With reported set, only the
// targets whose records can fall in a reported file are followed (reach).
func classify(ctx context.Context, g *CallGraph, stepLoopNames []string, jobs int, reported func(string) bool) (*Classification, error) {
	a := newClassifier(g, stepLoopNames)
	targets, through := reach(g, reported)
	if reported != nil {
		if a.stopped = a.stopsUp(targets, reported); len(a.stopped) > 0 {
			var fns []*pyparse.Function
			for _, t := range targets {
				if !a.stopped[t] && t.Call.Function != nil {
					fns = append(fns, t.Call.Function)
				}
			}
			through = upward(g, fns)
		}
	}
	region := trace.StartRegion(ctx, "prewarm")
	a.prewarm(targets, through, jobs)
	region.End()
	region = trace.StartRegion(ctx, "follow")
	out := &Classification{Graph: g, Followed: len(targets)}
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// A bug on one call must not cost the others their classification.
		if a.again == nil {
			a.again = map[againKey]againDone{}
		}
		clear(a.again)
		a.produced = 0
		start, failed := len(out.Records), len(out.Errors)
		a.recs = out.Records
		guard(&out.Errors, t.File.Path, func() {
			a.follow(t, t.File, t.Call, nil, inherited{}, map[*pyparse.Function]bool{})
		})
		if out.Records = a.recs; len(out.Errors) > failed {
			out.Records = out.Records[:start] // a call that failed has no records
		}
	}
	for _, t := range g.Targets {
		if a.cut[t] {
			out.Cut = append(out.Cut, t)
		}
	}
	region.End()
	defer trace.StartRegion(ctx, "dedupe and sort").End()
	if reported != nil {
		// The records of files not reported are not shown; dedupe keys a record by its site,
		// so leaving them out first leaves the others as they were.
		out.Records = slices.DeleteFunc(out.Records, func(r *Record) bool { return !reported(r.File.Path) })
	}
	out.Records = dedupe(out.Records)
	sort.SliceStable(out.Records, func(i, j int) bool {
		ri, rj := out.Records[i], out.Records[j]
		if ri.File.Path != rj.File.Path {
			return ri.File.Path < rj.File.Path
		}
		return ri.Call.Node.Start < rj.Call.Node.Start
	})
	return out, nil
}

// reach is what classify follows when only the files reported matters: the targets
// whose records can fall in such a file, and the functions follow can go up through from
// them. follow records a target's own site and the call sites it goes up through, one
// helper's callers after another (an override's records are moved to the site it went up
// from), so a target matters when its own file is reported or a reported file calls a
// helper it can go up through: that helper's callers are read at the reported site.
// Whether follow does go up at a site (a call that runs once per call of its function)
// is not asked: reach may keep a target whose records all fall elsewhere, never leave out
// one with a record in a reported file. What one target's walk leaves for another
// (walked) is at functions whose callers a left-out target reads, none of them reported.
// With reported nil every target matters, and prewarm reads the callers of every helper.
func reach(g *CallGraph, reported func(string) bool) ([]*Target, map[*pyparse.Function]bool) {
	if reported == nil {
		return g.Targets, g.Helpers
	}
	// calls lists, for each function, the helpers it calls: going up from a helper to its
	// callers is going from the callee to the caller's function, so a function whose
	// callers lead to a reported site hands that on to the helpers it calls.
	calls := map[*pyparse.Function][]*pyparse.Function{}
	var leads []*pyparse.Function
	leadsUp := map[*pyparse.Function]bool{}
	for fn, edges := range g.Callers {
		for _, e := range edges {
			calls[e.Call.Function] = append(calls[e.Call.Function], fn)
			if !leadsUp[fn] && reported(e.File.Path) {
				leadsUp[fn] = true
				leads = append(leads, fn)
			}
		}
	}
	for len(leads) > 0 {
		fn := leads[len(leads)-1]
		leads = leads[:len(leads)-1]
		for _, callee := range calls[fn] {
			if !leadsUp[callee] {
				leadsUp[callee] = true
				leads = append(leads, callee)
			}
		}
	}
	var targets []*Target
	var fns []*pyparse.Function
	for _, t := range g.Targets {
		fn := t.Call.Function
		if !reported(t.File.Path) && (fn == nil || !leadsUp[fn]) {
			continue
		}
		targets = append(targets, t)
		if fn != nil {
			fns = append(fns, fn)
		}
	}
	return targets, upward(g, fns)
}

// upward is fns and every function that calls one of them, directly or through others.
func upward(g *CallGraph, fns []*pyparse.Function) map[*pyparse.Function]bool {
	out := map[*pyparse.Function]bool{}
	var up []*pyparse.Function
	for _, fn := range fns {
		if !out[fn] {
			out[fn] = true
			up = append(up, fn)
		}
	}
	for len(up) > 0 {
		fn := up[len(up)-1]
		up = up[:len(up)-1]
		for _, e := range g.Callers[fn] {
			if caller := e.Call.Function; caller != nil && !out[caller] {
				out[caller] = true
				up = append(up, caller)
			}
		}
	}
	return out
}

// stopsUp are the targets follow need not go up from when only the files reported
// matter: going up from a target records its function's call sites, and theirs, none
// of which is reported when no call of a function on the way up lies in a reported file;
// the target's own record is final before the walk up unless it runs in a loop of its
// own (innerOnlyOf: the callers' records decide it then); and an override's records are
// moved down to its call only from a dispatching caller. A target stops when all of that
// holds, the walk cannot be cut short (walkFits), and so it is for every other target
// whose way up shares a function with its own: follow's memo of the walks (walked) hands
// what one target found to the next, and a target that walks must find what it would
// have found had the others walked too. A target that never goes up (it does not run once
// per call, or its function has no callers) has nothing to stop.
func (a *classifier) stopsUp(targets []*Target, reported func(string) bool) map[*Target]bool {
	type walker struct {
		t  *Target
		up map[*pyparse.Function]bool
		ok bool
	}
	var walkers []*walker
	// What holds of a function's way up, once per function: the targets in one helper
	// share it (free_memory()'s four cache calls).
	type way struct {
		up   map[*pyparse.Function]bool
		free bool // nothing on it reported or dispatching, and the walk fits
	}
	ways := map[*pyparse.Function]way{}
	for _, t := range targets {
		fn := t.Call.Function
		callers := a.otherCallers(fn)
		if len(callers) == 0 {
			continue
		}
		wy, seen := ways[fn]
		if !seen {
			wy.up = upward(a.g, []*pyparse.Function{fn})
			// (A target in a file not reported is followed only for a reported site on its
			// way up, reach: its way is never free.)
			wy.free = !slices.ContainsFunc(callers, func(e *Edge) bool { return e.Dispatch })
			for caller := range wy.up {
				if !wy.free {
					break
				}
				for _, e := range a.g.Callers[caller] {
					if reported(e.File.Path) {
						wy.free = false
						break
					}
				}
			}
			wy.free = wy.free && a.walkFits(fn)
			ways[fn] = wy
		}
		w := &walker{t: t, up: wy.up}
		if wy.free {
			// follow's first reading of the site, memoized: the same answers for it. A
			// target whose way is not free is not read here (prewarm reads it): it is taken
			// to walk up, and so its way stops nothing.
			lc := a.siteContext(t.File, t.Call.Node)
			r := &Record{File: t.File, Call: t.Call, Target: t}
			a.siteFrequency(t.File, fn, lc, r, true)
			inner := innerOnlyOf(r, lc)
			if r.Frequency != Once && !inner {
				continue // never walks up
			}
			w.ok = !inner
		}
		walkers = append(walkers, w)
	}
	// Walkers whose ways up share a function stop together or not at all.
	group := make([]int, len(walkers))
	for i := range group {
		group[i] = i
	}
	root := func(i int) int {
		for group[i] != i {
			group[i] = group[group[i]]
			i = group[i]
		}
		return i
	}
	first := map[*pyparse.Function]int{}
	for i, w := range walkers {
		for fn := range w.up {
			if j, ok := first[fn]; ok {
				group[root(i)] = root(j)
			} else {
				first[fn] = i
			}
		}
	}
	fails := map[int]bool{}
	for i, w := range walkers {
		if !w.ok {
			fails[root(i)] = true
		}
	}
	stops := map[*Target]bool{}
	for i, w := range walkers {
		if !fails[root(i)] {
			stops[w.t] = true
		}
	}
	return stops
}

// walkFits reports whether a walk up from fn can never be cut short: every path up, each
// function at most once on it, makes fewer records than maxRecordsPerTarget and goes less
// than maxChainDepth deep. It counts at most that many records.
func (a *classifier) walkFits(fn *pyparse.Function) bool {
	made := 1 // the target's own record
	onPath := map[*pyparse.Function]bool{fn: true}
	var up func(fn *pyparse.Function, depth int) bool
	up = func(fn *pyparse.Function, depth int) bool {
		for _, e := range a.otherCallers(fn) {
			caller := e.Call.Function
			if caller != nil && onPath[caller] {
				continue
			}
			if made++; made >= maxRecordsPerTarget || depth+1 >= maxChainDepth {
				return false
			}
			if caller != nil {
				onPath[caller] = true
				ok := up(caller, depth+1)
				delete(onPath, caller)
				if !ok {
					return false
				}
			}
		}
		return true
	}
	return up(fn, 0)
}

func newClassifier(g *CallGraph, stepLoopNames []string) *classifier {
	a := &classifier{
		g: g, stepNames: map[string]bool{}, registered: &registrationTable{},
		resolved: map[*pyparse.Node]*funcRef{},
		frees:    map[*pyparse.Function]string{}, prompts: map[string]string{},
		bindings: map[*pyparse.File]map[string][]binding{},
		walked:   map[walkKey]walkDone{}, inheritIDs: map[inheritKey]int32{}, inheritTexts: map[string]int32{}, cut: map[*Target]bool{}, oomLoops: map[*pyparse.Node]bool{}, patterns: map[patternKey]patternResult{}, ownPattern: map[*pyparse.Node]bool{}, web: map[*pyparse.File]bool{}, hooks: map[*pyparse.Function]hookAnswer{}, contexts: map[*pyparse.Node]*localContext{}, freqs: map[freqKey]siteFreq{}, steps: map[*pyparse.Node]string{}, inputs: map[*pyparse.Node]string{}, takes: map[*pyparse.Node]string{}, conds: map[condKey]condResult{}, exits: map[*pyparse.Node][]*pyparse.Node{},
		blockExits: map[*pyparse.Node][]*pyparse.Node{}, withs: map[*pyparse.Node][]*pyparse.Node{}, leaves: map[*pyparse.Node][]*pyparse.Node{}, conts: map[*pyparse.Node]bool{},
		literals: map[literalsKey]map[string]string{}, closed: map[closedKey]bool{},
		others: map[*pyparse.Function][]*Edge{}, loaders: map[*pyparse.Function]bool{}, callees: map[*pyparse.Node]string{},
	}
	for _, n := range stepLoopNames {
		if n = strings.TrimSpace(n); n != "" {
			a.stepNames[n] = true
		}
	}
	return a
}

// sitesPerJob: below this many sites per goroutine, prewarm leaves the sites to follow.
var sitesPerJob = 32

// prewarm reads, on jobs goroutines, the local context and the pattern of each call that
// follow may classify (the cache calls, and the calls of helpers), into a's memos: they
// are most of classification's time, and depend on the site alone (effects.go makes the
// effect answers they read the same whatever was asked first), while follow itself must
// run in order (what one cache call followed up to a helper's callers stands for the next:
// walked). Each goroutine has a classifier and a view of the project of its own.
func (a *classifier) prewarm(targets []*Target, through map[*pyparse.Function]bool, jobs int) {
	var set callSites
	for _, t := range targets {
		set.add(t.File, t.Call)
	}
	for fn := range through {
		for _, e := range a.g.Callers[fn] {
			set.add(e.File, e.Call)
		}
	}
	sites := set.list
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs = min(jobs, len(sites)/sitesPerJob); jobs <= 1 {
		return
	}
	// The sites of one file share most of what their readings memoize (loops, conditions,
	// the file's bindings): a file's sites go to one goroutine, the files with most first.
	byFile := map[*pyparse.File][]int{}
	var files []*pyparse.File
	for i, s := range sites {
		if byFile[s.f] == nil {
			files = append(files, s.f)
		}
		byFile[s.f] = append(byFile[s.f], i)
	}
	slices.SortStableFunc(files, func(x, y *pyparse.File) int { return len(byFile[y]) - len(byFile[x]) })
	if jobs = min(jobs, len(files)); jobs <= 1 {
		return
	}
	if a.methods == nil {
		a.methods = methodsByName(a.g.Project.res.Files)
	}
	workers := make([]*classifier, jobs)
	for w := range workers {
		g := *a.g
		g.Project = a.g.Project.worker()
		workers[w] = newClassifier(&g, nil)
		workers[w].stepNames, workers[w].methods, workers[w].registered = a.stepNames, a.methods, a.registered
	}
	// A goroutine whose reading fails reads no more (its memos may hold effect questions
	// left open); follow reads the rest again, and reports the failure as it does for any.
	// What it read before is kept: a context or pattern is stored only once read through.
	failed := make([]bool, jobs)
	parallel.For(len(files), jobs, func(w, k int) {
		if failed[w] {
			return
		}
		defer func() {
			if recover() != nil {
				failed[w] = true
			}
		}()
		for _, i := range byFile[files[k]] {
			workers[w].readSite(sites[i].f, sites[i].call)
		}
	})
	for _, c := range workers {
		maps.Copy(a.contexts, c.contexts)
		maps.Copy(a.freqs, c.freqs)
		maps.Copy(a.patterns, c.patterns)
		maps.Copy(a.ownPattern, c.ownPattern)
	}
}

// callSites are call sites, each once, in the order they were added.
type callSites struct {
	list []callSite
	seen map[*pyparse.Node]bool
}

// callSite is a call in its file.
type callSite struct {
	f    *pyparse.File
	call *pyparse.Call
}

// add adds the call c of f unless it was added before.
func (s *callSites) add(f *pyparse.File, c *pyparse.Call) {
	if s.seen == nil {
		s.seen = map[*pyparse.Node]bool{}
	}
	if !s.seen[c.Node] {
		s.seen[c.Node] = true
		s.list = append(s.list, callSite{f, c})
	}
}

// readSite reads a site's context and pattern into a's memos, as follow does first.
func (a *classifier) readSite(f *pyparse.File, call *pyparse.Call) {
	lc := a.siteContext(f, call.Node)
	r := &Record{File: f, Call: call}
	a.siteFrequency(f, call.Function, lc, r, len(a.otherCallers(call.Function)) > 0)
	if testHookReadSite != nil {
		testHookReadSite(call)
	}
	a.sitePattern(f, call.Node, lc, r.Frequency)
}

// testHookFollow, set by tests, runs in follow once a site's record is made.
var testHookFollow func(t *Target, call *pyparse.Call)

// testHookReadSite, set by tests, runs in readSite between a site's context and pattern.
var testHookReadSite func(call *pyparse.Call)

// siteContext is contextOf, memoized per call.
func (a *classifier) siteContext(f *pyparse.File, call *pyparse.Node) *localContext {
	lc := a.contexts[call]
	if lc == nil {
		lc = a.contextOf(f, call)
		a.contexts[call] = lc
	}
	return lc
}

// sitePattern is patternOf, memoized per call and whether it runs on steps.
func (a *classifier) sitePattern(f *pyparse.File, call *pyparse.Node, lc *localContext, freq Frequency) (Pattern, string) {
	pk := patternKey{call, steady(freq)}
	pr, ok := a.patterns[pk]
	if !ok {
		pr.pattern, pr.why = a.patternOf(f, call, lc, freq)
		a.patterns[pk] = pr
	}
	return pr.pattern, pr.why
}

// otherCallers are the calls of fn other than fn's own: a retry that calls the function
// again from its own OOM handler says nothing about how often it runs.
// The list is made once per function (follow asks for it at every record) and is not to be
// changed.
func (a *classifier) otherCallers(fn *pyparse.Function) []*Edge {
	if fn == nil {
		return nil
	}
	if callers, ok := a.others[fn]; ok {
		return callers
	}
	var callers []*Edge
	for _, e := range a.g.Callers[fn] {
		if e.Call.Function != fn {
			callers = append(callers, e)
		}
	}
	a.others[fn] = callers
	return callers
}

// loadsByName reports a function named for loading or offloading a model (reLoadModel),
// memoized: follow asks at every record of a helper's body.
func (a *classifier) loadsByName(fn *pyparse.Function) bool {
	loads, ok := a.loaders[fn]
	if !ok {
		loads = reLoadModel.MatchString(fn.Name)
		a.loaders[fn] = loads
	}
	return loads
}

// inherited is what a helper's body passes up to its call sites: a gate that thins out the
// call, and a legitimate pattern found inside the helper.
type inherited struct {
	gate       *gate
	pattern    Pattern
	patternWhy string
}

// maxRecordsPerTarget bounds the records one call can produce through a call graph in
// which many paths lead to it. Each function's callers are followed once per what a call
// passes up (walked), so the records grow with the call sites, not the paths: the bound is
// a guard against the unforeseen, far above what a project's most called helper needs
// (ai-toolkit's flush() has 276 call sites), and a run that reaches it says so. A
// variable, which tests lower.
var maxRecordsPerTarget = 20000

// maxChainDepth bounds how many helpers deep a call is followed up: each record carries
// its chain, so a chain N deep costs N^2/2 edges in records (a 20,000-deep chain took
// minutes and gigabytes). A run that reaches it says so.
const maxChainDepth = 200

// follow classifies a site and, when the site runs once per call of its function, goes on
// to the function's callers: its record, then theirs, are appended to a.recs.
func (a *classifier) follow(t *Target, f *pyparse.File, call *pyparse.Call, via []*Edge, inh inherited, visited map[*pyparse.Function]bool) {
	fn := call.Function
	lc := a.siteContext(f, call.Node)
	r := &Record{File: f, Call: call, Via: via, Target: t, Role: "call"}
	count := a.produced // the records made for t before this one
	a.produced++
	a.recs = append(a.recs, r)
	mine := len(a.recs) // where the records found at the callers start
	if testHookFollow != nil {
		testHookFollow(t, call)
	}
	if len(via) == 0 {
		r.Callee = t.Spelling
	} else {
		r.Callee = a.siteCallee(f, call)
	}
	callee := r.Callee
	callers := a.otherCallers(fn)
	a.siteFrequency(f, fn, lc, r, len(callers) > 0)
	if gt := inh.gate; gt != nil && r.Frequency != Once && (r.Gate == nil || selectivity(gt.Kind) > selectivity(r.Gate.Kind)) {
		reason := r.Reason
		applyGate(r, &r.Frequency, gt)
		if r.Reason != reason {
			r.Reason = reason + fmt.Sprintf("; the helper empties the cache only when `%s`", gt.Text)
		}
	}
	pat, pwhy := a.sitePattern(f, call.Node, lc, r.Frequency)
	if pat == PatternNone && inh.pattern != "" && inh.pattern != PatternNone {
		pat, pwhy = inh.pattern, inh.patternWhy
	}
	r.Pattern = pat
	if pat != PatternNone {
		r.Reason += "; legitimate use (" + string(pat) + "): " + pwhy
	}
	r.Rule = ruleFor(r)
	innerOnly := innerOnlyOf(r, lc)
	if r.Frequency != Once && !innerOnly || len(callers) == 0 {
		return
	}
	if count > maxRecordsPerTarget || len(via) >= maxChainDepth {
		a.cut[t] = true
		return
	}
	// Runs once (or a few times) per call of fn: the callers decide, and a direct call here
	// is a helper's own body.
	own := *r
	if len(via) == 0 {
		r.Role = "helper_body"
	}
	if innerOnly {
		r.Reason = fmt.Sprintf("runs on every iteration of the loop at line %d (`%s`) per call of %s(); classified at its %d call site(s)",
			lc.Loops[0].Node.Line(), lc.Loops[0].Header, fn.Name, len(callers))
	} else {
		r.Reason = fmt.Sprintf("runs once per call of %s(); classified at its %d call site(s)", fn.Name, len(callers))
	}
	r.Rule = ""
	if pat != PatternNone {
		r.Reason += "; legitimate use (" + string(pat) + "): " + pwhy
	}
	if len(via) == 0 && a.stopped[t] {
		return // nothing found up there is reported (stopsUp)
	}
	next := inh
	for _, g := range lc.Gates {
		if g.Kind != noGate && (next.gate == nil || selectivity(g.Kind) > selectivity(next.gate.Kind)) {
			next.gate = g
		}
	}
	if pat != PatternNone && (next.pattern == "" || next.pattern == PatternNone) && !a.ownPattern[call.Node] {
		next.pattern, next.patternWhy = pat, pwhy
	}
	if (next.pattern == "" || next.pattern == PatternNone) && a.loadsByName(fn) {
		// The cache is emptied while a model is loaded or offloaded: a model switch,
		// wherever the load is called from.
		next.pattern, next.patternWhy = ModelSwitch, fmt.Sprintf("inside `%s`, which loads or offloads a model", fn.Name)
	}
	key := walkKey{fn: fn, inherits: a.inheritID(next, lc), cuda: strings.Contains(t.Spelling, "cuda")}
	if done, ok := a.walked[key]; ok && done.target != t {
		// Another cache call of fn was followed from here with the same gate and pattern:
		// its records at fn's callers stand for this one too.
		if innerOnly && !done.judged {
			*r = own
		}
		return
	}
	// Records found through an override's base class are moved to this call (atOverride):
	// those are this call's own, made again from each call.
	// A walk cut short (a.cut) made fewer records than another would: none is taken or kept.
	memo := reuseWalks && !a.cut[t] && !slices.ContainsFunc(callers, func(e *Edge) bool { return e.Dispatch })
	var again againKey
	if memo {
		again = againKey{key, helperChain(via)}
		if done, ok := a.again[again]; ok && a.produced+done.records <= maxRecordsPerTarget {
			// This walk was made for t from another call of the same helper here: the same
			// records again, but for the calls at this level.
			a.produced += done.records
			a.walked[key] = walkDone{target: t, judged: done.judged}
			if innerOnly && !done.judged {
				*r = own
			}
			return
		}
	}
	visited[fn] = true
	defer delete(visited, fn)
	for _, e := range callers {
		if e.Call.Function != nil && visited[e.Call.Function] {
			continue
		}
		if a.closedFor(f, fn, lc, e) {
			continue // this call's literal arguments keep the helper from emptying the cache
		}
		if e.Dispatch && strings.HasPrefix(call.Callee, "super().") {
			// An override that hands on to the base's own method: the base class's call
			// reaches that method directly, and is reported there.
			continue
		}
		chain := append([]*Edge{e}, via...)
		from := len(a.recs)
		a.follow(t, e.File, e.Call, chain, next, visited)
		if e.Dispatch {
			atOverride(f, call, callee, via, e, a.recs[from:])
		}
	}
	more := a.recs[mine:]
	a.walked[key] = walkDone{target: t, judged: anyJudged(more)}
	if memo && !a.cut[t] {
		a.again[again] = againDone{records: len(more), judged: anyJudged(more)}
	}
	if innerOnly && !anyJudged(more) {
		// The helper's own loop runs whatever its callers do: when every path calls the
		// helper once, the loop decides, here.
		*r = own
	}
}

// innerOnlyOf reports a call in a helper's own loop over devices, chunks or layers, which
// runs some times per call of the helper: its callers decide how often, as for a call
// that runs once.
func innerOnlyOf(r *Record, lc *localContext) bool {
	inner := r.Frequency == Unknown && len(lc.Loops) > 0 && r.Gate == nil
	for _, l := range lc.Loops {
		inner = inner && l.Kind == otherLoop
	}
	return inner
}

// atOverride moves the records found through a base class's `self.name()` (e) to the call
// in the override: the base's loop says how often the override runs, and the override is
// the code its author can change (a base's `for batch in loader: self.hook_train_loop(b)`
// runs every subclass's hook_train_loop, each reported where it empties the cache).
// Each of sub is replaced by its moved copy.
func atOverride(f *pyparse.File, call *pyparse.Call, callee string, via []*Edge, e *Edge, sub []*Record) {
	for i, s := range sub {
		m := *s
		if m.LoopFile == nil {
			m.LoopFile = s.File
		}
		if m.Through == nil {
			m.Through = e
		}
		m.File, m.Call, m.Via, m.Role, m.Callee = f, call, via, "call", callee
		m.Reason = fmt.Sprintf("%s; %s:%d (`%s`) runs this override of %s()", s.Reason,
			filepath.Base(e.File.Path), e.Call.Node.Line(), shorten(e.Call.Node.Text(e.File.Src)), e.Callee.Name)
		sub[i] = &m
	}
}

// inheritKey is what an inherited key is made of, by identity: the gate and pattern passed
// up and the site's context, whose gates are never changed once it is built.
type inheritKey struct {
	gate        *gate
	pattern     Pattern
	patternWhy  string
	siteContext *localContext
}

// inheritID is in.key(lc) interned: the same number for the same text, whatever the gates'
// and contexts' identities.
func (a *classifier) inheritID(in inherited, lc *localContext) int32 {
	k := inheritKey{in.gate, in.pattern, in.patternWhy, lc}
	if id, ok := a.inheritIDs[k]; ok {
		return id
	}
	text := in.key(lc)
	id, ok := a.inheritTexts[text]
	if !ok {
		id = int32(len(a.inheritTexts))
		a.inheritTexts[text] = id
	}
	a.inheritIDs[k] = id
	return id
}

// key says what a walk to the callers depends on besides the function: the gate and pattern
// passed up, and the call's own gates (closedFor tests them at each call site).
func (in inherited) key(lc *localContext) string {
	// Appended piece by piece: fmt's formatting was a sixth of follow, which runs on one
	// goroutine.
	b := make([]byte, 0, 64)
	gate := func(g *gate, period bool) {
		b = strconv.AppendInt(b, int64(g.Kind), 10)
		b = append(b, '/')
		if period {
			b = strconv.AppendInt(b, int64(g.Period), 10)
			b = append(b, '/')
		}
		b = strconv.AppendBool(b, g.Negate)
		b = append(b, '/')
		b = append(b, g.Text...)
	}
	if g := in.gate; g != nil {
		gate(g, true)
	}
	b = append(b, '|')
	b = append(b, in.pattern...)
	b = append(b, '|')
	b = append(b, in.patternWhy...)
	for _, g := range lc.Gates {
		b = append(b, '|')
		gate(g, false)
	}
	return string(b)
}

// anyJudged reports whether some record found a rule or a legitimate pattern.
func anyJudged(recs []*Record) bool {
	for _, r := range recs {
		if r.Rule != "" || r.Pattern != PatternNone {
			return true
		}
	}
	return false
}

// dedupe drops records that say the same thing twice: one site reached through the same
// chain of helpers along different paths of the call graph.
func dedupe(recs []*Record) []*Record {
	seen := map[string]int{}
	var out []*Record
	var b []byte // one record's key, reused: a key is copied only when kept
	for _, r := range recs {
		// A call of a helper is one record whichever of the helper's device branches
		// (cuda, xpu, mps, ...) the chain ends in; the cuda one is kept.
		// Written piece by piece: fmt's formatting of every record was 7% of a cold run's
		// allocations on unsloth.
		// Nodes by identity: one node is one place in one file.
		b = b[:0]
		at := func(n *pyparse.Node) {
			b = binary.LittleEndian.AppendUint64(b, uint64(uintptr(unsafe.Pointer(n))))
		}
		at(r.Call.Node)
		for _, s := range [...]string{r.Role, r.Rule, string(r.Pattern)} {
			b = append(b, ':')
			b = append(b, s...)
		}
		for _, e := range r.Via {
			b = append(b, '>')
			at(e.Callee.Node)
		}
		if len(r.Via) == 0 {
			b = append(b, '@')
			b = append(b, r.Target.Spelling...)
		}
		if i, ok := seen[string(b)]; ok {
			if !strings.Contains(out[i].Target.Spelling, "cuda") && strings.Contains(r.Target.Spelling, "cuda") {
				out[i] = r
			}
			continue
		}
		seen[string(b)] = len(out)
		out = append(out, r)
	}
	return out
}

// closedFor reports whether one of the helper's own gates is false for this call of it.
func (a *classifier) closedFor(hf *pyparse.File, fn *pyparse.Function, lc *localContext, e *Edge) bool {
	if len(lc.Gates) == 0 || fn == nil || e.Call.Args == nil {
		return false
	}
	// A helper's call sites are reached once per cache call and chain that leads to them:
	// the answer is kept per site and call, the literals each call passes per helper.
	ck := closedKey{lc, e.Call.Node}
	closed, ok := a.closed[ck]
	if !ok {
		closed = a.gateClosed(hf, fn, lc, e)
		a.closed[ck] = closed
	}
	return closed
}

// gateClosed is closedFor worked out.
func (a *classifier) gateClosed(hf *pyparse.File, fn *pyparse.Function, lc *localContext, e *Edge) bool {
	k := literalsKey{fn, e.Call.Node}
	args, ok := a.literals[k]
	if !ok {
		args = bindLiterals(fn, e.Call, e.File)
		a.literals[k] = args
	}
	if len(args) == 0 {
		return false
	}
	for _, g := range lc.Gates {
		if gateClosedAt(hf, g, args) {
			return true
		}
	}
	return false
}

// closedKey is a site's local context and a call of its helper (closedFor, memoized: follow
// reaches a call site once per cache call and chain that leads to it).
type closedKey struct {
	lc   *localContext
	call *pyparse.Node
}

// literalsKey is a helper and a call of it (closedFor).
type literalsKey struct {
	fn   *pyparse.Function
	call *pyparse.Node
}

// siteCallee is the project's qualifiedCallee, memoized per call: a site is reached once
// per cache call and chain that leads to it.
func (a *classifier) siteCallee(f *pyparse.File, call *pyparse.Call) string {
	q, ok := a.callees[call.Node]
	if !ok {
		q = a.g.Project.qualifiedCallee(f, call)
		a.callees[call.Node] = q
	}
	return q
}

// steady reports the frequencies of a step loop: every step, or every N steps.
func steady(f Frequency) bool {
	return f == PerIteration || f == Periodic
}

func ruleFor(r *Record) string {
	if r.Pattern != PatternNone {
		return ""
	}
	switch r.Frequency {
	case PerIteration:
		return rules.CL001
	case Periodic:
		return rules.CL002
	case PerEpoch:
		return rules.CL003
	case Unknown:
		return rules.CL004
	}
	return ""
}

// freqKey names a site's frequency: its call, and whether its function has other callers.
type freqKey struct {
	call       *pyparse.Node
	hasCallers bool
}

// siteFreq is what frequency fills in a record.
type siteFreq struct {
	frequency    Frequency
	period       int
	loop         *loop
	hook, reason string
	gate, named  *gate
}

// siteFrequency is frequency of a site's own local context (siteContext) for a record
// nothing has filled yet, memoized per call and whether its function has other callers.
func (a *classifier) siteFrequency(f *pyparse.File, fn *pyparse.Function, lc *localContext, r *Record, hasCallers bool) {
	k := freqKey{r.Call.Node, hasCallers}
	if m, ok := a.freqs[k]; ok {
		r.Frequency, r.Period, r.Loop, r.Hook, r.Reason, r.Gate, r.Named = m.frequency, m.period, m.loop, m.hook, m.reason, m.gate, m.named
		return
	}
	a.frequency(f, fn, lc, r, hasCallers)
	a.freqs[k] = siteFreq{frequency: r.Frequency, period: r.Period, loop: r.Loop, hook: r.Hook, reason: r.Reason, gate: r.Gate, named: r.Named}
}

// frequency fills r.Frequency, Period, Loop, Hook, Gate, Named and Reason from the local
// context.
func (a *classifier) frequency(f *pyparse.File, fn *pyparse.Function, lc *localContext, r *Record, hasCallers bool) {
	// A call after which its block always leaves the innermost loop (`clear(); break`, a
	// handler that clears and re-raises) runs at most once per run of that loop: how often
	// is the loops' around it to say.
	if len(lc.Loops) > 0 {
		l := lc.Loops[0]
		if exit := a.leavesAfter(r.Call.Node, l.Node.ChildByField("body")); exit != nil {
			outer := *lc
			outer.Loops = lc.Loops[1:]
			a.frequency(f, fn, &outer, r, hasCallers)
			why := fmt.Sprintf("at most once per run of the loop at line %d (`%s`), which `%s` at line %d leaves after the call",
				l.Node.Line(), l.Header, firstLine(exit.Text(f.Src)), exit.Line())
			if r.Reason == "not inside any loop" {
				r.Reason = why + ", and inside no other loop"
			} else {
				r.Reason = why + "; " + r.Reason
			}
			return
		}
	}
	var gov *loop
	base := Once
	if len(lc.Loops) > 0 {
		inner := lc.Loops[0]
		switch inner.Kind {
		case stepLoop:
			gov, base = inner, PerIteration
		case epochLoop:
			gov, base = inner, PerEpoch
		default:
			gov, base = inner, Unknown
			for _, l := range lc.Loops[1:] {
				if l.Kind == stepLoop {
					gov, base = l, PerIteration
					break
				}
			}
			// A loop over layers or tensors inside a per-batch hook runs every step.
			if base == Unknown && fn != nil {
				if kind, _, _ := a.hookOf(f, fn); kind == perStepHook {
					base = PerIteration
				}
			}
		}
		r.Loop = gov
		switch base {
		case PerIteration:
			r.Reason = fmt.Sprintf("inside the step loop at line %d (`%s`), which %s", gov.Node.Line(), gov.Header, gov.Why)
		case PerEpoch:
			kind := "outer"
			if gov.Why == "iterates epochs" {
				kind = "epoch"
			}
			r.Reason = fmt.Sprintf("inside the %s loop at line %d (`%s`, %s) but outside its step loop", kind, gov.Node.Line(), gov.Header, gov.Why)
		default:
			r.Reason = fmt.Sprintf("inside the loop at line %d (`%s`), which is neither a step nor an epoch loop", gov.Node.Line(), gov.Header)
		}
	} else if fn != nil {
		if reg := a.registrations()[fn]; reg != nil {
			base = PerIteration
			r.Hook = "torch hook"
			r.Reason = fmt.Sprintf("in `%s`, registered at %s:%d (`%s`): %s", fn.Name, filepath.Base(reg.file.Path),
				reg.call.Node.Line(), shorten(reg.call.Node.Text(reg.file.Src)), reg.why)
		} else if kind, why, period := a.hookOf(f, fn); kind != notHook {
			r.Hook = why
			switch kind {
			case perStepHook:
				base = PerIteration
				r.Reason = fmt.Sprintf("in `%s`, which %s calls once per batch", fn.Name, why)
				if period > 0 {
					base, r.Period = Periodic, period
					r.Reason = fmt.Sprintf("in `%s`, which %s calls every %d iterations", fn.Name, why, period)
				}
			case periodicHook:
				base = Periodic
				r.Reason = fmt.Sprintf("in `%s`, which %s calls from its step loop on save, evaluation or logging steps", fn.Name, why)
			default:
				base = PerEpoch
				r.Reason = fmt.Sprintf("in `%s`, which %s calls once per epoch", fn.Name, why)
			}
		} else if !hasCallers && reStepFuncName.MatchString(fn.Name) {
			// An uncalled function is usually an entry point that runs once (main, a test);
			// only one named for a step, that runs a step, is taken to run once per step.
			why := a.runsStep(f, fn.Body, 0)
			if why == "" && reStrongStepName.MatchString(fn.Name) {
				// fairseq's Trainer.train_step delegates the step to its task: the name is
				// the evidence (its callers are in files not searched for a method name).
				why = "its name says so"
			}
			// A loop inside `train_step` runs micro-batches of the one step; elsewhere a
			// function that loops over steps itself is a training loop, not one step.
			if why != "" && (reStrongStepName.MatchString(fn.Name) || !a.funcHasStepLoop(&funcRef{file: f, fn: fn})) {
				base = PerIteration
				r.Hook = "step function"
				r.Reason = fmt.Sprintf("in `%s`, which runs a training step (%s), so it runs once per step", fn.Name, why)
			}
		}
	}
	// A clean-up on the error path of a handler that is no OOM retry (log and go on, skip the
	// item) runs when the work fails: how often cannot be told, so it is quoted, never an
	// error. An OOM handler is Pattern's to judge.
	var errorPath *gate
	for _, h := range lc.Handlers {
		if base != Once && (gov == nil || gov.Node.Contains(h.Node)) && !a.oomHandler(f, h, r.Call.Node) {
			text := "except"
			if h.Type != "" {
				text += " " + h.Type
			}
			errorPath = &gate{Node: h.Node, Kind: unknownGate, Text: text, Inside: gov.nodeOrNil()}
			break
		}
	}
	if base == Once {
		r.Frequency = Once
		if r.Reason == "" {
			r.Reason = "not inside any loop"
			if t := lc.Transparent; t != nil {
				r.Reason = fmt.Sprintf("inside the loop at line %d (`%s`), over items of one pass (modules, parameters, devices), which says nothing of how often; not inside any other loop",
					t.Line(), strings.TrimSuffix(shorten(firstLine(t.Text(f.Src))), ":"))
			}
		}
		return
	}
	// Gates between the call and the governing loop (or the hook's body) thin it out: the
	// most selective one decides.
	var decide *gate
	for _, g := range lc.Gates {
		if gov != nil && g.Inside != nil && g.Inside != gov.Node && !gov.Node.Contains(g.Inside) {
			continue // the condition sits outside the governing loop
		}
		if g.Kind == noGate {
			if g.Why == "a rank check" && r.Named == nil {
				r.Named = g
			}
			continue
		}
		if decide == nil || selectivity(g.Kind) > selectivity(decide.Kind) {
			decide = g
		}
	}
	if errorPath != nil && (decide == nil || selectivity(decide.Kind) < selectivity(unknownGate)) {
		decide = errorPath
	}
	if decide != nil {
		applyGate(r, &base, decide)
	}
	r.Frequency = base
}

// applyGate thins a frequency by the condition the call runs under.
func applyGate(r *Record, base *Frequency, g *gate) {
	switch g.Kind {
	case periodicGate:
		// Only a step loop (or a per-step hook) is thinned to periodic; a memory check in a
		// start-up loop over parameters stays what the loop is.
		if *base == PerIteration {
			*base, r.Gate, r.Period = Periodic, g, g.Period
			r.Reason += fmt.Sprintf("; gated by `%s`", g.Text)
		} else if *base == Unknown && r.Gate == nil {
			// A loop of unknown kind stays unknown, but the message says the call is thinned.
			r.Gate = g
			r.Reason += fmt.Sprintf("; gated by `%s`", g.Text)
		}
	case unknownGate:
		// How often the condition holds cannot be told: a warning that quotes it.
		if *base == PerIteration {
			*base, r.Gate = Unknown, g
			r.Reason += fmt.Sprintf("; only when `%s`, which cachelint cannot tell how often holds", g.Text)
		}
	case optInGate:
		if *base == PerIteration || *base == Unknown {
			r.Named = g
			r.Reason += fmt.Sprintf("; when `%s` is set", g.Text)
		}
	case onceGate:
		switch *base {
		case PerIteration:
			*base, r.Gate = PerEpoch, g
			r.Reason += fmt.Sprintf("; runs once per pass of the loop (`%s`)", g.Text)
		case Unknown:
			// One pass of a loop that is no step loop: once per run of the loop.
			*base, r.Gate = Once, g
			r.Reason += fmt.Sprintf("; runs once per pass of the loop (`%s`)", g.Text)
		}
	case initGate:
		*base, r.Gate = Once, g
		r.Reason += fmt.Sprintf("; runs once, when `%s`", g.Text)
	}
}

// hookAnswer is what hookOf says of a function.
type hookAnswer struct {
	kind   hookKind
	why    string
	period int
}

// hookOf says whether a function is a framework hook called per step or per epoch.
func (a *classifier) hookOf(f *pyparse.File, fn *pyparse.Function) (hookKind, string, int) {
	h, ok := a.hooks[fn]
	if !ok {
		h.kind, h.why, h.period = a.findHook(f, fn)
		a.hooks[fn] = h
	}
	return h.kind, h.why, h.period
}

func (a *classifier) findHook(f *pyparse.File, fn *pyparse.Function) (hookKind, string, int) {
	if a.stepNames[fn.Name] {
		return perStepHook, "step-loop-names", 0
	}
	for _, d := range fn.Decorators {
		t := d.Text(f.Src)
		if strings.Contains(t, "Events.") {
			if k, fw, p := igniteEvent(t); k != notHook {
				return k, fw + " (" + firstLine(strings.TrimPrefix(t, "@")) + ")", p
			}
		}
	}
	for _, c := range f.Calls {
		if !strings.HasSuffix(c.Callee, "add_event_handler") || c.Args == nil {
			continue
		}
		args := c.Args.NamedChildren()
		if len(args) >= 2 && args[1].Text(f.Src) == fn.Name {
			if k, fw, p := igniteEvent(args[0].Text(f.Src)); k != notHook {
				return k, fw + " (" + args[0].Text(f.Src) + ")", p
			}
		}
	}
	if fn.Class != nil {
		bases := a.g.Project.classBases(f, fn.Class)
		if k, fw := methodHook(fn.Name, bases, nil); k != notHook {
			return k, fw, 0
		}
	}
	return notHook, "", 0
}

func (a *classifier) notebook(f *pyparse.File) bool {
	return strings.EqualFold(filepath.Ext(f.Path), ".ipynb")
}

// patternKey is a call node and whether it runs on steps (patternOf's freq).
type patternKey struct {
	node   *pyparse.Node
	steady bool
}

// patternResult is patternOf's answer for one call node.
type patternResult struct {
	pattern Pattern
	why     string
}
