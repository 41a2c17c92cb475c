package analyzers

import (
	"iter"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/lazyregexp"
	"github.com/cachelint/cachelint/internal/parallel"
	"github.com/cachelint/cachelint/pyparse"
)

// project maps the files of one Pass to Python module names and resolves calls to the
// project's own functions: `from a.b import f as g`, `import a.b as m; m.f()`,
// `from . import utils; utils.f()`, `self.f()` / `cls.f()` / `super().f()` through the
// project's classes, nested functions, and simple assignments (`clean = free_gpu`).
// A round's calls are resolved by several goroutines (graphsOf), each with a copy of the
// project (worker): a table that resolving fills in as it goes belongs in newCaches, which
// gives each worker its own, and what outlives the round is merged back (merge); the rest
// is built by newProject or reindex and only read while calls are resolved.
type project struct {
	root    string   // absolute, slash-separated
	paths   []string // every file in scope, parsed or not: absolute, slash-separated
	pathSet map[string]bool
	// display maps an absolute slash path back to the path the file is known by; abs maps
	// the other way (absOf).
	display, abs map[string]string
	res          *pyparse.Result
	// fields are the names the parsed files' class bodies declare (classFields), added to as
	// reindex reads each file; addedFields those it added since the last answers.
	fields      map[string]bool
	addedFields []string
	// answered are the parsed files the last answers knew of.
	answered map[*pyparse.File]bool
	// mutated are the attribute names the parsed files assign (`x.name = ...`,
	// mutatedFields), added to as reindex reads each file's bindings.
	mutated map[string]bool
	// classes by simple name, across parsed files.
	classes map[string][]classRef
	// subclasses lists the project classes that name each class as a base.
	subclasses map[*pyparse.Class][]classRef
	// attrClasses caches, per class, the project class bound to each `self.attr` in its own
	// methods (nil when two bindings disagree).
	attrClasses map[*pyparse.Class]map[string]*classRef
	// attrFuncs caches, per class, the project functions bound to each `self.attr`.
	attrFuncs map[*pyparse.Class]map[string][]*funcRef
	// localRefs caches what localFuncs resolved a function's plain names to.
	localRefs map[*pyparse.Function]map[string][]*funcRef
	// selves holds globalSelf's answer for the files reindex read that have one (it reads
	// the file alone): read there on every CPU with the file's bindings, then only looked up.
	selves map[*pyparse.File]map[string]*pyparse.Class
	// ownLoops memoizes inOwnLoop per call, for the whole run.
	ownLoops map[*pyparse.Node]bool
	// funcNames holds every function name of the parsed files: an argument that names none
	// cannot be a callback of the project's.
	funcNames map[string]bool
	// addedNames are the names reindex added to funcNames since the last answers.
	addedNames []string
	// bindings holds each file's simple assignments (fileBindings), one entry for every
	// file reindex read, read on first use.
	bindings map[*pyparse.File]*fileBindings
	// byBase indexes paths by file name and by their last two components
	// (`peft/__init__.py`), for suffix lookups; modCache caches moduleFile, and fileDirs
	// each importing file's absolute directory for it.
	byBase   map[string][]string
	modCache map[modKey]string
	// looked logs the paths module lookups asked for, shared by the workers: a file added
	// or removed at one of them may change what an import resolves to (engine.Facts.Lookups).
	looked   *lookupLog
	fileDirs map[*pyparse.File]string
	// modShared and dirsShared are the project's modCache and fileDirs as a worker sees
	// them, read only while it runs: its own maps hold what it adds, which merge takes in
	// (copying the project's maps for each worker, and back, took longer than the lookups
	// they save on 16 cores).
	modShared  map[modKey]string
	dirsShared map[*pyparse.File]string
	// devices caches deviceReturn: the torch device module a function returns ("" none).
	devices map[*pyparse.Function]string
	// want collects the unparsed project modules a binding led to (a function called for
	// its device module, a package re-exporting a helper): CacheCalls parses them next.
	want map[string]bool
	// wantClasses makes class lookups put unparsed modules on want (wantBases).
	wantClasses bool
	// missed holds, while one class lookup runs, the modules searched for a name in vain
	// and the least depth they were searched at (classInModule); classLookups the lookups
	// of the round (lookupClass).
	missed       map[classMiss]int
	classLookups map[classLookup]keptLookup
	// moduleSearches are the round's searches of a parsed module for a class name with a
	// given depth left (searchModule), kept across lookups.
	moduleSearches map[moduleSearch]keptLookup
	// probes are what the call being resolved read of the parsed files, while recording
	// (probes.go); cacheProbes what computing each cached answer read.
	probes      []probe
	recording   bool
	cacheProbes map[probeKey][]probe
	// cross are the answers the call being resolved read, found or not, while recording
	// (crossRead); cacheCross those computing each cached answer read.
	cross      []crossRead
	cacheCross map[probeKey][]crossRead
	// jobs is how many goroutines reindex reads a round's files on (0: GOMAXPROCS).
	jobs int
	// table numbers the probes calls recorded (shared with the workers), through the
	// project's or the worker's own probeCache.
	table      *probeTable
	probeCache *probeCache
}

type classRef struct {
	file *pyparse.File
	cls  *pyparse.Class
}

// funcRef is a resolved function of the project.
type funcRef struct {
	file *pyparse.File
	fn   *pyparse.Function
	// dispatch marks a subclass's override reached through `self.name()` in a base class.
	dispatch bool
}

// newProject indexes the paths of the project's files; reindex reads the parsed ones before
// the first lookup.
func newProject(root string, paths []string, res *pyparse.Result) *project {
	p := &project{root: absSlash(root), pathSet: map[string]bool{}, display: map[string]string{}, res: res,
		abs: make(map[string]string, len(paths)), byBase: map[string][]string{}, modCache: map[modKey]string{},
		fileDirs: map[*pyparse.File]string{}, table: newProbeTable(), looked: newLookupLog(),
		probeCache: newProbeCache()}
	// The working directory once, not once per file (os.Getwd stats two directories).
	wd, err := os.Getwd()
	for _, f := range paths {
		var s string
		if err == nil {
			s = absSlashIn(wd, f)
		} else {
			s = absSlash(f)
		}
		p.abs[f] = s
		p.paths = append(p.paths, s)
		p.pathSet[s] = true
		p.display[s] = f
		base := path.Base(s)
		p.byBase[base] = append(p.byBase[base], s)
		tail := path.Base(path.Dir(s)) + "/" + base
		p.byBase[tail] = append(p.byBase[tail], s)
	}
	sort.Strings(p.paths)
	return p
}

// reindex refreshes the per-file tables after more files were parsed.
func (p *project) reindex() {
	if p.bindings == nil {
		p.bindings = map[*pyparse.File]*fileBindings{}
		p.classes = map[string][]classRef{}
		p.funcNames = map[string]bool{}
		p.mutated = map[string]bool{}
		p.ownLoops = map[*pyparse.Node]bool{}
		p.fields, p.answered = map[string]bool{}, map[*pyparse.File]bool{}
		p.selves = map[*pyparse.File]map[string]*pyparse.Class{}
	}
	// Files are only ever added to a parse: the tables of names grow by the files no round
	// has indexed yet (fresh), in the files' order, instead of being built again from every
	// file each round (a late round, adding a file or two to 1,800, spent 15 ms there).
	var fresh []*pyparse.File
	for _, f := range p.res.Files {
		if _, done := p.bindings[f]; !done {
			fresh = append(fresh, f)
		}
	}
	p.addClasses(fresh)
	// What the tables need of each file, read once, not again in each prefilter round, and
	// the files a round parsed on every CPU (a walk of each whole tree: 0.27 s of one round
	// on 16 cores, done on one): the attributes it assigns (mutatedFields), the fields its
	// classes declare, its globals bound to an instance. Its simple assignments are read
	// when a lookup first asks for them (fileBindings).
	mutated, fields := make([][]string, len(fresh)), make([][]string, len(fresh))
	selves := make([]map[string]*pyparse.Class, len(fresh))
	read := func(_, i int) {
		mutated[i] = mutatedAttributes(fresh[i])
		fields[i] = declaredFields(fresh[i])
		selves[i] = globalSelfOf(fresh[i])
	}
	jobs := p.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	text := 0
	for _, f := range fresh {
		text += len(f.Src)
	}
	if jobs = min(jobs, len(fresh), text/bytesPerJob); jobs > 1 {
		order := largestFirst(len(fresh), func(i int) int { return len(fresh[i].Src) })
		parallel.For(len(fresh), jobs, func(w, k int) { read(w, order[k]) })
	} else {
		for i := range fresh {
			read(0, i)
		}
	}
	for i, f := range fresh {
		p.bindings[f] = &fileBindings{}
		if len(selves[i]) > 0 {
			p.selves[f] = selves[i]
		}
		for _, name := range mutated[i] {
			p.mutated[name] = true
		}
		for _, name := range fields[i] {
			if !p.fields[name] {
				p.fields[name] = true
				p.addedFields = append(p.addedFields, name)
			}
		}
	}
	p.newCaches()
	for _, f := range fresh {
		for _, fn := range f.Functions {
			if !p.funcNames[fn.Name] {
				p.funcNames[fn.Name] = true
				p.addedNames = append(p.addedNames, fn.Name)
			}
		}
	}
	// In file order, not the order of a map: a call's probe of a class's subclasses
	// (probes.go) compares the lists, and a list merely reordered would re-resolve it.
	type base struct {
		f    *pyparse.File
		c    *pyparse.Class
		name string
	}
	var bases []base
	for _, f := range p.res.Files {
		for _, c := range f.Classes {
			for _, b := range c.Bases {
				bases = append(bases, base{f, c, b})
			}
		}
	}
	// Every class's bases looked up again each round, on every CPU: on 16 cores this was
	// most of an edited run's reindex, all of it on one goroutine (101 ms of it over the 13
	// installed packages of bench/README.md). A worker's lookups are the project's
	// (TestGraphInParallel); what they add to the module tables is merged afterwards.
	found := make([]*classRef, len(bases))
	if jobs = p.jobs; jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs = min(jobs, len(bases)/basesPerJob); jobs > 1 {
		workers := make([]*project, jobs)
		for w := range workers {
			workers[w] = p.worker()
		}
		const chunk = 64
		parallel.For((len(bases)+chunk-1)/chunk, jobs, func(w, k int) {
			for i := k * chunk; i < min(len(bases), (k+1)*chunk); i++ {
				found[i] = workers[w].lookupClass(bases[i].f, bases[i].name)
			}
		})
		for _, w := range workers {
			p.merge(w)
		}
	} else {
		for i, b := range bases {
			found[i] = p.lookupClass(b.f, b.name)
		}
	}
	p.subclasses = map[*pyparse.Class][]classRef{}
	for i, b := range bases {
		if cr := found[i]; cr != nil && cr.cls != b.c {
			p.subclasses[cr.cls] = append(p.subclasses[cr.cls], classRef{b.f, b.c})
		}
	}
}

// addClasses adds the classes of fresh (files new to the index, in the files' order) to the
// classes by name, each list kept in the files' order: a name's list is merged into a new
// slice, as a lookup may hold the old one.
func (p *project) addClasses(fresh []*pyparse.File) {
	added := map[string][]classRef{}
	for _, f := range fresh {
		for _, c := range f.Classes {
			added[c.Name] = append(added[c.Name], classRef{f, c})
		}
	}
	for name, refs := range added {
		old := p.classes[name]
		merged := make([]classRef, 0, len(old)+len(refs))
		for len(old) > 0 && len(refs) > 0 {
			if old[0].file.Path < refs[0].file.Path {
				merged, old = append(merged, old[0]), old[1:]
			} else {
				merged, refs = append(merged, refs[0]), refs[1:]
			}
		}
		p.classes[name] = append(append(merged, old...), refs...)
	}
}

// worker is a copy of p for a goroutine that resolves calls beside others (graphsOf): it
// shares the round's tables, which reindex built and nothing changes until the next round,
// and has caches of its own, starting from p's, for what the lookups fill in as they go.
func (p *project) worker() *project {
	w := *p
	w.newCaches()
	w.modCache, w.modShared = map[modKey]string{}, p.modCache
	w.fileDirs, w.dirsShared = map[*pyparse.File]string{}, p.fileDirs
	w.probes, w.recording, w.wantClasses, w.cross = nil, false, false, nil
	w.probeCache = newProbeCache()
	w.ownLoops = map[*pyparse.Node]bool{}
	return &w
}

// newCaches empties what resolving calls fills in as it goes and a round starts afresh:
// each round (reindex) and each worker has its own.
func (p *project) newCaches() {
	p.attrClasses = map[*pyparse.Class]map[string]*classRef{}
	p.attrFuncs = map[*pyparse.Class]map[string][]*funcRef{}
	p.localRefs = map[*pyparse.Function]map[string][]*funcRef{}
	p.classLookups = map[classLookup]keptLookup{}
	p.moduleSearches = map[moduleSearch]keptLookup{}
	p.devices = map[*pyparse.Function]string{}
	p.want = map[string]bool{}
	p.cacheProbes = map[probeKey][]probe{}
	p.cacheCross = map[probeKey][]crossRead{}
}

// merge takes in what a worker found that outlives the round: the modules its lookups want
// parsed, and the module paths it looked up.
func (p *project) merge(w *project) {
	for file := range w.want {
		p.want[file] = true
	}
	for k, v := range w.modCache {
		p.modCache[k] = v
	}
	for k, v := range w.fileDirs {
		p.fileDirs[k] = v
	}
}

// overrides returns the methods named name that subclasses of cls define (transitively):
// a call `self.name()` in cls may run any of them.
func (p *project) overrides(cls *pyparse.Class, name string) []*funcRef {
	var out []*funcRef
	seen := map[*pyparse.Class]bool{cls: true}
	queue := []*pyparse.Class{cls}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for _, sub := range p.subclassesOf(c) {
			if seen[sub.cls] {
				continue
			}
			seen[sub.cls] = true
			if m := sub.cls.Methods[name]; m != nil {
				out = append(out, &funcRef{file: sub.file, fn: m, dispatch: true})
			}
			queue = append(queue, sub.cls)
		}
	}
	return out
}

// callbacks returns the project functions passed by name to a call
// (`Thread(target=sync)`, `background_tasks.add_task(torch_gc)`, `executor.submit(free)`):
// the callee runs them, so the call is taken to run them once; not those that only look at
// a function (inspectsCallables).
func (p *project) callbacks(f *pyparse.File, c *pyparse.Call) []*funcRef {
	if c.Args == nil || c.Args.Kind() != "argument_list" || inspectsCallables[f.Qualify(c.Callee)] {
		return nil
	}
	var out []*funcRef
	for a := range c.Args.NamedSeq() {
		if a.Kind() == "keyword_argument" {
			a = a.ChildByField("value")
		}
		if a == nil || (a.Kind() != "identifier" && a.Kind() != "attribute") {
			continue
		}
		if last := a; last.Kind() == "attribute" {
			if attr := last.ChildByField("attribute"); attr == nil || !p.isFuncName(attr.Text(f.Src)) {
				continue
			}
		} else if !p.isFuncName(a.Text(f.Src)) {
			continue
		}
		d := pyparse.DottedName(a, f.Src)
		if r := p.resolveName(f, c.Function, d, 0); r != nil {
			out = append(out, r)
		} else {
			// `asyncio.to_thread(worker.generate_gate, params)`.
			out = append(out, p.globalSelfMethods(f, d)...)
		}
	}
	return out
}

// resolveAll is resolve plus, for `self.name()`, the overrides in subclasses, or the
// functions bound to the attribute when name is no method (`self._forward_fn = fwd`).
func (p *project) resolveAll(f *pyparse.File, c *pyparse.Call) []*funcRef {
	var out []*funcRef
	r := p.resolve(f, c)
	if r != nil {
		if isProperty(r) {
			// `args.forward_fn(batch)` with forward_fn a property: the call runs what the
			// property returns.
			out = append(out, p.returnedFuncs(r)...)
		} else {
			out = append(out, r)
		}
	}
	if isIdentifier(c.Callee) && c.Function != nil {
		// `fn = generate_a` / `elif ...: fn = generate_b`, then `fn(...)`: each function
		// the name is bound to in the function's own body may run.
		for _, ref := range p.localFuncs(f, c.Function, c.Callee) {
			if r == nil || ref.fn != r.fn {
				out = append(out, ref)
			}
		}
	}
	if r == nil {
		out = append(out, p.globalSelfMethods(f, c.Callee)...)
	}
	if head, rest, ok := strings.Cut(c.Callee, "."); ok && (head == "self" || head == "cls") && !strings.Contains(rest, ".") {
		if cls := methodClass(c.Function); cls != nil {
			out = append(out, p.overrides(cls, rest)...)
			if r == nil && head == "self" {
				out = append(out, p.attributeFuncs(f, cls, rest, 0)...)
			}
		}
	}
	return out
}

// globalSelfMethods are the methods `worker.get_embeddings` names on a module global that a
// method binds to its own instance (`global worker; worker = self`): the class's method and
// its overrides.
func (p *project) globalSelfMethods(f *pyparse.File, dotted string) []*funcRef {
	head, rest, ok := strings.Cut(dotted, ".")
	if !ok || !isIdentifier(head) || !isIdentifier(rest) {
		return nil
	}
	cls := p.globalSelf(f)[head]
	if cls == nil {
		return nil
	}
	var out []*funcRef
	if m := p.findMethod(f, cls, rest, 0); m != nil {
		out = append(out, m)
	}
	return append(out, p.overrides(cls, rest)...)
}

// boundFuncs returns the project functions a value bound to a name may be: the functions it
// names (functionValues), or those a project factory it calls returns
// (`self.generate = get_generate_function(model)`).
func (p *project) boundFuncs(f *pyparse.File, scope *pyparse.Function, v *pyparse.Node) []*funcRef {
	var out []*funcRef
	for _, name := range functionValues(f, v) {
		if ref := p.resolveName(f, scope, name, 1); ref != nil {
			out = append(out, ref)
		}
	}
	if v.Kind() == "call" && len(out) == 0 {
		if callee := pyparse.DottedName(v.ChildByField("function"), f.Src); callee != "" {
			if ref := p.resolveName(f, scope, callee, 1); ref != nil && ref.fn.Body != nil {
				out = append(out, p.returnedFuncs(ref)...)
			}
		}
	}
	return out
}

// globalSelf maps the module globals of f that a method binds to its own instance
// (`global worker` then `worker = self` in a method of a class of f) to that class: as
// reindex read it (globalSelfOf), or read now for a file it has not read.
func (p *project) globalSelf(f *pyparse.File) map[string]*pyparse.Class {
	if _, read := p.bindings[f]; !read {
		return globalSelfOf(f)
	}
	return p.selves[f]
}

// globalSelfOf is globalSelf read from f: the methods whose own body holds a global
// statement are read, class by class (a name two classes bind is the later class's), each
// the last def of its name in its class.
func globalSelfOf(f *pyparse.File) map[string]*pyparse.Class {
	var declaring map[*pyparse.Function]bool
	for _, g := range f.GlobalStatements() {
		if fn := f.FunctionOf(ownScope(g)); fn != nil && fn.Class != nil {
			if declaring == nil {
				declaring = map[*pyparse.Function]bool{}
			}
			declaring[fn] = true
		}
	}
	if declaring == nil {
		return nil
	}
	m := map[string]*pyparse.Class{}
	for _, cls := range f.Classes {
		for _, fn := range cls.Methods {
			if declaring[fn] {
				globalsToSelf(f, fn, m)
			}
		}
	}
	return m
}

// globalsToSelf maps, in m, each global that method fn of f declares and binds to its own
// instance (`global worker` then `worker = self` in its own body) to fn's class.
func globalsToSelf(f *pyparse.File, fn *pyparse.Function, m map[string]*pyparse.Class) {
	declared := map[string]bool{}
	walkScope(fn.Body, func(n *pyparse.Node) {
		switch n.Kind() {
		case "global_statement":
			for _, id := range n.NamedChildren() {
				declared[id.Text(f.Src)] = true
			}
		case "assignment":
			l, r := n.ChildByField("left"), n.ChildByField("right")
			if l != nil && r != nil && l.Kind() == "identifier" && r.Text(f.Src) == "self" && declared[l.Text(f.Src)] {
				m[l.Text(f.Src)] = fn.Class
			}
		}
	})
}

// ownScope is the def, class or lambda whose own body holds n (walkScope's scope of n),
// nil at module level.
func ownScope(n *pyparse.Node) *pyparse.Node {
	for m := n.Parent(); m != nil; m = m.Parent() {
		switch m.Kind() {
		case "function_definition", "class_definition", "lambda":
			return m
		}
	}
	return nil
}

// localFuncs returns the project functions a plain name is bound to by the assignments in
// scope's own body (each branch of an if/elif chain, a conditional expression's both values),
// each once.
func (p *project) localFuncs(f *pyparse.File, scope *pyparse.Function, name string) []*funcRef {
	if scope.Body == nil {
		return nil
	}
	bound := false
	for range plainBinds(f, scope.Body, name) {
		bound = true
		break
	}
	if !bound {
		return nil
	}
	key := probeKey{tableLocalRefs, scope, name}
	if refs, done := p.localRefs[scope][name]; done {
		p.cachedProbes(key)
		return refs
	}
	keep := p.computing(key)
	var out []*funcRef
	for v := range plainBinds(f, scope.Body, name) {
		for _, ref := range p.boundFuncs(f, scope, v) {
			if !slices.ContainsFunc(out, func(x *funcRef) bool { return x.fn == ref.fn }) {
				out = append(out, ref)
			}
		}
	}
	if p.localRefs[scope] == nil {
		p.localRefs[scope] = map[string][]*funcRef{}
	}
	p.localRefs[scope][name] = out
	keep()
	return out
}

// plainBinds yields what the assignments of a scope's own body (nested definitions are
// scopes of their own) bind to the plain name, `name = value`, in source order: each value.
// The file's index of the scope (pyparse.File.AssignmentsTo) is read once, for every round
// and goroutine: each round's resolvers read each function again for its bindings before.
func plainBinds(f *pyparse.File, body *pyparse.Node, name string) iter.Seq[*pyparse.Node] {
	return func(yield func(*pyparse.Node) bool) {
		for _, n := range f.AssignmentsTo(body, name) {
			if l, r := n.ChildByField("left"), n.ChildByField("right"); l != nil && r != nil && l.Kind() == "identifier" {
				if !yield(r) {
					return
				}
			}
		}
	}
}

// localAssign is the dotted expression (assignedName) that name was last bound to in the
// function scope before the byte offset at, when scope's own body binds it there ("" for a
// parameter of that name not bound since, or a value that is no dotted name): the
// binding that reaches a call in straight-line code, where the file-wide table keeps
// whichever assignment of that name came last in the file (`device = get_torch_device()` in
// one function, `device = labels.device` in another).
func (p *project) localAssign(f *pyparse.File, scope *pyparse.Function, name string, at int) (string, bool) {
	if scope == nil || scope.Body == nil {
		return "", false
	}
	var last *pyparse.Node
	for v := range plainBinds(f, scope.Body, name) {
		if int(v.Start) < at {
			last = v
		}
	}
	if last == nil {
		// A parameter of that name is whatever the caller passes, not a module-level binding.
		return "", slices.Contains(scope.Params, name)
	}
	return assignedName(f, last), true
}

// assignedName is the dotted name a simple assignment's right side stands for: the
// function a functools.partial wraps, a getattr on torch or an object, or a plain name
// chain ("" for anything else).
func assignedName(f *pyparse.File, right *pyparse.Node) string {
	if fn := partialOf(f, right); fn != nil {
		return pyparse.DottedName(fn, f.Src)
	}
	return receiverName(f, right)
}

// attributeFuncs returns the project functions bound to `self.attr` in the methods of cls or
// of its project bases: `self._forward_fn = dpo_utils.separate_forward` (each branch of an
// if/else, or of a conditional expression, and the function a functools.partial wraps).
func (p *project) attributeFuncs(f *pyparse.File, cls *pyparse.Class, attr string, depth int) []*funcRef {
	return classAttr(p, f, cls, attr, depth, tableAttrFuncs, p.attrFuncs, p.bindFuncAttributes, func(fs []*funcRef) bool { return len(fs) > 0 })
}

// classAttr looks attr up in what bind reads from cls's own methods (once per class, kept in
// cache), then in its project bases, depth-first; found says whether a base's answer counts.
func classAttr[T any](p *project, f *pyparse.File, cls *pyparse.Class, attr string, depth int, table int8,
	cache map[*pyparse.Class]map[string]T, bind func(*pyparse.File, *pyparse.Class) map[string]T, found func(T) bool) T {
	var none T
	if depth > 8 {
		return none
	}
	key := probeKey{table, cls, ""}
	own, done := cache[cls]
	if done {
		p.cachedProbes(key)
	} else {
		keep := p.computing(key)
		own = bind(f, cls)
		cache[cls] = own
		keep()
	}
	if v, bound := own[attr]; bound {
		return v // an ambiguous binding is bound too: the bases do not decide it
	}
	for _, b := range cls.Bases {
		if cr := p.lookupClass(f, b); cr != nil && cr.cls != cls {
			if v := classAttr(p, cr.file, cr.cls, attr, depth+1, table, cache, bind, found); found(v) {
				return v
			}
		}
	}
	return none
}

// bindFuncAttributes reads every `self.attr = <function>` in the methods of cls, once.
func (p *project) bindFuncAttributes(f *pyparse.File, cls *pyparse.Class) map[string][]*funcRef {
	out := map[string][]*funcRef{}
	selfAssignments(f, cls, func(m *pyparse.Function, attr string, r *pyparse.Node) {
		for _, ref := range p.boundFuncs(f, m, r) {
			if !slices.ContainsFunc(out[attr], func(x *funcRef) bool { return x.fn == ref.fn }) {
				out[attr] = append(out[attr], ref)
			}
		}
	})
	return out
}

// selfAssignments calls visit with each `self.attr = value` (attr a plain name) in the own
// bodies of cls's methods (pyparse.Class.SelfAssigns: read once for the run).
func selfAssignments(f *pyparse.File, cls *pyparse.Class, visit func(m *pyparse.Function, attr string, value *pyparse.Node)) {
	for _, a := range cls.SelfAssigns(f.Src) {
		visit(a.Method, a.Attr, a.Value)
	}
}

// isProperty reports a method read as an attribute (`@property`, `@cached_property`).
func isProperty(r *funcRef) bool {
	for _, d := range r.fn.Decorators {
		t := strings.TrimPrefix(d.Text(r.file.Src), "@")
		if t == "property" || strings.HasSuffix(t, "cached_property") {
			return true
		}
	}
	return false
}

// returnedFuncs returns the project functions a function returns: the names in its return
// statements, and for a local name the functions assigned to it (`fn = a if c else b`,
// `fn = functools.partial(fn, packing=True)`).
func (p *project) returnedFuncs(r *funcRef) []*funcRef {
	src := r.file.Src
	locals := map[string][]string{}
	var returned []string
	r.fn.Body.Walk(func(n *pyparse.Node) bool {
		switch n.Kind() {
		case "function_definition", "class_definition", "lambda":
			return n == r.fn.Body
		case "assignment":
			if l, v := n.ChildByField("left"), n.ChildByField("right"); l != nil && v != nil && l.Kind() == "identifier" {
				locals[l.Text(src)] = append(locals[l.Text(src)], functionValues(r.file, v)...)
			}
		case "return_statement":
			if vs := n.NamedChildren(); len(vs) == 1 {
				returned = append(returned, functionValues(r.file, vs[0])...)
			}
		}
		return true
	})
	var out []*funcRef
	seen := map[string]bool{}
	var add func(name string, depth int)
	add = func(name string, depth int) {
		if seen[name] || depth > 4 {
			return
		}
		seen[name] = true
		if vs, local := locals[name]; local {
			for _, v := range vs {
				add(v, depth+1)
			}
			return
		}
		if ref := p.resolveName(r.file, r.fn, name, 1); ref != nil && ref.fn != r.fn && !isProperty(ref) {
			out = append(out, ref)
		}
	}
	for _, name := range returned {
		add(name, 0)
	}
	return out
}

// functionValues names the functions an expression may evaluate to: a name, each side of a
// conditional expression, the function a functools.partial wraps.
func functionValues(f *pyparse.File, n *pyparse.Node) []string {
	switch n.Kind() {
	case "identifier", "attribute":
		if d := pyparse.DottedName(n, f.Src); d != "" {
			return []string{d}
		}
	case "conditional_expression":
		if parts := n.NamedChildren(); len(parts) == 3 {
			return append(functionValues(f, parts[0]), functionValues(f, parts[2])...)
		}
	case "parenthesized_expression":
		if in := n.NamedChildren(); len(in) == 1 {
			return functionValues(f, in[0])
		}
	case "call":
		if fn := partialOf(f, n); fn != nil {
			return functionValues(f, fn)
		}
	}
	return nil
}

// fileBindings are a file's simple assignments, read on first use (bindingsOf): the lookups
// of a run ask for those of few files, and reading every file's took 25 ms of CPU of an
// edited run's 400 (diffusers; the right sides' dotted names, most of them of calls).
type fileBindings struct {
	once sync.Once
	// assigns maps names bound by simple assignment at any level of the file to the dotted
	// expression (simpleAssignments); tables the names last bound to a dict, list or
	// tuple literal to that literal.
	assigns map[string]string
	tables  map[string]*pyparse.Node
}

// bindingsOf is f's fileBindings, read now if no lookup read them before; empty for a
// file reindex has not read.
func (p *project) bindingsOf(f *pyparse.File) *fileBindings {
	b := p.bindings[f]
	if b == nil {
		return &fileBindings{}
	}
	b.once.Do(func() { b.assigns, b.tables = simpleAssignments(f) })
	return b
}

// simpleAssignments finds `name = dotted.expr` bindings (any scope) whose right side is a
// plain name chain or a getattr on torch, so `clean = free_gpu` and `dev = getattr(torch, t)`
// can be followed, and the names last bound to a dict, list or tuple literal (tables of
// callables: `_CLEARERS = {"cuda": torch.cuda.empty_cache}`).
func simpleAssignments(f *pyparse.File) (map[string]string, map[string]*pyparse.Node) {
	out, tables := map[string]string{}, map[string]*pyparse.Node{}
	for _, n := range f.Assignments() {
		if n.Kind() != "assignment" {
			continue
		}
		left, right := n.ChildByField("left"), n.ChildByField("right")
		if left == nil || right == nil {
			continue
		}
		name := left.Text(f.Src)
		if left.Kind() == "attribute" {
			// self.device_module = getattr(torch, device_type): a device module alias.
			if r := receiverName(f, right); r == "getattr(torch)" || strings.HasPrefix(f.Qualify(r), "torch.") {
				out[name] = r
			}
			continue
		}
		if left.Kind() != "identifier" {
			continue
		}
		switch right.Kind() {
		case "dictionary", "list", "tuple":
			tables[name] = right
			continue
		}
		// step = functools.partial(clear, device): calling step calls clear.
		if d := assignedName(f, right); d != "" {
			out[name] = d
		}
	}
	return out, tables
}

// mutatedAttributes are the attribute names f assigns, plainly or augmented
// (`state.should_save = True`, `self.count += 1`), each once.
func mutatedAttributes(f *pyparse.File) []string {
	var mutated []string
	seen := map[string]bool{}
	for _, n := range f.Assignments() {
		left := n.ChildByField("left")
		if left == nil || left.Kind() != "attribute" {
			continue
		}
		if a := left.ChildByField("attribute"); a != nil && !seen[a.Text(f.Src)] {
			seen[a.Text(f.Src)] = true
			mutated = append(mutated, a.Text(f.Src))
		}
	}
	return mutated
}

// tableCall reads a call of an entry of a table of callables, `TABLE[key](...)` with TABLE a
// dict, list or tuple literal or a name bound to one in the file: any entry may run. It
// returns the cache-emptying entry as a target (the cuda one when there are several) and
// an edge per project function among the entries.
func (p *project) tableCall(f *pyparse.File, c *pyparse.Call) (*Target, []*Edge) {
	if c.Func == nil || c.Func.Kind() != "subscript" {
		return nil, nil
	}
	table := c.Func.ChildByField("value")
	if table != nil && table.Kind() == "identifier" {
		table = p.bindingsOf(f).tables[table.Text(f.Src)]
	}
	if table == nil {
		return nil, nil
	}
	var values []callableValue
	for _, v := range tableEntries(table) {
		values = append(values, callableValue{f, c.Function, v})
	}
	return p.runValues(f, c, values)
}

// callableValue is a value a call may run, in the file and scope it is written in.
type callableValue struct {
	file  *pyparse.File
	scope *pyparse.Function
	v     *pyparse.Node
}

// runValues reads a call that runs one of several callable values (the entries of a table,
// the values a field was given): the cache-emptying value becomes the call's target (the cuda
// one when there are several), and each project function among them an edge.
func (p *project) runValues(f *pyparse.File, c *pyparse.Call, values []callableValue) (*Target, []*Edge) {
	var target *Target
	var edges []*Edge
	for _, cv := range values {
		name := callableName(cv.file, cv.v)
		if name == "" {
			continue
		}
		if s, ok := directCallee(cv.file.Qualify(name)); ok {
			if target == nil || !strings.Contains(target.Spelling, "cuda") && strings.Contains(s, "cuda") {
				target = &Target{File: f, Call: c, Spelling: s}
			}
			continue
		}
		if r := p.resolveName(cv.file, cv.scope, name, 0); r != nil && (r.fn.Node == nil || !r.fn.Node.Contains(c.Node)) {
			edges = append(edges, &Edge{File: f, Call: c, Callee: r.fn, CalleeFile: r.file})
		}
	}
	return target, edges
}

// tableEntries are the values of a dict literal or the elements of a list or tuple literal.
func tableEntries(table *pyparse.Node) []*pyparse.Node {
	var out []*pyparse.Node
	switch table.Kind() {
	case "dictionary":
		for _, pair := range table.NamedChildren() {
			if pair.Kind() == "pair" {
				if v := pair.ChildByField("value"); v != nil {
					out = append(out, v)
				}
			}
		}
	case "list", "tuple":
		out = table.NamedChildren()
	}
	return out
}

// callableName names the function a table entry runs: the entry itself (`clear`,
// `torch.cuda.empty_cache`) or the one call of a lambda (`lambda: torch.cuda.empty_cache()`).
func callableName(f *pyparse.File, v *pyparse.Node) string {
	switch v.Kind() {
	case "identifier", "attribute":
		return pyparse.DottedName(v, f.Src)
	case "lambda":
		if body := v.ChildByField("body"); body != nil && body.Kind() == "call" {
			return pyparse.DottedName(body.ChildByField("function"), f.Src)
		}
	}
	return ""
}

// partialOf is the function a `functools.partial(fn, ...)` call wraps, or nil.
func partialOf(f *pyparse.File, n *pyparse.Node) *pyparse.Node {
	if n == nil || n.Kind() != "call" {
		return nil
	}
	fn := n.ChildByField("function")
	if fn == nil || f.Qualify(pyparse.DottedName(fn, f.Src)) != "functools.partial" {
		return nil
	}
	if args := n.ChildByField("arguments"); args != nil {
		if a := args.NamedChildren(); len(a) > 0 && a[0].Kind() != "keyword_argument" {
			return a[0]
		}
	}
	return nil
}

// paramDefault is the default value of a parameter of fn (`def train(cleanup=clear)`), or nil.
func paramDefault(fn *pyparse.Function, name string, src []byte) *pyparse.Node {
	params := fn.Node.ChildByField("parameters")
	if params == nil {
		return nil
	}
	for _, p := range params.NamedChildren() {
		if p.Kind() != "default_parameter" && p.Kind() != "typed_default_parameter" {
			continue
		}
		if n := p.ChildByField("name"); n != nil && n.Text(src) == name {
			return p.ChildByField("value")
		}
	}
	return nil
}

// receiverName renders an expression the way callee names are rendered: `getattr(obj,
// "name")` (a default or not) as `obj.name`, which it is (`getattr(getattr(torch, "cuda",
// None), "empty_cache", None)` is torch.cuda.empty_cache), and `getattr(torch, x)` with x not
// a literal normalised to "getattr(torch)" so device-generic code is recognised.
func receiverName(f *pyparse.File, n *pyparse.Node) string {
	if n.Kind() == "call" {
		fn := n.ChildByField("function")
		if fn != nil && fn.Kind() == "identifier" && fn.Text(f.Src) == "getattr" {
			if args := n.ChildByField("arguments"); args != nil {
				a := args.NamedChildren()
				if len(a) >= 2 {
					if name, ok := identLiteral(a[1], f.Src); ok {
						if base := receiverName(f, a[0]); base != "" && base != "getattr(torch)" {
							return base + "." + name
						}
					}
				}
				if len(a) >= 1 && f.Qualify(pyparse.DottedName(a[0], f.Src)) == "torch" {
					return "getattr(torch)"
				}
			}
		}
	}
	return pyparse.DottedName(n, f.Src)
}

// reIdent is a Python identifier.
var reIdent = lazyregexp.New(`^[A-Za-z_]\w*$`)

// identLiteral is the identifier a plain string literal spells (`"empty_cache"`, not an
// f-string or a concatenation), if it spells one.
func identLiteral(n *pyparse.Node, src []byte) (string, bool) {
	if n.Kind() != "string" {
		return "", false
	}
	t := n.Text(src)
	if len(t) < 2 || t[0] != '"' && t[0] != '\'' || t[len(t)-1] != t[0] {
		return "", false
	}
	v := t[1 : len(t)-1]
	return v, reIdent.MatchString(v)
}

// qualifiedCallee returns the callee of c through imports and simple assignments:
// `t.cuda.empty_cache` -> `torch.cuda.empty_cache`, `dev.empty_cache` with
// `dev = getattr(torch, device)` -> `getattr(torch).empty_cache`.
func (p *project) qualifiedCallee(f *pyparse.File, c *pyparse.Call) string {
	d := c.Callee
	if c.Func != nil && c.Func.Kind() == "attribute" {
		if obj := c.Func.ChildByField("object"); obj != nil && obj.Kind() == "call" {
			if r := receiverName(f, obj); r == "getattr(torch)" {
				d = r + "." + c.Func.ChildByField("attribute").Text(f.Src)
			}
		}
	}
	if d == "" {
		return ""
	}
	head, rest, hasRest := strings.Cut(d, ".")
	if h2, r2, ok := strings.Cut(rest, "."); (head == "self" || head == "cls") && ok {
		if a, found := p.bindingsOf(f).assigns[head+"."+h2]; found {
			return f.Qualify(a + "." + r2)
		}
	}
	if _, imported := f.Alias(head); !imported {
		// The file-wide table holds every name the file binds anywhere, so a name it lacks
		// has no local binding either, and a parameter shadows only a name it holds.
		a, ok := p.bindingsOf(f).assigns[head]
		if ok {
			if la, local := p.localAssign(f, c.Function, head, int(c.Node.Start)); local {
				a = la
			}
		}
		if ok && a != "" && a != head {
			if hasRest {
				d = a + "." + rest
			} else {
				d = a
			}
		}
	}
	if dev, ok := p.deviceCall(f, c.Function, d); ok {
		return dev
	}
	return f.Qualify(d)
}

// deviceCall rewrites `get_device_module().empty_cache` (directly or through
// `device = get_torch_device()`) when the project function returns a torch device module:
// verl's `get_torch_device()` returns `getattr(torch, name)` or `torch.cuda`. A function in
// a module not parsed yet is put on the want list when the call empties a cache.
func (p *project) deviceCall(f *pyparse.File, scope *pyparse.Function, d string) (string, bool) {
	i := strings.Index(d, "().")
	if i <= 0 || strings.Contains(d[:i], "(") {
		return "", false
	}
	fn, rest := d[:i], d[i+2:]
	if q := f.Qualify(fn); q == "torch.get_device_module" || q == "get_accelerator" || strings.HasSuffix(q, ".get_accelerator") {
		return "", false
	}
	r := p.resolveName(f, scope, fn, 0)
	if r == nil {
		if strings.HasSuffix(rest, ".empty_cache") {
			p.wantModuleOf(f, fn)
		}
		return "", false
	}
	if dev := p.deviceReturn(r); dev != "" {
		return dev + rest, true
	}
	return "", false
}

// deviceReturn is the torch device module a function returns (`torch.cuda`,
// "getattr(torch)" for `getattr(torch, name)`, `torch.get_device_module()`), or "".
// `torch.cuda` wins over the others: it is what runs on an NVIDIA GPU.
func (p *project) deviceReturn(r *funcRef) string {
	if dev, done := p.devices[r.fn]; done {
		return dev
	}
	p.devices[r.fn] = ""
	dev := ""
	r.fn.Body.Walk(func(n *pyparse.Node) bool {
		switch n.Kind() {
		case "function_definition", "class_definition", "lambda":
			return false
		case "return_statement":
			v := n.NamedChildren()
			if len(v) != 1 {
				return false
			}
			if m := p.deviceModule(r.file, v[0]); m != "" && (dev == "" || m == "torch.cuda") {
				dev = m
			}
			return false
		}
		return true
	})
	p.devices[r.fn] = dev
	return dev
}

// deviceModule says which torch device module an expression is, through the file's
// imports and simple assignments (`_DEVICE = torch.cuda`); "" when it is none.
func (p *project) deviceModule(f *pyparse.File, n *pyparse.Node) string {
	v := receiverName(f, n)
	if a, ok := p.bindingsOf(f).assigns[v]; ok && n.Kind() == "identifier" {
		v = a
	}
	if v == "getattr(torch)" {
		return v
	}
	q := f.Qualify(v)
	if q == "torch.get_device_module()" || strings.HasPrefix(q, "torch.") && !strings.Contains(q, "(") && strings.Count(q, ".") == 1 {
		return q
	}
	return ""
}

// wantModuleOf puts on the want list the unparsed project module that an imported dotted
// name (`get_torch_device`, `utils.get_torch_device`) comes from.
func (p *project) wantModuleOf(f *pyparse.File, dotted string) {
	head, rest, hasRest := strings.Cut(dotted, ".")
	q, imported := f.Alias(head)
	if !imported {
		return
	}
	if hasRest {
		q += "." + rest
	}
	parts := strings.Split(strings.TrimLeft(q, "."), ".")
	dots := q[:len(q)-len(strings.TrimLeft(q, "."))]
	for cut := len(parts) - 1; cut >= 0; cut-- {
		mod := dots + strings.Join(parts[:cut], ".")
		if mod == "" {
			continue
		}
		if file := p.moduleFile(f, mod); file != "" {
			if p.parsedFile(file) == nil {
				p.want[file] = true
			}
			return
		}
	}
}

// importNeedles are the prefilter needles for the files that may call the module-level
// function name defined in f: the name together with one component of f's module path in
// an import statement (pyparse.ImportedName: `memory` or `utils` imported and `cleanup`
// mentioned, for utils/memory.py), since a file that calls it imports something of that path.
// A file outside the project root gives its stem only.
func (p *project) importNeedles(f *pyparse.File, name string) []string {
	rel := strings.TrimPrefix(p.absOf(f.Path), p.root+"/")
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), ".ipynb")
	if strings.HasPrefix(rel, "/") {
		rel = path.Base(rel)
	}
	var out []string
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "__init__" || !isIdentifier(part) {
			continue
		}
		out = append(out, pyparse.ImportedName(part, name))
	}
	if len(out) == 0 {
		return []string{name}
	}
	return out
}

// abstractParamNeedles are the needles for the subclasses of the abstract project classes
// that fn's parameters are typed with: a method called on such a parameter runs a subclass's
// implementation, found only where it is parsed.
func (p *project) abstractParamNeedles(f *pyparse.File, fn *pyparse.Function) []string {
	if fn == nil {
		return nil
	}
	var out []string
	for _, typ := range fn.ParamTypes {
		if typ == "" {
			continue
		}
		cr := p.lookupClass(f, strings.Trim(typ, `"'`))
		if cr != nil && abstractClass(cr.file, cr.cls) {
			out = append(out, p.importNeedles(cr.file, cr.cls.Name)...)
		}
	}
	sort.Strings(out)
	return out
}

// abstractClass reports a class declared abstract: an `abc.ABC` base, an `ABCMeta`
// metaclass, or an `@abstractmethod`.
func abstractClass(f *pyparse.File, cls *pyparse.Class) bool {
	for _, b := range cls.Bases {
		if b == "ABC" || b == "abc.ABC" {
			return true
		}
	}
	if cls.Node != nil {
		if sc := cls.Node.ChildByField("superclasses"); sc != nil && strings.Contains(sc.Text(f.Src), "ABCMeta") {
			return true
		}
	}
	for _, m := range cls.Methods {
		if decoratedWith(f, m, "abstractmethod") {
			return true
		}
	}
	return false
}

func isIdentifier(s string) bool {
	for i, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' || c >= 0x80
		if !ok {
			return false
		}
	}
	return s != ""
}

// moduleFile finds the file of a module imported from `from`: relative imports against the
// importing file's package, absolute ones against the importing file's directory (a
// script's sys.path[0]), the project root, `src/`, then a unique path suffix.
func (p *project) moduleFile(from *pyparse.File, mod string) string {
	dir, ok := p.fileDirs[from]
	if !ok {
		dir, ok = p.dirsShared[from]
	}
	if !ok {
		// Once per file, not per lookup.
		dir = path.Dir(p.absOf(from.Path))
		p.fileDirs[from] = dir
	}
	key := modKey{dir, mod}
	if r, ok := p.modCache[key]; ok {
		return r
	}
	if r, ok := p.modShared[key]; ok {
		return r
	}
	r := p.findModule(from, mod)
	p.modCache[key] = r
	return r
}

// modKey is a module name as imported from a directory.
type modKey struct{ dir, mod string }

func (p *project) findModule(from *pyparse.File, mod string) string {
	level := len(mod) - len(strings.TrimLeft(mod, "."))
	mod = strings.TrimLeft(mod, ".")
	rel := strings.ReplaceAll(mod, ".", "/")
	dir := path.Dir(p.absOf(from.Path))
	var bases []string
	if level > 0 {
		for i := 1; i < level; i++ {
			dir = path.Dir(dir)
		}
		bases = []string{dir}
	} else {
		bases = []string{dir, p.root, path.Join(p.root, "src")}
	}
	// A module of that name anywhere is the answer or may change it (the suffix search
	// below); a relative import, or one of a package alone, asks for its candidates only.
	exact := level > 0 || rel == ""
	if !exact {
		p.looked.suffix("/"+rel+".py", "/"+rel+"/__init__.py")
	}
	for _, b := range bases {
		for _, cand := range []string{path.Join(b, rel) + ".py", path.Join(b, rel, "__init__.py")} {
			if rel == "" {
				cand = path.Join(b, "__init__.py")
			}
			if exact {
				p.looked.path(cand)
			}
			if p.pathSet[cand] {
				return p.display[cand]
			}
		}
	}
	if level > 0 || rel == "" {
		return ""
	}
	// Anywhere in the tree: the module of that name nearest the importing file, by the
	// directories their paths share (several projects side by side, each with its own
	// `utils`, or a package and a vendored copy); two at the same distance are ambiguous.
	var found string
	best, tied := -1, false
	for _, suffix := range []string{"/" + rel + ".py", "/" + rel + "/__init__.py"} {
		for _, q := range p.byBase[tailOf(suffix)] {
			if !strings.HasSuffix(q, suffix) || q == found {
				continue
			}
			switch shared := sharedDirs(dir, q); {
			case shared > best:
				found, best, tied = q, shared, false
			case shared == best:
				tied = true
			}
		}
	}
	if tied {
		return ""
	}
	return p.display[found]
}

// tailOf is the key byBase indexes a path suffix under: its last two components, or its
// file name alone when it has one (every `__init__.py` shares a name, not a tail).
func tailOf(suffix string) string {
	suffix = strings.TrimPrefix(suffix, "/")
	if i := strings.LastIndexByte(suffix, '/'); i >= 0 {
		if j := strings.LastIndexByte(suffix[:i], '/'); j >= 0 {
			return suffix[j+1:]
		}
	}
	return suffix
}

// sharedDirs counts the leading directories that the directory dir and the file path q
// share.
func sharedDirs(dir, q string) int {
	n := 0
	for {
		i := strings.IndexByte(dir, '/')
		j := strings.IndexByte(q, '/')
		if i < 0 {
			i = len(dir)
		}
		if j < 0 || dir[:i] != q[:j] {
			return n
		}
		n++
		if i == len(dir) {
			return n
		}
		dir, q = dir[i+1:], q[j+1:]
	}
}

// inPackage reports a file of a package: an `__init__.py` beside it in the scope.
func (p *project) inPackage(f *pyparse.File) bool {
	init := path.Join(path.Dir(p.absOf(f.Path)), "__init__.py")
	p.looked.path(init)
	return p.pathSet[init]
}

// lookupLog collects the paths a run's lookups asked for, from any goroutine.
type lookupLog struct {
	mu              sync.Mutex
	paths, suffixes map[string]bool
}

func newLookupLog() *lookupLog {
	return &lookupLog{paths: map[string]bool{}, suffixes: map[string]bool{}}
}

// path logs a path looked for.
func (l *lookupLog) path(p string) {
	l.mu.Lock()
	l.paths[p] = true
	l.mu.Unlock()
}

// suffix logs suffixes of paths looked for.
func (l *lookupLog) suffix(s ...string) {
	l.mu.Lock()
	for _, x := range s {
		l.suffixes[x] = true
	}
	l.mu.Unlock()
}

// add logs what an earlier run's lookups asked for.
func (l *lookupLog) add(old driver.Lookups) {
	l.mu.Lock()
	for _, x := range old.Paths {
		l.paths[x] = true
	}
	for _, x := range old.Suffixes {
		l.suffixes[x] = true
	}
	l.mu.Unlock()
}

// lookups are what was logged, sorted.
func (l *lookupLog) lookups() driver.Lookups {
	l.mu.Lock()
	defer l.mu.Unlock()
	return driver.Lookups{Paths: slices.Sorted(maps.Keys(l.paths)), Suffixes: slices.Sorted(maps.Keys(l.suffixes))}
}

// absOf is absSlash of a path of the project's, looked up.
func (p *project) absOf(f string) string {
	if s, ok := p.abs[f]; ok {
		return s
	}
	return absSlash(f)
}

// absSlash makes paths comparable however the user named them (relative to the working
// directory, absolute, with ./ or ../).
func absSlash(f string) string {
	if a, err := filepath.Abs(f); err == nil {
		f = a
	}
	return filepath.ToSlash(filepath.Clean(f))
}

// absSlashIn is absSlash with wd as the working directory.
func absSlashIn(wd, f string) string {
	if !filepath.IsAbs(f) {
		f = filepath.Join(wd, f)
	}
	return filepath.ToSlash(filepath.Clean(f))
}

// resolve finds the project function a call invokes, or nil.
func (p *project) resolve(f *pyparse.File, c *pyparse.Call) *funcRef {
	d := c.Callee
	if d == "" {
		return nil
	}
	return p.resolveName(f, c.Function, d, 0)
}

func (p *project) resolveName(f *pyparse.File, scope *pyparse.Function, d string, depth int) *funcRef {
	if depth > 8 {
		return nil
	}
	head, rest, hasRest := strings.Cut(d, ".")
	switch {
	case (head == "self" || head == "cls") && hasRest && !strings.Contains(rest, "."):
		if cls := methodClass(scope); cls != nil {
			return p.findMethod(f, cls, rest, 0)
		}
		return nil
	case head == "self" && strings.Count(rest, ".") == 1:
		// `self.offloader.prepare()` with `self.offloader = Offloader(...)` in a method.
		attr, method, _ := strings.Cut(rest, ".")
		if cls := methodClass(scope); cls != nil {
			if cr := p.attributeClass(f, cls, attr, 0); cr != nil {
				return p.findMethod(cr.file, cr.cls, method, 0)
			}
		}
		return nil
	case head == "super()" && hasRest && !strings.Contains(rest, "."):
		if cls := methodClass(scope); cls != nil {
			for _, b := range cls.Bases {
				if cr := p.lookupClass(f, b); cr != nil {
					if r := p.findMethod(cr.file, cr.cls, rest, 0); r != nil {
						return r
					}
				}
			}
		}
		return nil
	}
	if !hasRest {
		// A parameter whose default is a function: `def train(loader, cleanup=clear)`.
		for s := scope; s != nil; s = s.Parent {
			if slices.Contains(s.Params, head) {
				if v := paramDefault(s, head, f.Src); v != nil && (v.Kind() == "identifier" || v.Kind() == "attribute") {
					return p.resolveName(f, s.Parent, pyparse.DottedName(v, f.Src), depth+1)
				}
				return nil
			}
		}
		// Nested functions of enclosing scopes, then module-level functions.
		for s := scope; s != nil; s = s.Parent {
			for _, fn := range f.Functions {
				if fn.Parent == s && fn.Class == nil && fn.Name == head {
					return &funcRef{file: f, fn: fn}
				}
			}
		}
		for _, fn := range f.Functions {
			if fn.Parent == nil && fn.Class == nil && fn.Name == head {
				return &funcRef{file: f, fn: fn}
			}
		}
		if a, ok := p.bindingsOf(f).assigns[head]; ok && a != head {
			return p.resolveName(f, scope, a, depth+1)
		}
		if _, imported := f.Alias(head); !imported {
			// A package that re-exports its modules: `from .memory_utils import *`.
			for _, imp := range f.StarImports {
				if r := p.resolveQualified(f, imp.Qualified+"."+head, depth+1); r != nil {
					return r
				}
			}
		}
	}
	// Class.method called on the class itself.
	if hasRest && !strings.Contains(rest, ".") {
		if cr := p.classForMethod(f, head, rest); cr != nil {
			return p.findMethod(cr.file, cr.cls, rest, 0)
		}
	}
	// A parameter annotated with a project class: `def fit(trainer: Trainer): trainer.step()`.
	// A class imported from a module not parsed yet is read in the next round: what its
	// methods run is seen only there (a method's callers are not searched for by name).
	if hasRest && !strings.Contains(rest, ".") {
		for s := scope; s != nil; s = s.Parent {
			if t, ok := s.ParamType(head); ok {
				if cr := p.lookupClass(f, t); cr != nil {
					return p.findMethod(cr.file, cr.cls, rest, 0)
				}
				p.wantModuleOf(f, t)
				break
			}
		}
	}
	q, imported := f.Alias(head)
	if !imported {
		// A method called on an instance whose class is plain to see:
		// `trainer = Trainer(cfg); trainer.train_step(b)`. A method name alone is no
		// evidence: `model.generate(...)` is Hugging Face's, whatever the project defines.
		if hasRest && !strings.Contains(rest, ".") {
			if a, ok := p.bindingsOf(f).assigns[head]; ok && strings.HasSuffix(a, "()") {
				if cr := p.lookupClass(f, strings.TrimSuffix(a, "()")); cr != nil {
					return p.findMethod(cr.file, cr.cls, rest, 0)
				}
				if ctor := strings.TrimSuffix(a, "()"); isClassName(ctor[strings.LastIndex(ctor, ".")+1:]) {
					// `Trainer(cfg)`, not `get_logger()`: a class by its name (PEP 8's
					// CapWords), whose module is read to see the method.
					p.wantModuleOf(f, ctor)
				}
			}
		}
		return nil
	}
	full := q
	if hasRest {
		full = q + "." + rest
	}
	return p.resolveQualified(f, full, depth+1)
}

// resolveQualified resolves "pkg.mod.func" (or ".utils.func") imported into f.
func (p *project) resolveQualified(f *pyparse.File, full string, depth int) *funcRef {
	if depth > 8 {
		return nil
	}
	parts := strings.Split(strings.TrimLeft(full, "."), ".")
	dots := full[:len(full)-len(strings.TrimLeft(full, "."))]
	for cut := len(parts) - 1; cut >= 0; cut-- {
		mod := dots + strings.Join(parts[:cut], ".")
		if mod == "" {
			continue
		}
		file := p.moduleFile(f, mod)
		if file == "" {
			continue
		}
		target := p.parsedFile(file)
		if target == nil {
			// The module mentions no helper name, so it defines none, but it may hold
			// one when the name is a function's elsewhere: a class whose base's method
			// it is (`AutoencoderKL.from_pretrained`), or a function it re-exports. A
			// re-export is an import (`from .memory_utils import *`, `from .memory_utils
			// import cleanup`): a module whose import statements name neither the
			// function nor `*` defines the function itself, calling no helper.
			if p.isFuncName(parts[len(parts)-1]) && (cut < len(parts)-1 || p.mayImport(file, parts[cut])) {
				p.want[file] = true
			}
			return nil
		}
		names := parts[cut:]
		switch len(names) {
		case 1:
			return p.resolveName(target, nil, names[0], depth+1)
		case 2:
			if cr := p.classIn(target, names[0]); cr != nil {
				return p.findMethod(cr.file, cr.cls, names[1], 0)
			}
			return p.resolveName(target, nil, names[0]+"."+names[1], depth+1)
		}
		return nil
	}
	return nil
}

// isClassName reports a name spelt as a class's (CapWords): `Trainer`, `Net2`, not
// `get_logger` or `CONSTANT`.
func isClassName(name string) bool {
	return name != "" && unicode.IsUpper(rune(name[0])) && strings.ToUpper(name) != name
}

func methodClass(scope *pyparse.Function) *pyparse.Class {
	for s := scope; s != nil; s = s.Parent {
		if s.Class != nil {
			return s.Class
		}
	}
	return nil
}

func (p *project) classIn(f *pyparse.File, name string) *classRef {
	for _, c := range f.Classes {
		if c.Name == name {
			return &classRef{f, c}
		}
	}
	return nil
}

// lookupClass finds a class by its dotted name as written in f: a class of the same file, or
// one imported into it (`from .models import Encoder`, `import models; models.Encoder`),
// followed to the module the import names. A name that is neither is unknown: a class of
// that name elsewhere in the project is no evidence (transformers' Trainer is not the
// project's own Trainer).
//
// A file's lookups are kept for the round (classLookups): each `x.y()` whose receiver is no
// import is looked up as a class, and in a package that star-imports its modules each such
// lookup reads them all (torch: an edited run spent a third of its time there). Not while a
// lookup puts modules on the want list. A lookup kept while nothing recorded what it read is
// done again for a call that records.
func (p *project) lookupClass(f *pyparse.File, dotted string) *classRef {
	find := func() *classRef { return p.findClass(f, dotted, 0) }
	if p.wantClasses {
		return p.searchFresh(find)
	}
	return keptSearch(p, &p.classLookups, classLookup{f, dotted}, probeKey{tableClassLookups, f, dotted}, find)
}

// keptSearch serves a class search the round kept in *kept under key, with the probes it
// read replayed (pk names them), or runs find (searchFresh) and keeps its answer, and when
// recording what it read. A search kept while nothing recorded is run again for a caller
// that records.
func keptSearch[K comparable](p *project, kept *map[K]keptLookup, key K, pk probeKey, find func() *classRef) *classRef {
	if v, done := (*kept)[key]; done && (v.recorded || !p.recording) {
		p.cachedProbes(pk)
		return v.cr
	}
	var keep func()
	if p.recording {
		keep = p.computing(pk)
	}
	cr := p.searchFresh(find)
	if *kept == nil {
		*kept = map[K]keptLookup{}
	}
	(*kept)[key] = keptLookup{cr, keep != nil}
	if keep != nil {
		keep()
	}
	return cr
}

// searchFresh runs find with no modules known missed: what it reads is then all it depends
// on, and what it learns missed is its own.
func (p *project) searchFresh(find func() *classRef) *classRef {
	outer := p.missed
	p.missed = nil
	cr := find()
	p.missed = outer
	return cr
}

// keptLookup is a class lookup's answer, and whether what it read was recorded with it.
type keptLookup struct {
	cr       *classRef
	recorded bool
}

// classLookup is a class's dotted name as written in a file.
type classLookup struct {
	file   *pyparse.File
	dotted string
}

// classMiss is a class name looked for in a parsed module, and not found there.
type classMiss struct {
	file *pyparse.File
	name string
}

func (p *project) findClass(f *pyparse.File, dotted string, depth int) *classRef {
	if dotted == "" || depth > 8 {
		return nil
	}
	head, rest, dottedName := strings.Cut(dotted, ".")
	if !dottedName {
		if cr := p.classIn(f, head); cr != nil {
			return cr
		}
	}
	q, imported := f.Alias(head)
	if !imported {
		if !dottedName {
			// A package that re-exports its modules: `from .trainers import *`.
			for _, imp := range f.StarImports {
				if cr := p.classInModule(f, imp.Qualified, head, depth+1); cr != nil {
					return cr
				}
			}
		}
		return nil
	}
	full := q
	if dottedName {
		full = q + "." + rest
	}
	body := strings.TrimLeft(full, ".")
	mod, name := full[:len(full)-len(body)], body // `from . import Encoder`: the package itself
	if j := strings.LastIndex(body, "."); j >= 0 {
		mod, name = mod+body[:j], body[j+1:]
	}
	if mod == "" {
		return nil
	}
	return p.classInModule(f, mod, name, depth+1)
}

// classInModule finds class name in the module mod as imported from `from`: defined there,
// or re-exported by it (`from .base_trainer import BaseTrainer` in a package's
// `__init__.py`). An unparsed module is put on the want list while wantBases asks for it,
// unless it cannot bind the name: a module that neither names it nor imports `*` neither
// defines nor re-exports it (transformers' `models/__init__.py` star-imports 400 model
// packages, each its modules, and a lookup of `AutoTokenizer` through them wanted 1,500
// modules that never name it).
func (p *project) classInModule(from *pyparse.File, mod, name string, depth int) *classRef {
	file := p.moduleFile(from, mod)
	if file == "" {
		return nil
	}
	t := p.parsedFile(file)
	if t == nil {
		if p.wantClasses && p.mayBind(file, name) {
			p.want[file] = true
		}
		return nil
	}
	if cr := p.classIn(t, name); cr != nil {
		return cr
	}
	// Modules that re-export each other (`from .a import *` in b and c, both star-imported
	// by a package) are reached by many paths: one lookup searches each module for a name
	// once at most, unless it comes to it with more depth left than before. A search with
	// less depth left reads a part of what the first one read (probes, want) and finds
	// nothing where it found nothing; a search that finds the class ends the lookup.
	key := classMiss{t, name}
	if d, ok := p.missed[key]; ok && d <= depth {
		return nil
	}
	cr := p.searchModule(t, name, depth)
	if cr == nil {
		if p.missed == nil {
			p.missed = map[classMiss]int{}
		}
		if d, ok := p.missed[key]; !ok || depth < d {
			p.missed[key] = depth
		}
	}
	return cr
}

// searchModule is findClass(t, name, depth) for a module a lookup reached, kept for the
// round: in packages that star-import their modules and each other the lookups of many
// files reach the same modules with the same depth left (bench/gen_star.py: each of 404
// modules' 13 receivers walked the whole closure again). What the search read is replayed
// on a hit, as for a kept lookup; so that it is all of it, the search starts with no modules
// known missed (one known missed from elsewhere would be skipped, and its probes not
// recorded with this search). Not while a lookup puts modules on the want list.
func (p *project) searchModule(t *pyparse.File, name string, depth int) *classRef {
	if p.wantClasses {
		return p.findClass(t, name, depth)
	}
	key := moduleSearch{t, name, depth}
	return keptSearch(p, &p.moduleSearches, key, probeKey{tableModuleSearches, key, ""}, func() *classRef { return p.findClass(t, name, depth) })
}

// moduleSearch is a parsed module searched for a class name with a depth left.
type moduleSearch struct {
	file  *pyparse.File
	name  string
	depth int
}

// classForMethod looks up the class of a `Class.method(...)` call. When the receiver is spelt
// as a class (CapWords: `io.save()` calls a module's function) and the method's name is some
// parsed function's (a helper's, maybe), the unparsed modules the lookup walks through go on
// the want list: the packages that re-export the class (`from unsloth import FastModel`:
// `unsloth/__init__.py` -> `from .models import *` -> `from .loader import FastModel`) and
// its module, where the method is found.
func (p *project) classForMethod(f *pyparse.File, class, method string) *classRef {
	if !p.wantClasses && isClassName(class) && p.isFuncName(method) {
		p.wantClasses = true
		defer func() { p.wantClasses = false }()
	}
	return p.lookupClass(f, class)
}

// wantBases puts on the want list the unparsed modules that hold the project base classes
// of cls, transitively: a base class's loop may call an override of cls (`self.hook()`), and
// only its file can show it.
func (p *project) wantBases(f *pyparse.File, cls *pyparse.Class) {
	p.wantClasses = true
	defer func() { p.wantClasses = false }()
	p.classBases(f, cls)
}

// attributeClass finds the project class of `self.attr` from an assignment
// `self.attr = Class(...)` in a method of cls or of its project bases; nil when none or when
// two assignments disagree.
func (p *project) attributeClass(f *pyparse.File, cls *pyparse.Class, attr string, depth int) *classRef {
	return classAttr(p, f, cls, attr, depth, tableAttrClasses, p.attrClasses, p.bindAttributes, func(cr *classRef) bool { return cr != nil })
}

// bindAttributes reads every `self.attr = Class(...)` in the methods of cls, once.
func (p *project) bindAttributes(f *pyparse.File, cls *pyparse.Class) map[string]*classRef {
	out := map[string]*classRef{}
	selfAssignments(f, cls, func(_ *pyparse.Function, attr string, r *pyparse.Node) {
		if r.Kind() != "call" {
			return
		}
		cr := p.lookupClass(f, pyparse.DottedName(r.ChildByField("function"), f.Src))
		if cr == nil {
			return
		}
		if prev, seen := out[attr]; seen && (prev == nil || prev.cls != cr.cls) {
			out[attr] = nil // two bindings disagree
		} else if !seen {
			out[attr] = cr
		}
	})
	return out
}

// findMethod looks a method up in cls and then its bases (depth-first, like a simple MRO).
func (p *project) findMethod(f *pyparse.File, cls *pyparse.Class, name string, depth int) *funcRef {
	if depth > 16 {
		return nil
	}
	if m := cls.Methods[name]; m != nil {
		return &funcRef{file: f, fn: m}
	}
	for _, b := range cls.Bases {
		if cr := p.lookupClass(f, b); cr != nil && cr.cls != cls {
			if r := p.findMethod(cr.file, cr.cls, name, depth+1); r != nil {
				return r
			}
		}
	}
	return nil
}

// classBases returns the dotted base names of cls and, transitively, of its project bases,
// so `class MyModule(BaseModel)` with `class BaseModel(nn.Module)` is seen as an nn.Module.
func (p *project) classBases(f *pyparse.File, cls *pyparse.Class) []string {
	var out []string
	seen := map[*pyparse.Class]bool{}
	var visit func(f *pyparse.File, c *pyparse.Class, depth int)
	visit = func(f *pyparse.File, c *pyparse.Class, depth int) {
		if seen[c] || depth > 16 {
			return
		}
		seen[c] = true
		for _, b := range c.Bases {
			out = append(out, f.Qualify(b))
			if cr := p.lookupClass(f, b); cr != nil {
				visit(cr.file, cr.cls, depth+1)
			}
		}
	}
	visit(f, cls, 0)
	return out
}

// fieldCall reads a call of a callable field of an object that a project class built with
// that field given at construction, as a registry of device records does:
//
//	DEVICES = [DeviceSpec(name="cuda", empty_cache_fn=lambda: torch.cuda.empty_cache()), ...]
//	for spec in DEVICES:
//	    spec.empty_cache_fn()
//
// The receiver is bound to its constructions: the elements of the literal a `for` loop runs
// over, the call it was assigned, or what a project function returns (a loop variable of
// such a loop, `spec = find_device()`). Each value given for the field may run; the class
// must declare the field in its body (a dataclass, NamedTuple or attrs field), so that the
// keyword sets the attribute of that name. Like tableCall, it returns the cache-emptying
// value as a target and an edge per project function among the values.
func (p *project) fieldCall(f *pyparse.File, c *pyparse.Call) (*Target, []*Edge) {
	recv, field, ok := strings.Cut(c.Callee, ".")
	if !ok || strings.Contains(field, ".") || recv == "self" || recv == "cls" || !isIdentifier(recv) || !p.isField(field) {
		return nil, nil
	}
	var values []callableValue
	for _, k := range p.constructions(f, c.Function, c.Func.ChildByField("object"), 0) {
		if v := keywordArg(k.file, k.call, field); v != nil && p.declaresField(k.file, k.call, field) {
			values = append(values, callableValue{k.file, k.file.EnclosingFunction(k.call), v})
		}
	}
	return p.runValues(f, c, values)
}

// construction is a call that built an object a name may hold.
type construction struct {
	file *pyparse.File
	call *pyparse.Node
}

// constructions are the calls that built what a value may hold (v in scope; nil scope:
// module level), followed by binding: a call is its own construction when it constructs a
// project class, or stands for what the project function it calls returns; a name is bound
// by `for name in LITERAL` (or a name bound to one: each call among the entries) or by an
// assignment before v; `self.attr` by the class's `self.attr = ...`. A few functions deep.
func (p *project) constructions(f *pyparse.File, scope *pyparse.Function, v *pyparse.Node, depth int) []construction {
	if v == nil || depth > 3 {
		return nil
	}
	var out []construction
	switch v.Kind() {
	case "call":
		callee := pyparse.DottedName(v.ChildByField("function"), f.Src)
		if callee == "" {
			return nil
		}
		if p.lookupClass(f, callee) != nil {
			return []construction{{f, v}}
		}
		r := p.resolveName(f, scope, callee, 0)
		if r == nil || r.fn.Body == nil {
			return nil
		}
		walkScope(r.fn.Body, func(m *pyparse.Node) {
			if m.Kind() == "return_statement" {
				if rv := m.NamedChildren(); len(rv) == 1 {
					out = append(out, p.constructions(r.file, r.fn, rv[0], depth+1)...)
				}
			}
		})
	case "identifier":
		name := v.Text(f.Src)
		body := f.Root
		if scope != nil {
			body = scope.Body
		}
		// The scope's loops over name and assignments to it, in source order (the file's
		// index of the scope, read once: this was a walk of the scope per name asked).
		loops, assigns := f.LoopsBinding(body, name), f.AssignmentsTo(body, name)
		for len(loops) > 0 || len(assigns) > 0 {
			if len(assigns) == 0 || len(loops) > 0 && loops[0].Start < assigns[0].Start {
				m := loops[0]
				loops = loops[1:]
				over := m.ChildByField("right")
				if over != nil && over.Kind() == "identifier" {
					over = p.bindingsOf(f).tables[over.Text(f.Src)]
				}
				if over == nil {
					continue
				}
				for _, e := range tableEntries(over) {
					if e.Kind() == "call" {
						out = append(out, construction{f, e})
					}
				}
				continue
			}
			m := assigns[0]
			assigns = assigns[1:]
			if l := m.ChildByField("left"); l != nil && l.Kind() == "identifier" && m.Start < v.Start {
				out = append(out, p.constructions(f, scope, m.ChildByField("right"), depth+1)...)
			}
		}
	case "attribute":
		obj, attr := v.ChildByField("object"), v.ChildByField("attribute")
		cls := methodClass(scope)
		if obj == nil || attr == nil || obj.Text(f.Src) != "self" || cls == nil {
			return nil
		}
		name := attr.Text(f.Src)
		selfAssignments(f, cls, func(m *pyparse.Function, a string, value *pyparse.Node) {
			if a == name {
				out = append(out, p.constructions(f, m, value, depth+1)...)
			}
		})
	}
	return out
}

// walkScope visits the nodes of a body, not those of the functions and classes defined in it.
func walkScope(body *pyparse.Node, visit func(n *pyparse.Node)) {
	if body == nil {
		return
	}
	body.Walk(func(n *pyparse.Node) bool {
		if n != body && (n.Kind() == "function_definition" || n.Kind() == "class_definition" || n.Kind() == "lambda") {
			return false
		}
		visit(n)
		return true
	})
}

// keywordArg is the value of the keyword argument name of a call, or nil.
func keywordArg(f *pyparse.File, call *pyparse.Node, name string) *pyparse.Node {
	args := call.ChildByField("arguments")
	if args == nil {
		return nil
	}
	for _, a := range args.NamedChildren() {
		if a.Kind() == "keyword_argument" {
			if k := a.ChildByField("name"); k != nil && k.Text(f.Src) == name {
				return a.ChildByField("value")
			}
		}
	}
	return nil
}

// declaresField reports whether the class a construction calls is a project class whose
// body declares the field (`empty_cache_fn: Optional[Callable] = None`).
func (p *project) declaresField(f *pyparse.File, call *pyparse.Node, field string) bool {
	cr := p.lookupClass(f, pyparse.DottedName(call.ChildByField("function"), f.Src))
	if cr == nil || cr.cls.Node == nil {
		return false
	}
	found := false
	walkScope(cr.cls.Node.ChildByField("body"), func(n *pyparse.Node) {
		if n.Kind() == "assignment" {
			if left := n.ChildByField("left"); left != nil && left.Kind() == "identifier" && left.Text(cr.file.Src) == field {
				found = true
			}
		}
	})
	return found
}

// managerClasses are the project classes whose instance a `with` item may enter: what
// the item's expression was built by (constructions: `with Offload(model):`, a name or
// `self.ctx` bound to one, through factories that return it). A generator-based manager is
// a call of the generator function, already an edge.
func (p *project) managerClasses(f *pyparse.File, c *pyparse.Call) []*classRef {
	var out []*classRef
	for _, k := range p.constructions(f, c.Function, c.Node, 0) {
		if cr := p.lookupClass(k.file, pyparse.DottedName(k.call.ChildByField("function"), k.file.Src)); cr != nil {
			out = append(out, cr)
		}
	}
	return out
}

// classFields are the names project classes declare in their bodies (`empty_cache_fn:
// Optional[Callable] = None`), added to as reindex reads each file: fieldCall and recordField look for
// constructions only for such a name.
func (p *project) classFields() map[string]bool { return p.fields }

// declaredFields are the names f's class bodies assign at their own level.
func declaredFields(f *pyparse.File) []string {
	var names []string
	for _, cls := range f.Classes {
		if cls.Node == nil {
			continue
		}
		walkScope(cls.Node.ChildByField("body"), func(n *pyparse.Node) {
			if n.Kind() == "assignment" {
				if l := n.ChildByField("left"); l != nil && l.Kind() == "identifier" {
					names = append(names, l.Text(f.Src))
				}
			}
		})
	}
	return names
}

// mutatedFields are the attribute names some parsed file assigns (`state.should_save = True`,
// `self.flag += 1`), read with each file's bindings (reindex): a field assigned after
// construction is not fixed by what the construction gave it.
func (p *project) mutatedFields() map[string]bool { return p.mutated }
