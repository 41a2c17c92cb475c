package analyzers

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cachelint/cachelint/internal/lazyregexp"
	"github.com/cachelint/cachelint/pyparse"
)

// Pattern is which legitimate use (SPEC §4) a call matches.
type Pattern string

const (
	PatternNone        Pattern = "none"
	ModelSwitch        Pattern = "model_switch"
	OOMRetry           Pattern = "oom_retry"
	InteractiveCleanup Pattern = "interactive_cleanup"
	LeakDiagnosis      Pattern = "leak_diagnosis"
	ServiceGuard       Pattern = "service_guard"
)

var (
	reOOMGate   = lazyregexp.New(`(?i)\boom\b|oom_|_oom|out_of_memory|outofmemory|out of memory|num_alloc_retries|alloc_retries|\bretry|retries|retried`)
	reRetryLoop = lazyregexp.New(`(?i)retry|retries|attempt|tries|trial|batch_size|bs\b|chunk_size|while true`)
	reModelName = lazyregexp.New(`(?i)^(self\.)?([\w]*model[\w]*|net|net[GD]|[\w]*_net|pipe|pipeline|[\w]*_pipe|generator|discriminator|G|D|unet|vae|text_encoder[\w]*|encoder|decoder|teacher|student|llm|policy|reward_model|ref_model|critic|actor|transformer|controlnet|clip|t5|ae|detector|segmentor|classifier|engine|module|[\w]*_engine)$`)
	reModelLoop = lazyregexp.New(`(?i)model|pipeline|pipe\b|stage|checkpoint|ckpt|adapter|lora|expert|teacher|student|config|variant|arch|backbone`)
	// reLoadModel: calls that load or offload a model. reload_states and offload_states move a
	// DeepSpeed engine's parameters and optimizer states back to or off the GPU
	// (deepspeed/runtime/engine.py, DeepSpeedEngine.offload_states). model_on_device is InvokeAI's
	// LoadedModel context that locks the model into VRAM (invokeai/backend/model_manager/
	// load/load_base.py, LoadedModel.model_on_device).
	reLoadModel = gatedRegexp{lazyregexp.New(`reload_states|offload_states|from_pretrained|load_model|model_on_device|build_model|load_checkpoint|load_state_dict|create_model|get_model|init_model|offload|unload|enable_model_cpu_offload|enable_sequential_cpu_offload|wake_up|load_weights|swap_model|init_\w*model|delete_\w*cache_entry|evict`),
		[]string{"load", "model", "pretrained", "wake_up", "cache_entry", "evict"}}
	// reWeightless: the receiver of a loader call that loads no weights onto a device: a
	// tokenizer, processor, feature extractor or configuration (transformers'
	// AutoTokenizer/AutoProcessor/AutoConfig.from_pretrained), or a noise scheduler
	// (diffusers' SchedulerMixin.from_pretrained reads scheduler_config.json only,
	// diffusers/schedulers/scheduling_utils.py).
	reWeightless = lazyregexp.New(`(?i)tokeni[sz]er|processor|config|feature_?extractor|scheduler`)
	// reLoaderName: a whole callee name that loads a model (reLoadModel's loaders, not its
	// offloads, and not names that merely contain one: `_get_model_forward_kwargs`).
	reLoaderName = lazyregexp.New(`^_*(from_pretrained|load_model|model_on_device|build_model|load_checkpoint|load_state_dict|create_model|get_model|init_model|load_weights|swap_model|wake_up|init_\w*model|build_\w*model|load_\w*(model|models|pipeline|pipe|checkpoint|weights|vae|unet|transformer|text_encoders?|components)|delete_\w*cache_entry|evict\w*|unload\w*)$`)
	reGANGen     = lazyregexp.New(`(?i)\b(\w*_)?generator\b|\bnetG\b|\boptimizer_G\b|\bopt_g\b|\btrain_g\b|\bg_step\b`)
	reGANDisc    = lazyregexp.New(`(?i)\b(\w*_)?discriminator\b|\bnetD\b|\boptimizer_D\b|\bopt_d\b|\btrain_d\b|\bd_step\b`)
	reMeasure    = lazyregexp.New(`memory_allocated|memory_reserved|max_memory_allocated|max_memory_reserved|memory_stats|reset_peak_memory_stats|memory_summary|mem_get_info|memory_snapshot|_record_memory_history|reset_max_memory`)
	// reMemRead: a memory reading (resets and history switches are not readings).
	reMemRead      = lazyregexp.New(`\b(max_)?memory_(allocated|reserved)\b|\bmem_get_info\b|\bmemory_stats\b`)
	reDiagName     = lazyregexp.New(`(?i)leak|diagnos|debug|profil|snapshot|check_mem|mem_check|memory_report|mem_report|report_mem|measure|benchmark|track_mem|memory_usage`)
	reRoute        = lazyregexp.New(`^@\s*[\w.]*\.(route|get|post|put|delete|patch|websocket|api_route|endpoint|head|options)\s*\(|^@\s*(app|router|bp|blueprint|api|routes|server|serve)\.|^@\s*(serve\.deployment|bentoml\.api|svc\.api|modal\.(web_endpoint|method|fastapi_endpoint)|torchserve|ray\.serve)`)
	reHandlerBases = lazyregexp.New(`Handler|TritonPythonModel|LitAPI|BasePredictor|Predictor|Servable|Deployment|BentoService|Runnable|Endpoint|Resource`)
	reServeMethod  = lazyregexp.New(`^(predict|generate|infer|inference|handle|execute|postprocess|preprocess|__call__|run_inference|serve|on_request|get|post)$`)
	reRegister     = lazyregexp.New(`^gr\.|\.(click|submit|change|then|success|select|upload|input|add_url_rule|add_api_route|add_route|add_get|add_post|api_route)$`)
	reWebImports   = lazyregexp.New(`^(flask|fastapi|starlette|aiohttp|gradio|sanic|tornado|litserve|bentoml|ray\.serve|quart|django|falcon|cog|ts\.torch_handler|triton_python_backend_utils)`)
)

// patternOf matches a call against the legitimate uses. It looks at the call's own
// function and the statements around it; callers inherit it through the chain.
//
// freq is how often the call runs by its own context: a call that runs per step or
// periodically is a model switch only by what is beside it, never by what the functions
// called beside it do somewhere deep down.
func (a *classifier) patternOf(f *pyparse.File, call *pyparse.Node, lc *localContext, freq Frequency) (Pattern, string) {
	// 1. OOM handling: in an except clause, gated by an OOM flag, or in a bounded retry loop.
	for _, h := range lc.Handlers {
		if a.oomHandler(f, h, call) {
			t := h.Type
			if t == "" {
				t = "bare except"
			} else {
				t = "except " + t
			}
			return OOMRetry, fmt.Sprintf("in the `%s` handler at line %d", t, h.Node.Line())
		}
	}
	for _, g := range lc.Gates {
		if reOOMGate.MatchString(g.Text) {
			return OOMRetry, fmt.Sprintf("gated by the OOM condition `%s` at line %d", g.Text, g.Node.Line())
		}
		if why := a.oomFlag(f, g); why != "" {
			return OOMRetry, why
		}
		if why := retryAfterFailure(f, g, call); why != "" {
			return OOMRetry, why
		}
	}
	if why := a.afterSwallowedOOM(f, call); why != "" {
		return OOMRetry, why
	}
	if fn := lc.Function; fn != nil && !lc.inStepLoop() {
		if d := oomRetryDecorator(f, fn); d != "" {
			return OOMRetry, fmt.Sprintf("in `%s`, which `%s` runs again with a smaller batch after an out-of-memory error", fn.Name, d)
		}
	}
	for _, l := range lc.Loops {
		oom, ok := a.oomLoops[l.Node]
		if !ok { // once per loop, not per call in it
			oom = hasOOMHandler(f, l.Node)
			a.oomLoops[l.Node] = oom
		}
		if oom && (reRetryLoop.MatchString(l.Header) || changesSize(f, l.Node)) {
			return OOMRetry, fmt.Sprintf("in the retry loop at line %d (`%s`)", l.Node.Line(), l.Header)
		}
	}

	// 2. Service guard: a request handler or a model server's endpoint, a function that only
	// they call, or a worker's loop that takes one request from a queue per turn. A model
	// switched beside the call (a handler that loads the model asked for) is a switch.
	wide := !lc.inStepLoop() && !steady(freq)
	service := ""
	if fn := lc.Function; fn != nil {
		if why := a.handlerWhy(f, fn); why != "" {
			service = why
		} else if via := a.requestOnly(fn, 0); via != "" {
			service = fmt.Sprintf("`%s` runs only when a request or a person asks for it: %s", fn.Name, via)
		}
	}
	if l := lc.innermostLoop(); service == "" && l != nil && !slices.ContainsFunc(lc.Loops[1:], func(o *loop) bool { return o.Kind == stepLoop }) {
		// A turn that takes a request and runs the model on it is no training step, though
		// its forward makes it look like one; a turn that trains (`loss.backward()`) is.
		body := l.Node.ChildByField("body")
		if q := a.takesRequest(f, body); q != "" && a.directStep(f, body) == "" {
			service = fmt.Sprintf("in the worker loop at line %d (`%s`), which takes a request from `%s` on each turn", l.Node.Line(), l.Header, q)
		}
	}
	if service != "" {
		if why := a.modelSwitchNearby(f, call, wide); why != "" {
			return ModelSwitch, why
		}
		return ServiceGuard, service
	}
	return a.patternAfterService(f, call, lc, freq)
}

// takesRequest names the call by which a loop body takes one item from a queue each turn
// (`item = in_q.get()`, `await queue.get()`, `q.get(timeout=1)`: a `get` with no positional
// argument, on a name spelt as a queue or bound to a `Queue()`): a worker serving requests
// one at a time. "" when it takes none. Nested definitions and loops are not its own turns.
func (a *classifier) takesRequest(f *pyparse.File, body *pyparse.Node) string {
	if body == nil {
		return ""
	}
	if what, ok := a.takes[body]; ok {
		return what
	}
	what := ""
	defer func() { a.takes[body] = what }()
	walkOwn(body, func(m *pyparse.Node) {
		if what != "" || m.Kind() != "call" {
			return
		}
		fn := m.ChildByField("function")
		if fn == nil || fn.Kind() != "attribute" || fn.ChildByField("attribute").Text(f.Src) != "get" {
			return
		}
		if args := m.ChildByField("arguments"); args != nil {
			for _, x := range args.NamedChildren() {
				if x.Kind() != "keyword_argument" {
					return // `d.get(key)`: a lookup
				}
			}
		}
		recv := pyparse.DottedName(fn.ChildByField("object"), f.Src)
		last := recv[strings.LastIndex(recv, ".")+1:]
		if recv != "" && (reQueueName.MatchString(last) || boundToQueue(f, m, recv)) {
			what = recv + ".get()"
		}
	})
	return what
}

// reQueueName: a name spelt as a queue (`in_q`, `input_queue`, `request_queue`, `q`).
var reQueueName = lazyregexp.New(`(?i)(^|_)q$|queue`)

// boundToQueue reports a name bound to a `Queue()` (queue, multiprocessing, asyncio).
func boundToQueue(f *pyparse.File, at *pyparse.Node, name string) bool {
	return anyBound(f, at, name, func(v *pyparse.Node) bool {
		return v.Kind() == "call" && strings.HasSuffix(pyparse.DottedName(v.ChildByField("function"), f.Src), "Queue")
	})
}

// anyBound reports whether some value bound to name, as seen from at, satisfies is: for
// `self.attr`, the values of the class's `self.attr = ...` in any method; for a plain name,
// the assignments to it in at's scope before at.
func anyBound(f *pyparse.File, at *pyparse.Node, name string, is func(v *pyparse.Node) bool) bool {
	found := false
	if attr, ok := strings.CutPrefix(name, "self."); ok && isIdentifier(attr) {
		if cls := methodClass(f.EnclosingFunction(at)); cls != nil {
			selfAssignments(f, cls, func(_ *pyparse.Function, x string, v *pyparse.Node) {
				found = found || x == attr && is(v)
			})
		}
		return found
	}
	if !isIdentifier(name) {
		return false
	}
	for _, m := range f.AssignmentsTo(scopeOf(f, at), name) {
		if m.Start >= at.Start {
			break
		}
		if l, r := m.ChildByField("left"), m.ChildByField("right"); l != nil && r != nil && l.Text(f.Src) == name && is(r) {
			return true
		}
	}
	return false
}

// handlerWhy says why fn (or a function it is nested in) handles a request: a route
// decorator, an endpoint method of a model server class, a web service's function that takes
// the request or is registered as a handler. "" when it does not.
func (a *classifier) handlerWhy(f *pyparse.File, fn *pyparse.Function) string {
	src := f.Src
	if fn != nil {
		for s := fn; s != nil; s = s.Parent {
			for _, d := range s.Decorators {
				if reRoute.MatchString(d.Text(src)) {
					return fmt.Sprintf("in the request handler `%s` (%s)", s.Name, firstLine(d.Text(src)))
				}
			}
			if s.Class != nil && reServeMethod.MatchString(s.Name) {
				for _, b := range a.g.Project.classBases(f, s.Class) {
					if reHandlerBases.MatchString(b) {
						return fmt.Sprintf("in `%s.%s`, an endpoint of a model server (%s)", s.Class.Name, s.Name, b)
					}
				}
			}
		}
		if a.servesWeb(f) && (hasParam(fn, "request", "req") || a.registeredAsHandler(f, fn)) {
			return fmt.Sprintf("in `%s`, a request handler of a web service", fn.Name)
		}
	}
	return ""
}

// requestOnly reports, as "called from the request handler `h`", a function that every call
// path reaches from request handlers, or from a person's turns in an interactive loop, only
// (an effect summary over the callers, memoized; cycles end): its work is per request,
// whatever its loops look like. "" otherwise.
func (a *classifier) requestOnly(fn *pyparse.Function, depth int) string {
	return remember(&a.eff, &a.requests, depthKey{fn, depth}, "", func() string { return a.findRequestOnly(fn, depth) })
}

func (a *classifier) findRequestOnly(fn *pyparse.Function, depth int) string {
	callers := a.g.Callers[fn]
	if len(callers) == 0 || depth > 8 {
		return ""
	}
	via := ""
	for _, e := range callers {
		c := e.Call.Function
		if c == nil || c == fn {
			return ""
		}
		v := ""
		if why := a.handlerWhy(e.File, c); why != "" {
			v = fmt.Sprintf("called from the request handler `%s`", c.Name)
		} else if l := enclosingLoopOrBody(e.Call.Node); l != nil && l.Kind() != "block" && l.Kind() != "module" && a.readsInput(e.File, l.ChildByField("body")) != "" {
			// A person's turn in a chat loop is a request too: the same helper serves a web
			// route and the command-line chat (FastChat's generate_stream).
			v = fmt.Sprintf("called on each turn of the interactive loop at line %d in `%s`", l.Line(), c.Name)
		} else {
			v = a.requestOnly(c, depth+1)
		}
		if v == "" {
			return ""
		}
		if via == "" {
			via = v
		}
	}
	return via
}

// patternAfterService matches the legitimate uses that come after OOM handling and service
// guards.
func (a *classifier) patternAfterService(f *pyparse.File, call *pyparse.Node, lc *localContext, freq Frequency) (Pattern, string) {
	src := f.Src

	// 3. Leak diagnosis: gated by a measurement compared with a baseline, or in a function
	// that measures memory and is named for it.
	for _, g := range lc.Gates {
		if reMeasure.MatchString(g.Text) && (strings.Contains(g.Text, "-") || strings.Contains(strings.ToLower(g.Text), "baseline") || strings.Contains(g.Text, "before")) {
			return LeakDiagnosis, fmt.Sprintf("gated by the memory measurement `%s` at line %d", g.Text, g.Node.Line())
		}
	}
	if fn := lc.Function; fn != nil && reDiagName.MatchString(fn.Name) && reMeasure.Match(src[fn.Node.Start:fn.Node.End]) {
		return LeakDiagnosis, fmt.Sprintf("in `%s`, which measures memory", fn.Name)
	}
	// A clear that takes a baseline: a memory reading right after it, kept to be compared
	// (resetting the peak statistics alone measures nothing; a reading only printed or logged
	// compares nothing either).
	if lc.innermostLoop() == nil {
		_, after := siblings(call, 5)
		for _, st := range after {
			if m := reMemRead.FindString(st.Text(src)); m != "" && keptReading(f, st) {
				return LeakDiagnosis, fmt.Sprintf("takes a memory baseline right after (`%s()` at line %d)", m, st.Line())
			}
		}
	}

	// A clear that measures what it frees, in a bounded loop of its own (`for attempt in
	// range(n)`): a reading kept before it and one kept after it (verl's and ms-swift's
	// aggressive_empty_cache compare them and stop once little was freed). The measurement
	// is the function's own; its callers call it to free memory and do not inherit it.
	if l := lc.innermostLoop(); l != nil && l.Kind == otherLoop && strings.Contains(l.Header, "range(") {
		before, after := siblings(call, 5)
		read := func(sts []*pyparse.Node) *pyparse.Node {
			for _, st := range sts {
				if reMemRead.MatchString(st.Text(src)) && keptReading(f, st) {
					return st
				}
			}
			return nil
		}
		if b, e := read(before), read(after); b != nil && e != nil {
			a.ownPattern[call] = true
			return LeakDiagnosis, fmt.Sprintf("measures what it frees: memory read at line %d before it and at line %d after it, and compared", b.Line(), e.Line())
		}
	}

	// 4. Model switch: a model deleted, moved to CPU or replaced around the call; a loop over
	// models or stages; alternating generator/discriminator training.
	if why := a.modelSwitchNearby(f, call, !lc.inStepLoop() && !steady(freq)); why != "" {
		return ModelSwitch, why
	}
	// A clear that starts a measurement: the peak statistics reset right after it and read
	// later in the function (the clear makes the reading the measured code's own), where no
	// model is switched beside it (a probe that clears, resets and loads the next
	// configuration's model is switching first). Not on every step: a reading per step is
	// monitoring, and the clear's cost is paid each time.
	if !lc.inStepLoop() && !steady(freq) {
		_, after := siblings(call, 2)
		for _, st := range after {
			if reResetPeak.MatchString(st.Text(src)) {
				if read := readAfter(f, st); read != nil {
					return LeakDiagnosis, fmt.Sprintf("starts a measurement: the peak statistics are reset at line %d and read at line %d", st.Line(), read.Line())
				}
			}
		}
	}
	for _, l := range lc.Loops {
		if l.Kind == stepLoop {
			break // a loop over models around the step loop does not make each step a switch
		}
		if reModelLoop.MatchString(l.Names) {
			return ModelSwitch, fmt.Sprintf("in the loop over models at line %d (`%s`)", l.Node.Line(), l.Header)
		}
		if how := a.loadsIn(f, l.Node.ChildByField("body"), call, 0); how != "" {
			return ModelSwitch, fmt.Sprintf("each iteration of the loop at line %d (`%s`) loads a model (%s)", l.Node.Line(), l.Header, how)
		}
	}

	// 5. Interactive cleanup: top-level code of a notebook, module-level code after `del`,
	// or a loop that waits for a person each iteration (a REPL reading `input()`): a clear
	// per turn of a human costs nothing anyone waits for.
	// A turn that runs the model for a person's message is no training step, though its
	// forward makes the loop look like one; a turn that trains is.
	// A clear that a gate lets run once in the whole session (`if turns == 1000:`) is one-off
	// housekeeping on no one's request, not cleanup between a person's turns.
	if l := lc.innermostLoop(); l != nil && freq != Once && (l.Kind != stepLoop || a.directStep(f, l.Node.ChildByField("body")) == "") {
		if what := a.readsInput(f, l.Node.ChildByField("body")); what != "" {
			return InteractiveCleanup, fmt.Sprintf("in the interactive loop at line %d (`%s`), which waits for `%s` on each turn", l.Node.Line(), l.Header, what)
		}
	}
	if lc.Function == nil && len(lc.Loops) == 0 {
		if a.notebook(f) {
			return InteractiveCleanup, "top-level code of a notebook cell"
		}
		// A script's top level run by hand; a package's module runs its top level when it
		// is imported, setting up, not cleaning up after a person.
		if !a.g.Project.inPackage(f) && nearby(f, call, 3, func(t string) bool { return strings.HasPrefix(t, "del ") }) {
			return InteractiveCleanup, "module-level cleanup after `del`"
		}
	}
	return PatternNone, ""
}

// reResetPeak: a reset of the allocator's peak statistics.
var reResetPeak = lazyregexp.New(`\breset_(peak_memory_stats|max_memory_allocated|max_memory_cached)\s*\(`)

// readAfter is the first memory reading after st in its function (nested definitions
// aside), or nil.
func readAfter(f *pyparse.File, st *pyparse.Node) *pyparse.Node {
	var read *pyparse.Node
	walkOwn(scopeOf(f, st), func(m *pyparse.Node) {
		if read == nil && m.Start >= st.End && m.Kind() == "call" && reMemRead.MatchString(pyparse.DottedName(m.ChildByField("function"), f.Src)) {
			read = m
		}
	})
	return read
}

// keptReading reports a statement that keeps a memory reading to compare: it returns it,
// stores it in an attribute or a container (`self.begin = ...`, `m["gpu"] = ...`: compared
// elsewhere), or binds a name that a subtraction or comparison uses later in the function.
// A reading printed, logged or turned into a figure for a message is kept for nothing.
func keptReading(f *pyparse.File, st *pyparse.Node) bool {
	if st.Kind() == "return_statement" {
		return true
	}
	e := st.NamedChildren()
	if st.Kind() != "expression_statement" || len(e) == 0 || e[0].Kind() != "assignment" && e[0].Kind() != "augmented_assignment" {
		return false
	}
	left := e[0].ChildByField("left")
	if left == nil {
		return false
	}
	names := map[string]bool{}
	kept := false
	left.Walk(func(n *pyparse.Node) bool {
		switch n.Kind() {
		case "attribute", "subscript":
			kept = true
			return false
		case "identifier":
			names[n.Text(f.Src)] = true
		}
		return true
	})
	if kept {
		return true
	}
	walkOwn(scopeOf(f, st), func(m *pyparse.Node) {
		if kept || m.Start < st.End {
			return
		}
		compare := m.Kind() == "comparison_operator"
		if m.Kind() == "binary_operator" {
			op := m.ChildByField("operator")
			compare = op != nil && op.Text(f.Src) == "-"
		}
		if !compare {
			return
		}
		m.Walk(func(n *pyparse.Node) bool {
			if n.Kind() == "identifier" && names[n.Text(f.Src)] {
				kept = true
			}
			return !kept
		})
	})
	return kept
}

// weightless reports a loader call whose receiver loads no model (reWeightless):
// `AutoTokenizer.from_pretrained`, `self.tokenizer_class.from_pretrained`.
func weightless(callee string) bool {
	i := strings.LastIndex(callee, ".")
	if i <= 0 {
		return false
	}
	recv := callee[:i]
	return reWeightless.MatchString(recv[strings.LastIndex(recv, ".")+1:])
}

// loadsIn says how a block loads a model, directly (`from_pretrained`, `load_model`, ...)
// or through the project functions it calls, at most 4 - depth calls deep (depth 4: direct
// loads only): "`sft_main()` -> `from_pretrained()`". The call being classified itself is
// skipped. "" when it does not.
func (a *classifier) loadsIn(f *pyparse.File, body *pyparse.Node, skip *pyparse.Node, depth int) string {
	if e := a.loadEffect(f, body, skip); e.how != "" && e.calls <= 4-depth {
		return e.how
	}
	return ""
}

// loadEffect is a block's load effect: how it loads a model and through how many calls
// (0: the block calls a loader itself), the nearest load first.
type loadEffect struct {
	how   string
	calls int
}

// loadEffect reads a block's load effect. A function's is an effect summary, memoized per
// function and independent of where it is asked from (a limit on the calls followed, applied
// while summarising, made a function's summary depend on which call site asked first);
// cycles end.
func (a *classifier) loadEffect(f *pyparse.File, body *pyparse.Node, skip *pyparse.Node) loadEffect {
	best := loadEffect{}
	if body == nil {
		return best
	}
	body.Walk(func(n *pyparse.Node) bool {
		if best.how != "" && best.calls == 0 || n == skip || n.Kind() == "function_definition" || n.Kind() == "class_definition" || n.Kind() == "lambda" {
			return false
		}
		if n.Kind() != "call" {
			return true
		}
		callee := pyparse.DottedName(n.ChildByField("function"), f.Src)
		if callee == "" {
			return true
		}
		if last := callee[strings.LastIndex(callee, ".")+1:]; reLoaderName.MatchString(last) && !weightless(callee) {
			best = loadEffect{"`" + last + "()`", 0}
			return false
		}
		r := a.resolveCall(f, n)
		if r == nil || r.fn.Node == nil || r.fn.Node.Contains(n) {
			return true
		}
		e := remember(&a.eff, &a.loads, r.fn, loadEffect{}, func() loadEffect { // cycles end
			return a.loadEffect(r.file, r.fn.Body, nil)
		})
		if e.how != "" && (best.how == "" || e.calls+1 < best.calls) {
			how := "`" + r.fn.Name + "()` -> " + e.how
			if parts := strings.Split(e.how, " -> "); len(parts) > 1 {
				how = "`" + r.fn.Name + "()` -> ... -> " + parts[len(parts)-1]
			}
			best = loadEffect{how, e.calls + 1}
		}
		return true
	})
	return best
}

// oomHandler reports an except clause that handles an out-of-memory error: it names one, or
// it catches more (a bare `except:`, `except Exception`, `except RuntimeError`) and either
// tests for OOM or retries the failed work (CL006's reading). A broad handler that clears the
// cache and logs, re-raises, skips the item or falls back is an error path, not an OOM retry.
func (a *classifier) oomHandler(f *pyparse.File, h *handler, call *pyparse.Node) bool {
	k := h.Kind
	if k.oom || k.memory {
		return true
	}
	if !k.catchesOOM() || h.Try == nil || h.Try.Kind() != "try_statement" {
		return false
	}
	body := handlerBody(h.Node)
	if body == nil {
		return false
	}
	// A handler that clears and re-raises everything is cleanup on the way out, not a retry.
	if testsOOM(f, body, k) || retryLoop(h.Try, body) {
		return true
	}
	if a.clears == nil {
		a.clears = clearingCalls(a.g)
	}
	retry, _ := findRetry(a.g, f, h.Try, body, call, a.clears)
	return retry != nil
}

// gatedRegexp is an alternation of names each of which holds one of literals: a text that
// holds none of them is answered without running the expression (a statement's whole text
// is searched for loader names, mostly in vain, and a literal search is many times faster).
type gatedRegexp struct {
	*lazyregexp.Regexp
	literals []string
}

// MatchString is the expression's MatchString.
func (g gatedRegexp) MatchString(s string) bool {
	for _, l := range g.literals {
		if strings.Contains(s, l) {
			return g.Regexp.MatchString(s)
		}
	}
	return false
}

// ganSides reports whether t names a generator (reGANGen) and a discriminator (reGANDisc),
// word by word: the expressions are all whole words, matched ignoring case, which for ASCII
// text is ASCII case. Other text, where Unicode's case folding may match more (`ſ` for
// `s`), goes to the expressions themselves.
func ganSides(t string) (gen, disc bool) {
	for i := 0; i < len(t); i++ {
		if t[i] >= utf8.RuneSelf {
			return reGANGen.MatchString(t), reGANDisc.MatchString(t)
		}
	}
	for i := 0; i < len(t); {
		if !isWordByte(t[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(t) && isWordByte(t[j]) {
			j++
		}
		switch w := strings.ToLower(t[i:j]); w {
		case "generator", "netg", "optimizer_g", "opt_g", "train_g", "g_step":
			gen = true
		case "discriminator", "netd", "optimizer_d", "opt_d", "train_d", "d_step":
			disc = true
		default:
			gen = gen || strings.HasSuffix(w, "_generator")
			disc = disc || strings.HasSuffix(w, "_discriminator")
		}
		i = j
	}
	return gen, disc
}

// isWordByte is regexp's \w.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// head is firstLine of n's text, without copying the rest of it (a loop statement's text is
// its whole body).
func head(src []byte, n *pyparse.Node) string {
	text := src[n.Start:n.End]
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSpace(string(text))
}

func hasParam(fn *pyparse.Function, names ...string) bool {
	for _, p := range fn.Params {
		for _, n := range names {
			if p == n {
				return true
			}
		}
	}
	return false
}

// servesWeb reports whether f imports a web or UI framework (reWebImports), read once per file.
func (a *classifier) servesWeb(f *pyparse.File) bool {
	web, done := a.web[f]
	if !done {
		web = slices.ContainsFunc(f.Imports, func(imp pyparse.Import) bool {
			return reWebImports.MatchString(imp.Qualified) || reWebImports.MatchString(imp.Module)
		})
		a.web[f] = web
	}
	return web
}

// registeredAsHandler reports whether fn is handed to a UI/web framework by name:
// `gr.Interface(fn=infer)`, `btn.click(infer, ...)`, `app.add_url_rule(..., view_func=infer)`.
func (a *classifier) registeredAsHandler(f *pyparse.File, fn *pyparse.Function) bool {
	for _, c := range f.Calls {
		if c.Args == nil {
			continue
		}
		register := reRegister.MatchString(c.Callee)
		for arg := range c.Args.NamedSeq() {
			v := arg
			if arg.Kind() == "keyword_argument" {
				v = arg.ChildByField("value")
				// Gradio's listeners take the handler as `fn=`, also from a dict of their
				// arguments (`dict(fn=predict, ...)`, then `btn.click(**args)`): gradio
				// events.py, EventListener's `fn` parameter.
				if k := arg.ChildByField("name"); !register && (k == nil || k.Text(f.Src) != "fn") {
					continue
				}
			} else if !register {
				continue
			}
			if v != nil && v.Kind() == "identifier" && v.Text(f.Src) == fn.Name {
				return true
			}
		}
	}
	return false
}

// changesSize reports whether a loop's body shrinks or grows a size (`batch_size //= 2`,
// `new_size = new_size * 2`, `bs -= 8`): a batch-size search. A size that adds up what each
// turn brings (`sample_size += sample_size_i` in a loop over micro-batches) or is set anew
// from the data is no search.
func changesSize(f *pyparse.File, loopNode *pyparse.Node) bool {
	found := false
	loopNode.ChildByField("body").Walk(func(m *pyparse.Node) bool {
		if found || m.Kind() == "function_definition" {
			return false
		}
		if m.Kind() != "augmented_assignment" && m.Kind() != "assignment" {
			return true
		}
		l, r := m.ChildByField("left"), m.ChildByField("right")
		if l == nil || r == nil || !strings.Contains(strings.ToLower(l.Text(f.Src)), "size") {
			return true
		}
		if m.Kind() == "augmented_assignment" {
			op := m.ChildByField("operator")
			found = op != nil && op.Text(f.Src) != "+="
			return true
		}
		r.Walk(func(n *pyparse.Node) bool {
			if op := n.ChildByField("operator"); n.Kind() == "binary_operator" && op != nil {
				switch op.Text(f.Src) {
				case "*", "/", "//", ">>", "<<", "-":
					found = true
				}
			}
			return !found
		})
		return true
	})
	return found
}

// hasOOMHandler reports whether a loop's body has a try whose handler catches an OOM.
func hasOOMHandler(f *pyparse.File, loopNode *pyparse.Node) bool {
	found := false
	loopNode.ChildByField("body").Walk(func(m *pyparse.Node) bool {
		if found || m.Kind() == "function_definition" {
			return false
		}
		if m.Kind() == "except_clause" {
			// A retry loop's handler names the OOM, catches RuntimeError (what CUDA raises),
			// or reads the message; `except Exception` alone does not make a retry loop.
			k := exceptKindOf(f, m)
			runtime := k.broad != nil && strings.HasSuffix(pyparse.DottedName(k.broad, f.Src), "RuntimeError")
			found = k.oom || k.memory || runtime || strings.Contains(m.Text(f.Src), "out of memory")
		}
		return true
	})
	return found
}

// siblings returns the statements of the call's block, within `span` statements of it.
// It steps out from the call's statement, so its cost is the span, not the block.
func siblings(call *pyparse.Node, span int) (before, after []*pyparse.Node) {
	stmt := call.Statement()
	if stmt == nil || stmt.Parent() == nil {
		return nil, nil
	}
	block := stmt.Parent()
	statement := func(c *pyparse.Node) bool { return c.Named() && c.Kind() != "comment" }
	if !statement(stmt) {
		return nil, nil
	}
	for i := stmt.Index() - 1; i >= 0 && len(before) < span; i-- {
		if statement(block.Child(i)) {
			before = append(before, block.Child(i))
		}
	}
	slices.Reverse(before)
	for i := stmt.Index() + 1; i < block.ChildCount() && len(after) < span; i++ {
		if statement(block.Child(i)) {
			after = append(after, block.Child(i))
		}
	}
	return before, after
}

func nearby(f *pyparse.File, call *pyparse.Node, span int, match func(string) bool) bool {
	before, after := siblings(call, span)
	for _, s := range append(before, after...) {
		if match(strings.TrimSpace(s.Text(f.Src))) {
			return true
		}
	}
	return false
}

// modelSwitchNearby looks at the statements around the call, and around the `if` or
// `with` blocks that hold it (up to the enclosing loop or function), for a model being
// deleted, moved off the GPU, replaced or loaded, or for generator/discriminator alternation.
// wide (a call outside any step loop, not run per step) also counts a load anywhere in a
// statement (`_, state = engine.load_checkpoint(path)`), and beside the call itself the
// effects of the project functions the statements call: `pipe = _load()` where `_load`
// calls `from_pretrained`. On a step an accessor (`self.get_model()`) passed to a call, or a
// callee that loads somewhere deep down, says nothing about each step.
func (a *classifier) modelSwitchNearby(f *pyparse.File, call *pyparse.Node, wide bool) string {
	n := call
	for level := 0; level < 3 && n != nil; level++ {
		if why := a.modelSwitchAround(f, n, wide, wide && level == 0); why != "" {
			return why
		}
		stmt := n.Statement()
		if stmt == nil || stmt.Parent() == nil || stmt.Parent().Parent() == nil {
			return ""
		}
		outer := stmt.Parent().Parent() // the block's owner: if/elif/else/with/try/loop/def
		for outer != nil && outer.Parent() != nil && (outer.Kind() == "elif_clause" || outer.Kind() == "else_clause" || outer.Kind() == "except_clause" || outer.Kind() == "finally_clause") {
			outer = outer.Parent()
		}
		if outer == nil || outer.Kind() == "while_statement" || outer.Kind() == "function_definition" || outer.Kind() == "module" ||
			outer.Kind() == "for_statement" && !repeatLoop(f, outer) {
			return ""
		}
		if outer.Kind() == "with_statement" {
			if why := a.loadingManager(f, outer); why != "" {
				return why
			}
		}
		n = outer
	}
	return ""
}

// repeatLoop reports `for _ in range(3)`: the same statements repeated a few times (a clear
// run thrice to be sure), no loop over work; what is beside the loop is beside the call.
func repeatLoop(f *pyparse.File, loop *pyparse.Node) bool {
	left, right := loop.ChildByField("left"), loop.ChildByField("right")
	if left == nil || right == nil || left.Text(f.Src) != "_" || right.Kind() != "call" ||
		pyparse.DottedName(right.ChildByField("function"), f.Src) != "range" {
		return false
	}
	args := right.ChildByField("arguments")
	return args != nil && len(args.NamedChildren()) == 1 && args.NamedChildren()[0].Kind() == "integer"
}

// loadingManager says how a `with` statement's items load a model for its body (`with
// vae_info.model_on_device() as vae:`, InvokeAI's LoadedModel context that locks the model
// into VRAM), or "".
func (a *classifier) loadingManager(f *pyparse.File, with *pyparse.Node) string {
	why := ""
	for c := range with.Children() {
		if c.Kind() != "with_clause" {
			continue
		}
		if how := a.loadsIn(f, c, nil, 4); how != "" {
			why = fmt.Sprintf("inside the `with` at line %d, which loads the model (%s)", with.Line(), how)
		}
	}
	return why
}

func (a *classifier) modelSwitchAround(f *pyparse.File, call *pyparse.Node, wide, deep bool) string {
	before, after := siblings(call, 4)
	src := f.Src
	// The nearest statements first: the one right before the call tells most.
	near := append(slices.Clone(before), after...)
	slices.Reverse(near[:len(before)])
	for _, s := range near {
		if why := a.switchStatement(f, s, false, wide, deep); why != "" {
			return why
		}
		if wide {
			if why := tensorsMoved(f, s); why != "" {
				return why
			}
		}
		// `for hook in hooks: hook.offload()`, `if offload: ae = ae.cpu()` next to the call.
		// A module moved onto a device in a branch beside a call that does not run per step
		// (`if manager: manager.move(child) else: child.to(device)`) is moved as beside it; in a
		// loop beside it, blocks moved back and forth are offloading inside the work.
		switch s.Kind() {
		case "for_statement", "if_statement", "with_statement":
			why := ""
			s.Walk(func(m *pyparse.Node) bool {
				if why != "" || m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda" {
					return false
				}
				if m != s && (m.Kind() == "expression_statement" || m.Kind() == "delete_statement") {
					nested := !wide || s.Kind() != "if_statement" || insideLoop(m, s)
					why = a.switchStatement(f, m, nested, false, false)
					return false
				}
				return true
			})
			if why != "" {
				return why
			}
		}
	}
	// Both a generator and a discriminator around the call (a `generator=` keyword of a
	// diffusion pipeline alone is no GAN). The statement's first line is enough.
	gen, disc := false, false
	for _, s := range append(before, after...) {
		t := head(src, s)
		g, d := ganSides(t)
		gen, disc = gen || g, disc || d
	}
	if gen && disc {
		return "between generator and discriminator training"
	}
	return ""
}

// switchStatement says how one statement switches models: a model deleted, replaced or
// set to None, a module moved to the CPU or the meta device (a discarded `.to("cpu")` or
// `.cpu()` result can only be a module's: a tensor's copy would be thrown away), or a
// model loaded or offloaded.
//
// nested marks a statement inside a loop, branch or `with` next to the call: moves of a
// module onto a device count only beside the call (a loop moving blocks back and forth is
// offloading inside the work, not a switch between models). wide also reads a loader's
// call anywhere in the statement; deep also follows the project functions the statement
// calls (their effects: loading a model, freeing one).
func (a *classifier) switchStatement(f *pyparse.File, s *pyparse.Node, nested, wide, deep bool) string {
	why := a.switchOwn(f, s, nested)
	if why != "" || !wide || s.Kind() == "delete_statement" {
		return why
	}
	switch s.Kind() {
	case "expression_statement", "return_statement":
	default:
		return ""
	}
	// A load anywhere in the statement: `_, state = engine.load_checkpoint(path)`,
	// `return self.checkpoint_io.load_checkpoint(path)`, `pipe = Pipe.from_pretrained(p).to("cuda")`.
	depth := 4 // direct calls only
	if deep {
		depth = 2
	}
	if how := a.loadsIn(f, s, nil, depth); how != "" {
		return fmt.Sprintf("`%s` at line %d loads a model (%s)", firstLine(s.Text(f.Src)), s.Line(), how)
	}
	// `engine = InferenceEngine(controller)`: a model built anew.
	if e := s.NamedChildren(); len(e) == 1 && e[0].Kind() == "assignment" && a.modelValue(f, e[0].ChildByField("right"), false) {
		return fmt.Sprintf("`%s` at line %d builds a model", firstLine(s.Text(f.Src)), s.Line())
	}
	if !deep {
		return ""
	}
	walkOwn(s, func(m *pyparse.Node) {
		if why != "" || m.Kind() != "call" {
			return
		}
		if r := a.resolveCall(f, m); r != nil && r.fn.Body != nil {
			if w := a.freesIn(r); w != "" {
				why = fmt.Sprintf("`%s()` at line %d frees a model (%s)", r.fn.Name, m.Line(), w)
			}
		}
	})
	return why
}

// freesIn says how a project function frees a model in its own body (`del self.pipe`, a
// model moved to the CPU or set to None), memoized; "" when it does not.
func (a *classifier) freesIn(r *funcRef) string {
	if v, ok := a.frees[r.fn]; ok {
		return v
	}
	a.frees[r.fn] = ""
	why := ""
	walkOwn(r.fn.Body, func(m *pyparse.Node) {
		if why == "" && (m.Kind() == "delete_statement" || m.Kind() == "expression_statement") {
			why = a.switchOwn(r.file, m, true)
		}
	})
	a.frees[r.fn] = why
	return why
}

// switchOwn is switchStatement's reading of the statement itself.
func (a *classifier) switchOwn(f *pyparse.File, s *pyparse.Node, nested bool) string {
	src := f.Src
	switch s.Kind() {
	case "delete_statement":
		for t := range s.NamedSeq() {
			for _, name := range deleteTargets(t, src) {
				if a.holdsModel(f, s, name) {
					return fmt.Sprintf("`del %s` at line %d switches models", name, s.Line())
				}
			}
		}
	case "expression_statement":
		e := s.NamedChildren()
		if len(e) == 0 {
			return ""
		}
		if e[0].Kind() == "assignment" {
			left := e[0].ChildByField("left")
			right := e[0].ChildByField("right")
			// `t5, clip, ae = t5.cpu(), clip.cpu(), ae.cpu()`: modules moved off the GPU.
			if left != nil && right != nil && (left.Kind() == "pattern_list" || left.Kind() == "tuple_pattern") && (right.Kind() == "expression_list" || right.Kind() == "tuple") {
				off := 0
				for _, v := range right.NamedChildren() {
					if v.Kind() == "call" && offDevice(f, v) {
						off++
					}
				}
				if off > 0 && off == len(right.NamedChildren()) {
					return fmt.Sprintf("`%s` at line %d moves the models off the GPU", head(src, s), s.Line())
				}
			}
			// `model = model.to(device)`: a model moved onto the device, loaded for what follows.
			if left != nil && right != nil && right.Kind() == "call" && reModelName.MatchString(left.Text(src)) && !offDevice(f, right) {
				if fn := right.ChildByField("function"); fn != nil && fn.Kind() == "attribute" && fn.ChildByField("attribute").Text(src) == "to" &&
					pyparse.DottedName(fn.ChildByField("object"), src) == left.Text(src) {
					return fmt.Sprintf("`%s` at line %d moves the model onto the device", head(src, s), s.Line())
				}
			}
			if left != nil && right != nil {
				lt, rt := left.Text(src), right.Text(src)
				loads := reLoadModel.MatchString(rt) && (right.Kind() != "call" || !weightless(pyparse.DottedName(right.ChildByField("function"), src)))
				if (rt == "None" || loads || strings.HasSuffix(rt, ".cpu()")) && a.holdsModel(f, s, lt) {
					return fmt.Sprintf("`%s` at line %d replaces the model", head(src, s), s.Line())
				}
				if right.Kind() == "call" && offDevice(f, right) && strings.HasPrefix(rt, lt+".") && reModelName.MatchString(lt) {
					return fmt.Sprintf("`%s` at line %d moves the model off the GPU", head(src, s), s.Line())
				}
			}
		}
		if e[0].Kind() == "call" {
			callee := pyparse.DottedName(e[0].ChildByField("function"), src)
			if offDevice(f, e[0]) {
				return fmt.Sprintf("`%s` at line %d moves the model off the GPU", head(src, s), s.Line())
			}
			// `vae.to(org_device)`, `ae.cuda()` with the result thrown away: only a module's
			// .to() works in place (a tensor's returns a copy), so this moves a model.
			if fn := e[0].ChildByField("function"); !nested && fn != nil && fn.Kind() == "attribute" && movesToDevice(f, e[0]) &&
				!holdsOutput(f, s, pyparse.DottedName(fn.ChildByField("object"), src)) {
				return fmt.Sprintf("`%s` at line %d moves the model onto the device", head(src, s), s.Line())
			}
			// What the call does is its name's to say, not its receiver's: a method of an
			// object called `offloader` (`self.offloader.set_forward_only(True)`) sets a flag.
			if reLoadModel.MatchString(callee[strings.LastIndex(callee, ".")+1:]) && !weightless(callee) {
				return fmt.Sprintf("`%s` at line %d loads or offloads a model", head(src, s), s.Line())
			}
			// `model.destroy()`: DeepSpeed's engine frees what it holds
			// (deepspeed/runtime/engine.py, DeepSpeedEngine.destroy).
			if recv, ok := strings.CutSuffix(callee, ".destroy"); ok && a.holdsModel(f, s, recv) {
				return fmt.Sprintf("`%s` at line %d destroys the model", head(src, s), s.Line())
			}
		}
	}
	return ""
}

// tensorsMoved says how a statement beside the call moves a model's tensors to another
// device one by one: a loop whose body swaps each tensor's storage for a copy on another
// device or an empty placeholder (`param.data = param.data.to("cpu")`, `tensor.data =
// torch.empty(0)`: only tensors have `.data`), replaces each entry or field with its own
// copy off the device (`sd[k] = sd[k].cpu()`), or onto it when the loop walks a module's or
// an optimizer's state (`for v in opt.state.values(): v["exp_avg"] = v["exp_avg"].to(dev)`). That is a model offloaded or loaded weight by
// weight, as ZeRO, Megatron and verl do it; a plain name moved (`batch = batch.to(dev)`) is a
// copy, not a move, and does not count. Only beside a call that does not run per step
// (modelSwitchAround's wide): weights moved in and out inside the work are offloading, not a
// switch.
func tensorsMoved(f *pyparse.File, s *pyparse.Node) string {
	why := ""
	s.Walk(func(m *pyparse.Node) bool {
		if why != "" || m.Kind() == "function_definition" || m.Kind() == "class_definition" || m.Kind() == "lambda" {
			return false
		}
		if m.Kind() == "for_statement" {
			if how := movesEach(f, m); how != "" {
				why = fmt.Sprintf("the loop at line %d (`%s`) %s", m.Line(), strings.TrimSuffix(firstLine(m.Text(f.Src)), ":"), how)
				return false
			}
		}
		return true
	})
	return why
}

// reStateIter: what a loop walks when it walks a module's or an optimizer's tensors.
var reStateIter = lazyregexp.New(`\.(named_)?(parameters|buffers)\(|\.state_dict\(|\.state\b|\bparam_groups\b`)

// movesEach is tensorsMoved's reading of one loop.
func movesEach(f *pyparse.File, loop *pyparse.Node) string {
	src := f.Src
	state := false
	if it := loop.ChildByField("right"); it != nil {
		isState := func(v *pyparse.Node) bool { return reStateIter.MatchString(v.Text(src)) }
		state = isState(it) || it.Kind() == "identifier" && anyBound(f, loop, it.Text(src), isState)
	}
	how := ""
	walkOwn(loop.ChildByField("body"), func(m *pyparse.Node) {
		if how != "" || m.Kind() != "assignment" {
			return
		}
		left, right := m.ChildByField("left"), m.ChildByField("right")
		if left == nil || right == nil {
			return
		}
		if right.Kind() != "call" {
			return
		}
		if left.Kind() == "attribute" && left.ChildByField("attribute").Text(src) == "data" {
			// Onto or off a device, or freed for an empty placeholder; not cast to another
			// dtype (`param.data = param.data.to(torch.float32)`) or aliased into a flat
			// buffer (`p.data = q.data`).
			if offDevice(f, right) || movesToDevice(f, right) || pyparse.DottedName(right.ChildByField("function"), src) == "torch.empty" {
				how = fmt.Sprintf("swaps each tensor's storage (`%s`)", firstLine(m.Text(src)))
			}
			return
		}
		if left.Kind() != "subscript" && left.Kind() != "attribute" {
			return
		}
		fn := right.ChildByField("function")
		if fn == nil || fn.Kind() != "attribute" || fn.ChildByField("object").Text(src) != left.Text(src) {
			return
		}
		switch {
		case offDevice(f, right):
			how = fmt.Sprintf("moves each tensor off the device (`%s`)", firstLine(m.Text(src)))
		case state && movesToDevice(f, right):
			how = fmt.Sprintf("moves each tensor of the state onto the device (`%s`)", firstLine(m.Text(src)))
		}
	})
	return how
}

// offDevice reports `x.cpu()` or `x.to("cpu")` / `x.to("meta")` / `x.to(device="cpu")`.
func offDevice(f *pyparse.File, call *pyparse.Node) bool {
	fn := call.ChildByField("function")
	if fn == nil || fn.Kind() != "attribute" {
		return false
	}
	switch fn.ChildByField("attribute").Text(f.Src) {
	case "cpu":
		return true
	case "to":
		args := call.ChildByField("arguments")
		return args != nil && reCPUArg.MatchString(args.Text(f.Src))
	}
	return false
}

var reCPUArg = lazyregexp.New(`(?i)["'](cpu|meta)["']|\bcpu\b|offload_device|torch\.device\(["']cpu`)

func deleteTargets(n *pyparse.Node, src []byte) []string {
	if n.Kind() == "expression_list" || n.Kind() == "tuple" {
		var out []string
		for _, c := range n.NamedChildren() {
			out = append(out, c.Text(src))
		}
		return out
	}
	return []string{n.Text(src)}
}

// afterSwallowedOOM reports a call that runs only after a context manager swallowed an
// out-of-memory error: it follows a `with` block whose body always returns, so control
// reaches it only when the body raised and the manager suppressed the error, and the manager
// suppresses OOM (swallowsOOM). This is the retry the article recommends done with a context
// manager: `with ignore_oom(): return f(x)`, then clear and call f again.
func (a *classifier) afterSwallowedOOM(f *pyparse.File, call *pyparse.Node) string {
	scope := f.EnclosingFunction(call)
	for n := call; n != nil && n.Parent() != nil; n = n.Parent() {
		if n.Kind() == "function_definition" || n.Kind() == "class_definition" || n.Kind() == "lambda" {
			return ""
		}
		if n.Parent().Kind() != "block" && n.Parent().Kind() != "module" {
			continue
		}
		withs := a.exitingWiths(n.Parent())
		for i := len(withs) - 1; i >= 0; i-- {
			w := withs[i]
			if w.Start >= n.Start {
				continue
			}
			clause := w.Find(func(m *pyparse.Node) bool { return m.Kind() == "with_clause" })
			if clause == nil {
				continue // a with statement the parser could not read
			}
			for _, item := range clause.NamedChildren() {
				v := item.ChildByField("value")
				if v != nil && v.Kind() == "as_pattern" && len(v.NamedChildren()) > 0 {
					v = v.NamedChildren()[0]
				}
				if why := a.swallowsOOM(f, scope, v); why != "" {
					return fmt.Sprintf("runs only after `with %s:` at line %d swallowed an out-of-memory error (%s; its body returns)",
						shorten(v.Text(f.Src)), w.Line(), why)
				}
			}
		}
	}
	return ""
}

// exitingWiths are the `with` statements of block whose bodies always exit (alwaysExits),
// in order, memoized: each call in a block asked about every statement before it.
func (a *classifier) exitingWiths(block *pyparse.Node) []*pyparse.Node {
	if ws, ok := a.withs[block]; ok {
		return ws
	}
	var ws []*pyparse.Node
	for w := range block.Children() {
		if w.Kind() == "with_statement" && alwaysExits(w.ChildByField("body")) {
			ws = append(ws, w)
		}
	}
	a.withs[block] = ws
	return ws
}

// alwaysExits reports a block whose last statement returns or raises.
func alwaysExits(body *pyparse.Node) bool {
	if body == nil {
		return false
	}
	var last *pyparse.Node
	for _, c := range body.NamedChildren() {
		if c.Kind() != "comment" {
			last = c
		}
	}
	return last != nil && (last.Kind() == "return_statement" || last.Kind() == "raise_statement")
}

// swallowsOOM says how a context manager expression suppresses an out-of-memory error, ""
// when it does not or cannot be told: `contextlib.suppress` of an OOM type (or a broad
// one), a project `@contextmanager` generator whose try around the yield catches OOM without
// raising again, or a project class whose `__exit__` returns true for one (Python's data
// model: a true return from __exit__ suppresses the exception).
func (a *classifier) swallowsOOM(f *pyparse.File, scope *pyparse.Function, v *pyparse.Node) string {
	if v == nil || v.Kind() != "call" {
		return ""
	}
	name := pyparse.DottedName(v.ChildByField("function"), f.Src)
	if name == "" {
		return ""
	}
	if f.Qualify(name) == "contextlib.suppress" {
		if args := v.ChildByField("arguments"); args != nil {
			for _, e := range args.NamedChildren() {
				q := f.Qualify(pyparse.DottedName(e, f.Src))
				if strings.HasSuffix(q, "OutOfMemoryError") || isBroadException(q) {
					return "contextlib.suppress catches it"
				}
			}
		}
		return ""
	}
	p := a.g.Project
	if cr := p.lookupClass(f, name); cr != nil {
		if exit := p.findMethod(cr.file, cr.cls, "__exit__", 0); exit != nil && exit.fn.Body != nil {
			body := exit.fn.Body.Text(exit.file.Src)
			suppresses := false
			walkOwn(exit.fn.Body, func(m *pyparse.Node) {
				if m.Kind() == "return_statement" {
					if r := m.NamedChildren(); len(r) > 0 && r[0].Kind() != "false" && r[0].Kind() != "none" {
						suppresses = true
					}
				}
			})
			if suppresses && (strings.Contains(body, "OutOfMemoryError") || reOOMCheck.MatchString(body)) {
				return fmt.Sprintf("`%s.__exit__` returns true for it", cr.cls.Name)
			}
		}
		return ""
	}
	r := p.resolveName(f, scope, name, 0)
	if r == nil || r.fn.Body == nil || !decoratedWith(r.file, r.fn, "contextmanager") {
		return ""
	}
	why := ""
	walkOwn(r.fn.Body, func(m *pyparse.Node) {
		if why != "" || m.Kind() != "try_statement" {
			return
		}
		body := m.ChildByField("body")
		if body == nil || body.Find(func(y *pyparse.Node) bool { return y.Kind() == "yield" }) == nil {
			return
		}
		for _, clause := range m.NamedChildren() {
			if clause.Kind() != "except_clause" {
				continue
			}
			k := exceptKindOf(r.file, clause)
			h := handlerBody(clause)
			if (k.oom || k.broad != nil || k.bare) && h != nil && h.Find(func(x *pyparse.Node) bool { return x.Kind() == "raise_statement" }) == nil {
				why = fmt.Sprintf("`%s()` catches it around its yield at line %d", r.fn.Name, clause.Line())
			}
		}
	})
	return why
}

// decoratedWith reports a function with a decorator whose name ends in suffix
// (`@contextlib.contextmanager`, `@contextmanager`).
// oomRetryDecorator names the decorator of fn that re-runs it after an out-of-memory error
// (oomRetryDecorators, resolved through the file's imports; `@find_executable_batch_size(
// starting_batch_size=64)` too), or "".
func oomRetryDecorator(f *pyparse.File, fn *pyparse.Function) string {
	for _, d := range fn.Decorators {
		e := d
		if named := d.NamedChildren(); len(named) == 1 {
			e = named[0]
		}
		if e.Kind() == "call" {
			e = e.ChildByField("function")
		}
		name := pyparse.DottedName(e, f.Src)
		if name != "" && oomRetryDecorators[f.Qualify(name)] {
			return name
		}
	}
	return ""
}

func decoratedWith(f *pyparse.File, fn *pyparse.Function, suffix string) bool {
	for _, d := range fn.Decorators {
		if strings.HasSuffix(strings.TrimSpace(strings.TrimPrefix(d.Text(f.Src), "@")), suffix) {
			return true
		}
	}
	return false
}

// assignedBefore is the last assignment to name (pyparse.File.AssignmentsTo) before s in
// s's scope (scopeOf) for which match is true, or nil. (The classifier's lastAssignment reads
// its own index of plain names, bindingsOf, which also knows augmented assignments and loops.)
func assignedBefore(f *pyparse.File, s *pyparse.Node, name string, match func(assignment *pyparse.Node) bool) *pyparse.Node {
	to := f.AssignmentsTo(scopeOf(f, s), name)
	for i := sort.Search(len(to), func(i int) bool { return to[i].Start >= s.Start }) - 1; i >= 0; i-- {
		if match(to[i]) {
			return to[i]
		}
	}
	return nil
}

// holdsOutput reports a name last bound, before s in its function, to what a model returned:
// `g = netG(real)` makes g a tensor, whatever its name, so `del g` frees no model. A name bound
// to a loader, a constructor or a module method (`.to()`, `.cuda()`) holds a model, and one not
// bound in the function (a parameter) is judged by its name elsewhere.
func holdsOutput(f *pyparse.File, s *pyparse.Node, name string) bool {
	if name == "" {
		return false
	}
	last := assignedBefore(f, s, name, func(m *pyparse.Node) bool {
		l := m.ChildByField("left")
		return l != nil && l.Text(f.Src) == name
	})
	if last == nil {
		return false
	}
	right := last.ChildByField("right")
	switch {
	case right == nil:
		return false
	case right.Kind() == "binary_operator" || right.Kind() == "unary_operator":
		return true // arithmetic on tensors
	case right.Kind() != "call":
		return false
	}
	callee := pyparse.DottedName(right.ChildByField("function"), f.Src)
	if callee == "" {
		return false
	}
	lastPart := callee[strings.LastIndex(callee, ".")+1:]
	switch {
	case reLoadModel.MatchString(lastPart), reModuleMethod.MatchString(lastPart), lastPart != "" && unicode.IsUpper(rune(lastPart[0])):
		return false // a loader, a module method returning the module, a constructor
	}
	// The model itself called on data (`netG(real)`, `self.model(x)`): its output. A function
	// (imported, or defined in the file) is a factory, whatever its name (`get_peft_model`).
	if f.Qualify(callee) != callee || definesFunction(f, callee) {
		return false
	}
	return reModelName.MatchString(callee)
}

// holdsModel reports a name that holds a model, judged by what was bound to it where that
// is seen (modelValue: a loader, a module's constructor, a module moved with `.to()`), else
// by its name or its last attribute's (`shared.image_model`). A name bound to what a model
// returned (holdsOutput) holds none.
func (a *classifier) holdsModel(f *pyparse.File, s *pyparse.Node, name string) bool {
	if name == "" || holdsOutput(f, s, name) || a.boundToFunction(f, s, name) {
		return false
	}
	if reModelName.MatchString(name) || reModelName.MatchString(name[strings.LastIndex(name, ".")+1:]) {
		return true
	}
	return anyBound(f, s, name, func(v *pyparse.Node) bool { return a.modelValue(f, v, true) })
}

// boundToFunction reports a name last bound, before s in its function, to what a project
// function returns where that is a function it defines (`generator, n =
// get_feature_iterator(...)` with `return iterate, num_files` and `def iterate(): ...
// yield`): a callable, whatever its name, so `del generator` frees no model.
func (a *classifier) boundToFunction(f *pyparse.File, s *pyparse.Node, name string) bool {
	last := assignedBefore(f, s, name, func(m *pyparse.Node) bool {
		l, r := m.ChildByField("left"), m.ChildByField("right")
		if l == nil || r == nil {
			return false
		}
		targets := []*pyparse.Node{l}
		if l.Kind() == "pattern_list" || l.Kind() == "tuple_pattern" {
			targets = l.NamedChildren()
		}
		return slices.ContainsFunc(targets, func(t *pyparse.Node) bool { return t.Text(f.Src) == name })
	})
	if last == nil {
		return false
	}
	left, right := last.ChildByField("left"), last.ChildByField("right")
	if right.Kind() != "call" {
		return false
	}
	pos := 0 // the name's position in a tuple target
	if left.Kind() == "pattern_list" || left.Kind() == "tuple_pattern" {
		pos = slices.IndexFunc(left.NamedChildren(), func(n *pyparse.Node) bool { return n.Text(f.Src) == name })
	}
	r := a.resolveCall(f, right)
	if r == nil || r.fn.Body == nil {
		return false
	}
	// Every return hands back, at the name's position, a function the callee defines (or a
	// lambda).
	defined := map[string]bool{}
	var names []string
	returns, ok := 0, true
	r.fn.Body.Walk(func(m *pyparse.Node) bool {
		switch m.Kind() {
		case "function_definition":
			if n := m.ChildByField("name"); n != nil {
				defined[n.Text(r.file.Src)] = true
			}
			return false // its own returns are not the callee's
		case "class_definition", "lambda":
			return false
		case "return_statement":
			returns++
			e := returnedAt(m, pos)
			switch {
			case e == nil:
				ok = false
			case e.Kind() == "identifier":
				names = append(names, e.Text(r.file.Src))
			case e.Kind() != "lambda":
				ok = false
			}
			return false
		}
		return true
	})
	return ok && returns > 0 && !slices.ContainsFunc(names, func(n string) bool { return !defined[n] })
}

// returnedAt is what a return statement hands back at position pos of a tuple (pos 0: the
// value itself when it is no tuple), or nil.
func returnedAt(ret *pyparse.Node, pos int) *pyparse.Node {
	v := ret.NamedChildren()
	if len(v) == 0 {
		return nil
	}
	e := v[0]
	if e.Kind() == "expression_list" || e.Kind() == "tuple" {
		if items := e.NamedChildren(); pos < len(items) {
			return items[pos]
		}
		return nil
	}
	if pos > 0 {
		return nil
	}
	return e
}

// modelValue reports a value that is a model: a loader's result (`from_pretrained`), a
// module moved or cast (`.to(device)`, `.eval()`) of one, the instance of a project class
// that derives from a module or pipeline class or is named as one, an external class named as
// one (`UNet2DModel(...)`), or, with callees, what a project function returns that loads one
// (a value bound to a name is judged by that; a statement beside the call that only calls such
// a function builds nothing itself).
func (a *classifier) modelValue(f *pyparse.File, v *pyparse.Node, callees bool) bool {
	for depth := 0; v != nil && v.Kind() == "call" && depth < 8; depth++ {
		fn := v.ChildByField("function")
		if fn == nil {
			return false
		}
		last := ""
		if fn.Kind() == "attribute" {
			last = fn.ChildByField("attribute").Text(f.Src)
			if reModuleMethod.MatchString(last) {
				v = fn.ChildByField("object")
				continue
			}
		} else {
			last = fn.Text(f.Src)
		}
		if reLoaderName.MatchString(last) && !reOffloadName.MatchString(last) && !weightless(pyparse.DottedName(fn, f.Src)) {
			return true
		}
		// `Xtts.init_from_config(config)`: a class or static method of a model class, its
		// alternative constructor.
		if fn.Kind() == "attribute" {
			obj := pyparse.DottedName(fn.ChildByField("object"), f.Src)
			if i := strings.LastIndex(obj, "."); obj != "" && unicode.IsUpper(rune(obj[i+1])) {
				if cr := a.g.Project.lookupClass(f, obj); cr != nil {
					if m := cr.cls.Methods[last]; m != nil && (decoratedWith(cr.file, m, "classmethod") || decoratedWith(cr.file, m, "staticmethod")) {
						return a.modelClass(cr, callees)
					}
				}
			}
		}
		callee := pyparse.DottedName(fn, f.Src)
		if callee != "" && last != "" && unicode.IsUpper(rune(last[0])) {
			if cr := a.g.Project.lookupClass(f, callee); cr != nil {
				return a.modelClass(cr, callees)
			}
			return reModelClass.MatchString(last)
		}
		if r := a.resolveCall(f, v); callees && r != nil && r.fn.Body != nil && a.loadsIn(r.file, r.fn.Body, nil, 1) != "" {
			return true
		}
		return false
	}
	return false
}

// modelClass reports a project class whose instances are models: a subclass of a module or
// pipeline class. named also takes the class's own name: a name bound to it, a wrapper named
// as a model, holds one (`self.sd = StableDiffusion(...)`); built beside a call, only a
// module's or pipeline's subclass is one (`ChatModel()` may serve).
func (a *classifier) modelClass(cr *classRef, named bool) bool {
	names := a.g.Project.classBases(cr.file, cr.cls)
	if named {
		names = append(names, cr.cls.Name)
	}
	return slices.ContainsFunc(names, reModelClass.MatchString)
}

// reModelClass names a module or pipeline class (a base or a class's own name):
// torch.nn.Module, transformers' PreTrainedModel, diffusers' ModelMixin and DiffusionPipeline,
// and classes named as models (`UNet2DConditionModel`, `StableDiffusion`, `VAE`).
var reModelClass = lazyregexp.New(`(?i)(^|\.)(nn\.)?Module$|Model$|ModelMixin$|Pipeline$|Diffusion$|Net$|Network$|UNet\w*$|VAE$|AutoEncoder\w*$|Encoder$|Decoder$|Transformer$|Engine$|LLM$`)

// reOffloadName: loader-like names that offload or unload instead.
var reOffloadName = lazyregexp.New(`offload|unload|evict|delete_`)

// definesFunction reports a function of that name defined in the file.
func definesFunction(f *pyparse.File, name string) bool {
	for _, fn := range f.Functions {
		if fn.Name == name && fn.Class == nil {
			return true
		}
	}
	return false
}

// reModuleMethod: nn.Module methods that return the module itself.
var reModuleMethod = lazyregexp.New(`^(to|cuda|cpu|half|float|double|bfloat16|eval|train|requires_grad_|to_empty|xpu|npu|mps)$`)

// oomFlag reports a gate on a flag that only an out-of-memory handler sets, whatever its
// name: `failed = True` in `except torch.cuda.OutOfMemoryError:` (or under an OOM test in a
// broad handler), then `if failed:` clear and retry after the try statement, as CL005's fix
// recommends. Assignments of False or None are resets; any other place that sets it makes
// it no OOM flag.
func (a *classifier) oomFlag(f *pyparse.File, g *gate) string {
	n := g.Node
	for n != nil && n.Kind() == "parenthesized_expression" && len(n.NamedChildren()) == 1 {
		n = n.NamedChildren()[0]
	}
	if n == nil || n.Kind() != "identifier" || g.Negate {
		return ""
	}
	name, scope := n.Text(f.Src), scopeOf(f, n)
	line := 0
	for _, b := range a.bindingsOf(f)[name] {
		if b.scope != scope || b.node.Kind() != "assignment" {
			continue
		}
		if r := b.node.ChildByField("right"); r == nil || r.Kind() == "false" || r.Kind() == "none" {
			continue
		}
		var clause *pyparse.Node
		oomTest := false
		for m := b.node.Parent(); m != nil && m != scope; m = m.Parent() {
			if m.Kind() == "if_statement" {
				if c := m.ChildByField("condition"); c != nil && (reOOMCheck.MatchString(c.Text(f.Src)) || strings.Contains(c.Text(f.Src), "OutOfMemoryError")) {
					oomTest = true
				}
			}
			if m.Kind() == "except_clause" {
				clause = m
				break
			}
		}
		if clause == nil {
			return ""
		}
		if k := exceptKindOf(f, clause); !k.oom && !k.memory && !oomTest {
			return ""
		}
		line = clause.Line()
	}
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("gated by `%s`, which only the out-of-memory handler at line %d sets", name, line)
}

// retryAfterFailure reports a clear under `if not ok:` (or `ok is None`, `ok == False`)
// where ok was bound by a call that the block makes again after the clear: an attempt that
// failed, retried once the cache is emptied. DeepSpeed's hybrid engine: `ok =
// self.workspace.retake_workspace()`, then `if not ok: empty_cache(); ok =
// self.workspace.retake_workspace()` (deepspeed/runtime/hybrid_engine.py): an allocation
// failure reported by a return value instead of an exception.
func retryAfterFailure(f *pyparse.File, g *gate, call *pyparse.Node) string {
	n := g.Node
	for n != nil && n.Kind() == "parenthesized_expression" && len(n.NamedChildren()) == 1 {
		n = n.NamedChildren()[0]
	}
	if n == nil || g.Negate {
		return ""
	}
	var v *pyparse.Node
	switch n.Kind() {
	case "not_operator":
		v = n.ChildByField("argument")
	case "comparison_operator":
		if t := n.Text(f.Src); strings.HasSuffix(t, " is None") || strings.HasSuffix(t, " == None") ||
			strings.HasSuffix(t, " is False") || strings.HasSuffix(t, " == False") {
			v = n.NamedChildren()[0]
		}
	}
	ifs := g.Node.Parent()
	if v == nil || v.Kind() != "identifier" || ifs == nil || ifs.Kind() != "if_statement" {
		return ""
	}
	block := ifs.ChildByField("consequence")
	if block == nil || !block.Contains(call) {
		return ""
	}
	name := v.Text(f.Src)
	var first, again *pyparse.Node
	for _, m := range f.AssignmentsTo(scopeOf(f, ifs), name) {
		left, right := m.ChildByField("left"), m.ChildByField("right")
		if left == nil || right == nil || left.Text(f.Src) != name || right.Kind() != "call" {
			continue
		}
		switch {
		case m.End <= ifs.Start:
			first = right
		case again == nil && m.Start >= call.End && block.Contains(m):
			again = right
		}
	}
	if first == nil || again == nil {
		return ""
	}
	callee := pyparse.DottedName(first.ChildByField("function"), f.Src)
	if callee == "" || callee != pyparse.DottedName(again.ChildByField("function"), f.Src) {
		return ""
	}
	return fmt.Sprintf("retries `%s()` (line %d) after it failed (line %d)", callee, again.Line(), first.Line())
}

// movesToDevice reports `x.cuda()`, or `x.to(device)` with a device: a positional argument
// that is no dtype, or `device=` (`x.to(dtype=torch.float32)` only casts).
func movesToDevice(f *pyparse.File, call *pyparse.Node) bool {
	fn := call.ChildByField("function")
	switch fn.ChildByField("attribute").Text(f.Src) {
	case "cuda":
		return true
	case "to":
	default:
		return false
	}
	args := call.ChildByField("arguments")
	if args == nil {
		return false
	}
	for _, a := range args.NamedChildren() {
		switch {
		case a.Kind() == "keyword_argument":
			if k := a.ChildByField("name"); k != nil && k.Text(f.Src) == "device" {
				return true
			}
		case !reDtype.MatchString(a.Text(f.Src)):
			return true
		}
	}
	return false
}

// reDtype: a dtype argument (`torch.float16`, `dtype`, `weight_dtype`).
var reDtype = lazyregexp.New(`(?i)(^|\.)(float\d*|half|bfloat16|bf16|fp16|fp32|double|int\d*|u?int8|bool)$|dtype$`)

// readsInput names the call by which a loop body waits for a person: the builtin `input()`,
// `sys.stdin.readline()`, or a prompt of click, rich or prompt_toolkit, directly or through a
// method of that name that project classes define to read one (`chatio.prompt_for_input()`
// on a parameter: every project class with the method is a candidate) ("" when none). Nested
// definitions and loops are not its own turns.
func (a *classifier) readsInput(f *pyparse.File, body *pyparse.Node) string {
	if what, ok := a.inputs[body]; ok {
		return what
	}
	what := ""
	defer func() { a.inputs[body] = what }()
	walkOwn(body, func(m *pyparse.Node) {
		if what != "" || m.Kind() != "call" {
			return
		}
		fn := m.ChildByField("function")
		if w := promptCall(f, m); w != "" {
			what = w
		} else if fn != nil && fn.Kind() == "attribute" {
			// On a receiver of unknown class, or of an abstract one (`chatio: ChatIO`): the
			// implementations are the subclasses'. The method's name first (memoized per
			// name; few name a prompt), then the call resolved: resolving every method call
			// of a loop's body was a fifth of an edited run's prewarm (diffusers).
			method := fn.ChildByField("attribute").Text(f.Src)
			if w := a.promptMethod(method); w != "" {
				if r := a.resolveCall(f, m); r == nil || r.fn.Class != nil && abstractClass(r.file, r.fn.Class) {
					what = pyparse.DottedName(fn, f.Src) + "()` -> `" + w
				}
			}
		}
	})
	return what
}

// promptCall names a call that waits for a person's input, or "".
func promptCall(f *pyparse.File, m *pyparse.Node) string {
	switch q := f.Qualify(pyparse.DottedName(m.ChildByField("function"), f.Src)); q {
	case "input", "builtins.input", "sys.stdin.readline", "click.prompt", "rich.prompt.Prompt.ask", "prompt_toolkit.prompt":
		return q + "()"
	}
	return ""
}

// promptMethod names the prompt that a method of this name reads in some project class
// (memoized per name), or "".
func (a *classifier) promptMethod(name string) string {
	if v, ok := a.prompts[name]; ok {
		return v
	}
	if a.methods == nil {
		a.methods = methodsByName(a.g.Project.res.Files)
	}
	v := ""
	for _, r := range a.methods[name] {
		walkOwn(r.fn.Body, func(m *pyparse.Node) {
			if v == "" && m.Kind() == "call" {
				v = promptCall(r.file, m)
			}
		})
		if v != "" {
			break
		}
	}
	a.prompts[name] = v
	return v
}

// methodsByName lists the project's methods with a body by name, in the files' order.
func methodsByName(files []*pyparse.File) map[string][]*funcRef {
	out := map[string][]*funcRef{}
	for _, f := range files {
		for _, fn := range f.Functions {
			if fn.Class != nil && fn.Body != nil {
				out[fn.Name] = append(out[fn.Name], &funcRef{file: f, fn: fn})
			}
		}
	}
	return out
}
