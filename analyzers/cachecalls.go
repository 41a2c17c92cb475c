package analyzers

import (
	"fmt"
	"iter"
	"runtime"
	"runtime/trace"
	"slices"
	"sort"
	"strings"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/parallel"
	"github.com/cachelint/cachelint/pyparse"
)

// CacheCalls finds every cache-emptying call of the project: the direct spellings and
// aliases of SPEC §2, known library helpers, and calls of the project's own functions that
// (transitively) make such a call — the cache-emptying helpers. Its result is the call graph
// that Classify walks.
//
// CacheCalls owns the parse: it parses the files that mention a needle (Needles), then the
// files that mention the helpers it found, round after round, then what AllocConf will
// need; once it returns, nothing is parsed any more, so every analyzer after it sees the
// same files whatever order they run in.
var CacheCalls = &driver.Analyzer{
	Name: "cachecalls",
	Doc:  "parses the files that can matter and finds cache-emptying calls, direct or through helpers, across them",
	Run:  runCacheCalls,
}

// Target is a call that empties the cache by itself: a torch spelling or a library helper.
type Target struct {
	File *pyparse.File
	Call *pyparse.Call
	// Spelling is what the user wrote, qualified ("torch.cuda.empty_cache").
	Spelling string
	// Library explains a library helper ("accelerate's release_memory() ..."), "" for torch.
	Library string
}

// Edge is a call of a project helper.
type Edge struct {
	File   *pyparse.File
	Call   *pyparse.Call
	Callee *pyparse.Function
	// CalleeFile is where the helper is defined.
	CalleeFile *pyparse.File
	// Dispatch marks a call `self.name()` in a base class that runs a subclass's override:
	// the base's loop is the override's context, and the override is where its author
	// wrote the cache-emptying call (Classify reports it there).
	Dispatch bool
}

// CallGraph is CacheCalls' result.
type CallGraph struct {
	Targets []*Target
	// Helpers are the project functions that (transitively) empty the cache.
	Helpers map[*pyparse.Function]bool
	// Callers lists the calls of each helper.
	Callers map[*pyparse.Function][]*Edge
	// Inner lists, for each helper, the cache-emptying calls in its own body: targets and
	// calls of other helpers.
	Inner map[*pyparse.Function][]*Edge
	// TargetsIn lists the targets in each function's own body (nil key: module level).
	FileOf  map[*pyparse.Function]*pyparse.File
	Project *project
	// Rounds is how many prefilter rounds ran (1 when no helper was found).
	Rounds int
	// Needles are every needle the prefilter searched for, in any round: a file that
	// mentions none of them was not parsed for what it mentions (the engine's cache checks
	// a changed file against them).
	Needles []string

	// targetsIn lists the targets in each function's own body, built on first use:
	// needsCallers looked through every target for every helper.
	targetsIn map[*pyparse.Function][]*Target
	// configMentions says of each parsed file whether it names an allocator variable
	// (configFiles).
	configMentions []bool
	// kept is what the rounds resolved, encoded for the next run (encodeKept) when a cache
	// keeps trees; keptFiles is how many files' part of it an earlier run's kept graph gave,
	// keptAsked that run's import questions (driver.Kept), keptMiss why such a graph was
	// not taken.
	kept      [][]byte
	keptFiles int
	// keptAgain is how many unchanged files had their calls found again: they read what an
	// edit changed.
	keptAgain int
	keptAsked map[string]map[string]bool
	keptMiss  string
}

func runCacheCalls(pass *driver.Pass) (any, error) {
	ctx := pass.Context
	progress := pass.Settings.Progress
	sigs := pass.Settings.Signatures
	if sigs != nil && pass.Settings.Kept != nil {
		// Each is given once; a run that finds the kept graph does not hold starts again.
		taken, given := map[string][]byte{}, sigs
		sigs = func(path string) []byte {
			sig, ok := taken[path]
			if !ok {
				sig = given(path)
				taken[path] = sig
			}
			return sig
		}
	}
	newResult := func() *pyparse.Result {
		res := pyparse.NewResult(pass.Files, pass.ReadFile, pass.Fset, pass.Settings.Jobs)
		if t := pass.Settings.Trees; t != nil {
			// A cache keeps the trees, and the signatures of the files read, parsed ones too.
			res.Trees, res.SignParsed = t, true
			if th := pass.Settings.TextHashes; th != nil {
				res.KnowTexts(th)
			}
		}
		if sigs != nil {
			res.Know(sigs)
		}
		if progress != nil {
			res.Counter = &progress.Parsed
			progress.Round.Store(1)
		}
		return res
	}
	res := newResult()
	extra := map[string]bool{}
	for _, e := range pass.Settings.ExtraHelpers {
		if e = strings.TrimSpace(e); e != "" {
			extra[e] = true
		}
	}
	first := Needles(pass.Settings.ExtraHelpers)
	var keptMiss string
	if k := pass.Settings.Kept; k != nil {
		g, miss, err := keptRun(ctx, pass, k, res, first, extra)
		if err != nil || miss == "" {
			return g, err
		}
		// The kept graph does not hold: the rounds in full, on a Result of their own
		// (which takes the trees just parsed, the same texts, as it parses them).
		tried := res
		res, keptMiss = newResult(), miss
		res.Reuse(tried)
	}
	if err := res.ParseMatching(ctx, first); err != nil {
		return nil, err
	}
	proj := newProject(pass.Settings.Root, pass.Files, res)
	proj.jobs = pass.Settings.Jobs
	memo := newGraphMemo()
	memo.jobs = pass.Settings.Jobs
	searched := map[string]bool{}
	for _, n := range first {
		searched[n] = true
	}
	var g *CallGraph
	round := 1
	needles := append([]string(nil), first...)
	for ; ; round++ {
		if progress != nil {
			progress.Round.Store(int32(round))
		}
		region := trace.StartRegion(ctx, "reindex")
		proj.reindex()
		region.End()
		region = trace.StartRegion(ctx, "graph")
		g = buildGraph(proj, res, extra, memo)
		region.End()
		region = trace.StartRegion(ctx, "needles")
		var fresh []string
		proj.graphNeedles(g, func(n string) {
			if !searched[n] {
				searched[n] = true
				fresh = append(fresh, n)
			}
		})
		region.End()
		wanted := make([]string, 0, len(proj.want))
		for file := range proj.want {
			wanted = append(wanted, file)
		}
		if len(fresh) == 0 && len(wanted) == 0 {
			break
		}
		before := res.Parsed
		needles = append(needles, fresh...)
		// The files that mention a new needle, and the modules a binding led to whatever
		// they mention (index.go: project.want), in one pass.
		if err := res.ParseMatchingAnd(ctx, fresh, wanted); err != nil {
			return nil, err
		}
		if res.Parsed == before {
			break
		}
	}
	// AllocConf judges a garbage_collection_threshold setting against its whole program:
	// parse the files that set a memory fraction or import the setting's module now.
	if fraction := fractionNeedles(g); len(fraction) > 0 {
		before := res.Parsed
		needles = append(needles, fraction...)
		if err := res.ParseMatching(ctx, fraction); err != nil {
			return nil, fmt.Errorf("parse files that may set a memory fraction: %w", err)
		}
		if res.Parsed != before {
			proj.reindex()
			g = buildGraph(proj, res, extra, memo)
		}
	}
	g.Rounds = round
	g.Needles = needles
	if pass.Settings.Trees != nil {
		// Encoded now: the memo is not kept through the classification (on the 15-project
		// tree, keeping it to the end raised the peak by 80 MB).
		region := trace.StartRegion(ctx, "graph store")
		g.kept = encodeKept(g, memo, nil)
		region.End()
	}
	g.keptMiss = keptMiss
	proj.graphDone()
	return g, nil
}

// graphNeedles hands add the needles of the files that may call g's helpers: each helper's
// callers (import needles, pyparse.ImportedName), and the subclasses of abstract classes a
// helper's caller types a parameter with. It asks the bases of helper methods' classes to be
// looked up (wantBases).
func (proj *project) graphNeedles(g *CallGraph, add func(string)) {
	proj.readOwnLoops(g)
	for fn := range g.Helpers {
		needs := g.needsCallers(fn)
		if fn.Class != nil && needs {
			proj.wantBases(g.FileOf[fn], fn.Class)
		}
		if needs && !entryPoint(fn) && searchable(fn) {
			// A file that calls fn imports it, so it names fn's module or one of its
			// packages as well (`from .utils.memory import cleanup`, `import pkg.memory`):
			// searching for both keeps a name many files use for other things (`cleanup`,
			// `free_memory`) from pulling them all in, and drops no caller. Needles, not
			// names, are what was searched: two helpers of one name in different modules
			// each get theirs, whichever comes first.
			for _, n := range proj.importNeedles(g.FileOf[fn], fn.Name) {
				add(n)
			}
		}
	}
	// A helper called where a parameter is typed with an abstract project class
	// (`chatio: ChatIO` in FastChat's chat loop): what the loop does through it
	// (`chatio.prompt_for_input()`) is in the subclasses, which import the base's
	// module and name it.
	for fn := range g.Helpers {
		for _, e := range g.Callers[fn] {
			for _, n := range proj.abstractParamNeedles(e.File, e.Call.Function) {
				add(n)
			}
		}
	}
}

// graphMemo keeps what buildGraph found for each call across prefilter rounds, and what
// finding it read of the parsed files (probes.go).
type graphMemo struct {
	calls, entered callMemo
	// files are what each file's calls contributed in the last round, kept while none of
	// the answers they read changes: a round then neither resolves nor checks them.
	files map[*pyparse.File]*fileGraph
	// last are the answers as the last round gave them, to tell which changed since.
	last answers
	// fileOf is FileOf of every parsed file's functions.
	fileOf map[*pyparse.Function]*pyparse.File
	// jobs is how many goroutines resolve a round's calls (0: GOMAXPROCS).
	jobs int
	// caches are each goroutine's probeCache, kept from round to round.
	caches []*probeCache
	// callers are the call edges of every file by callee, entCallers the edges of with
	// items: each list in the files' order, and a file's edges in its order. A round
	// changes the lists of the edges of the files it resolved again, not all (building
	// them anew was most of a late round's time on a large tree: 18 ms for 53,000 edges).
	callers, entCallers edgesByCallee
}

// callersOf are the edges to fn: the call edges, then the with items'.
func (memo *graphMemo) callersOf(fn *pyparse.Function) iter.Seq[*Edge] {
	return func(yield func(*Edge) bool) {
		for _, list := range [2][]*Edge{memo.callers[fn], memo.entCallers[fn]} {
			for _, e := range list {
				if !yield(e) {
					return
				}
			}
		}
	}
}

// edgesByCallee lists edges by their callee.
type edgesByCallee map[*pyparse.Function][]*Edge

// update replaces the edges of the files in todo (in the files' order; before[i] is what
// todo[i] contributed before, nil for a new file) with those files now hold, as edges
// picks them from a file's contribution.
func (by edgesByCallee) update(todo []*pyparse.File, before []*fileGraph, now map[*pyparse.File]*fileGraph, edges func(*fileGraph) []*Edge) {
	redone := make(map[*pyparse.File]bool, len(todo))
	added := map[*pyparse.Function][]*Edge{}
	for i, f := range todo {
		if before[i] != nil && slices.Equal(edges(before[i]), edges(now[f])) {
			// Looked at again and no call of it found anew (the same edges): its callees'
			// lists hold them already (most files of a late round).
			continue
		}
		if before[i] != nil {
			redone[f] = true
			for _, e := range edges(before[i]) {
				if _, ok := added[e.Callee]; !ok {
					added[e.Callee] = nil
				}
			}
		}
		for _, e := range edges(now[f]) {
			added[e.Callee] = append(added[e.Callee], e)
		}
	}
	for callee, add := range added {
		kept := by[callee] // read only: a list changed is a new slice
		if len(redone) > 0 {
			kept = nil
			for _, e := range by[callee] {
				if !redone[e.File] {
					kept = append(kept, e)
				}
			}
		}
		switch { // kept and add are slices of their own: one alone is the list
		case len(kept) == 0 && len(add) == 0:
			delete(by, callee)
			continue
		case len(kept) == 0:
			by[callee] = add
			continue
		case len(add) == 0:
			by[callee] = kept
			continue
		}
		merged := make([]*Edge, 0, len(kept)+len(add))
		for len(kept) > 0 && len(add) > 0 {
			if kept[0].File.Path < add[0].File.Path {
				merged, kept = append(merged, kept[0]), kept[1:]
			} else {
				merged, add = append(merged, add[0]), add[1:]
			}
		}
		by[callee] = append(append(merged, kept...), add...)
	}
}

func newGraphMemo() *graphMemo {
	return &graphMemo{calls: callMemo{}, entered: callMemo{}, files: map[*pyparse.File]*fileGraph{},
		fileOf: map[*pyparse.Function]*pyparse.File{}, callers: edgesByCallee{}, entCallers: edgesByCallee{}}
}

// fileGraph is what one file's calls contribute to the graph, in the order of its calls
// and then of its with items, and every answer finding it read.
type fileGraph struct {
	targets             []*Target
	callEdges, entEdges []*Edge
	// reads holds what the file's calls read, each answer once by its number in the
	// project's probeTable; an answer a call read before it was resolved again may stay
	// (the file is then looked at once too often).
	reads map[int32]struct{}
	// untrusted: some call read an answer no probe tells the change of (probeUnknown), so
	// the file is looked at again every round.
	untrusted bool
	// cross holds every answer the file's calls read, found or not (crossRead), for a run
	// after an edit; like reads, it may hold what a call read before it was found again.
	cross map[crossRead]struct{}
}

// newFileGraph is an empty fileGraph, or one that goes on from last's reads.
func newFileGraph(last *fileGraph) *fileGraph {
	if last != nil {
		return &fileGraph{reads: last.reads, untrusted: last.untrusted, cross: last.cross}
	}
	return &fileGraph{reads: map[int32]struct{}{}, cross: map[crossRead]struct{}{}}
}

// readsAny reports whether the file's calls read one of the answers in changed.
func (fg *fileGraph) readsAny(changed map[int32]bool) bool {
	if len(changed) < len(fg.reads) {
		for id := range changed {
			if _, ok := fg.reads[id]; ok {
				return true
			}
		}
		return false
	}
	for id := range fg.reads {
		if changed[id] {
			return true
		}
	}
	return false
}

// callMemo holds, per file, what each of its calls contributes, by the call's index in the
// file's list (Calls or Entered): one lookup per file and round, not one per call.
type callMemo map[*pyparse.File][]resolvedCall

// resolvedCall is what one call contributes to the graph, and what finding it read. Most
// calls contribute nothing (no target, no project callee), so the contribution is apart.
type resolvedCall struct {
	part *callPart // nil when the call contributes nothing
	// probes is the number of the set of probes finding it read, in the project's
	// probeTable; done is false until the call is first resolved.
	probes int32
	done   bool
}

// callPart is what a call contributes to the graph: a target when it empties the cache by
// itself, an edge to each project function it may run.
type callPart struct {
	targets []*Target
	edges   []*Edge
}

func (r *resolvedCall) targets() []*Target {
	if r.part == nil {
		return nil
	}
	return r.part.targets
}

func (r *resolvedCall) edges() []*Edge {
	if r.part == nil {
		return nil
	}
	return r.part.edges
}

// of returns the slots of f's n calls.
func (m callMemo) of(f *pyparse.File, n int) []resolvedCall {
	slots := m[f]
	if slots == nil {
		slots = make([]resolvedCall, n)
		m[f] = slots
	}
	return slots
}

// resolved brings what the call in slot contributes up to date: it is found again only
// when it never was or what it read has changed since; fresh reports that it was.
func (proj *project) resolved(slot *resolvedCall, find func(*callPart)) (fresh bool) {
	if slot.done && proj.holds(slot.probes) {
		return false
	}
	part := &callPart{}
	*slot = resolvedCall{probes: proj.record(func() { find(part) }), done: true}
	if len(part.targets) > 0 || len(part.edges) > 0 {
		slot.part = part
	}
	return true
}

// buildGraph builds the call graph of the files parsed so far. A file whose calls read
// no answer that changed since the last round (a file parsed, a function name or class
// field defined, a class's subclasses: probes.go) contributes what it did then.
func buildGraph(proj *project, res *pyparse.Result, extra map[string]bool, memo *graphMemo) *CallGraph {
	g := &CallGraph{
		Helpers: map[*pyparse.Function]bool{},
		Callers: map[*pyparse.Function][]*Edge{},
		Inner:   map[*pyparse.Function][]*Edge{},
		FileOf:  memo.fileOf,
		Project: proj,
	}
	now := proj.answers()
	// What changed matters only to the files a round before resolved (a first round has
	// none: on unsloth's edited run, telling every name and file new cost 3.5 ms of one
	// goroutine).
	var changed map[int32]bool
	if len(memo.files) > 0 {
		changed = proj.table.idNumbers(proj.changedSince(now, memo.last))
	}
	memo.last = now
	var todo []*pyparse.File
	var before []*fileGraph
	for _, f := range res.Files {
		fg := memo.files[f]
		if fg == nil {
			for _, fn := range f.Functions {
				g.FileOf[fn] = f
			}
		}
		if fg == nil || fg.untrusted || fg.readsAny(changed) {
			todo = append(todo, f)
			before = append(before, fg)
		}
	}
	proj.graphsOf(todo, extra, memo)
	memo.callers.update(todo, before, memo.files, func(fg *fileGraph) []*Edge { return fg.callEdges })
	memo.entCallers.update(todo, before, memo.files, func(fg *fileGraph) []*Edge { return fg.entEdges })
	for _, f := range res.Files {
		g.Targets = append(g.Targets, memo.files[f].targets...)
	}
	// Helpers: functions whose own body holds a target, then their callers' functions,
	// transitively. The visited set makes recursion and cycles terminate.
	var queue []*pyparse.Function
	for _, t := range g.Targets {
		if fn := t.Call.Function; fn != nil && !g.Helpers[fn] {
			g.Helpers[fn] = true
			queue = append(queue, fn)
		}
	}
	for len(queue) > 0 {
		fn := queue[0]
		queue = queue[1:]
		for e := range memo.callersOf(fn) {
			g.Callers[fn] = append(g.Callers[fn], e)
			if caller := e.Call.Function; caller != nil {
				g.Inner[caller] = append(g.Inner[caller], e)
				if !g.Helpers[caller] {
					g.Helpers[caller] = true
					queue = append(queue, caller)
				}
			}
		}
	}
	for fn := range g.Callers {
		sortEdges(g.Callers[fn])
	}
	return g
}

// callsPerJob is the least number of calls to resolve that is worth a goroutine of its own,
// and callsPerShare the most one goroutine takes at a time: a file of more calls is cut into
// shares of consecutive calls, so that one large file does not keep a round waiting on one
// goroutine while the others are done (unsloth: one file of 5,404 calls was 43 ms of a
// round's 162 ms of resolving, a round's whole time once shared out on 16 cores).
var callsPerJob, callsPerShare = 1024, 512

// bytesPerJob is the least text whose trees reindex reads for their bindings that is worth
// a goroutine of its own: a round of a few large files (an edited run's first, its edited
// file among them) is worth several.
var bytesPerJob = 64 << 10

// basesPerJob is the least number of class bases reindex looks up worth a goroutine.
var basesPerJob = 256

// share is part of one file's calls for one goroutine to resolve: its calls from to to, and
// its with items when entered is set.
type share struct {
	file     int
	from, to int
	entered  bool
}

// whole reports the only share of its file.
func (sh share) whole() bool { return sh.from == 0 && sh.entered }

// shares cuts the files' calls into shares, each file's in order.
func shares(files []*pyparse.File) []share {
	var out []share
	size := max(callsPerShare, 1)
	for i, f := range files {
		from, n := 0, len(f.Calls)
		for ; n-from > size; from += size {
			out = append(out, share{file: i, from: from, to: from + size})
		}
		out = append(out, share{file: i, from: from, to: n, entered: true})
	}
	return out
}

// graphsOf finds what each of files contributes to the graph (graphOf) and keeps it in
// memo.files. The calls are shared out among goroutines (a file's in shares, in order), each
// resolving with its own copy of the project's caches (project.worker): they read the round's
// tables, which nothing changes while they run, and what the lookups want parsed is gathered
// afterwards.
func (proj *project) graphsOf(files []*pyparse.File, extra map[string]bool, memo *graphMemo) {
	jobs := memo.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	calls := 0
	for _, f := range files {
		calls += len(f.Calls) + len(f.Entered)
	}
	jobs = min(jobs, calls/callsPerJob)
	if jobs <= 1 {
		for _, f := range files {
			memo.files[f] = proj.graphOf(f, memo.files[f], extra, memo)
		}
		return
	}
	for _, f := range files {
		memo.calls.of(f, len(f.Calls))
		memo.entered.of(f, len(f.Entered))
	}
	parts := shares(files)
	out := make([]*fileGraph, len(parts))
	workers := make([]*project, jobs)
	for w := range workers {
		workers[w] = proj.worker()
		for len(memo.caches) <= w {
			memo.caches = append(memo.caches, newProbeCache())
		}
		workers[w].probeCache = memo.caches[w]
	}
	order := largestFirst(len(parts), func(i int) int {
		sh := parts[i]
		n := sh.to - sh.from
		if sh.entered {
			n += len(files[sh.file].Entered)
		}
		return n
	})
	parallel.For(len(parts), jobs, func(w, k int) {
		sh := parts[order[k]]
		f := files[sh.file]
		if sh.whole() {
			out[order[k]] = workers[w].graphOf(f, memo.files[f], extra, memo)
			return
		}
		fg := newFileGraph(nil)
		workers[w].resolveShare(fg, f, sh, extra, memo)
		out[order[k]] = fg
	})
	// A file's shares are consecutive, in the order of its calls; a file of one share is done
	// (most are: putting every file back together was a round's one goroutine's work).
	for i := 0; i < len(parts); {
		f := files[parts[i].file]
		if parts[i].whole() {
			memo.files[f] = out[i]
			i++
			continue
		}
		fg := newFileGraph(memo.files[f])
		for ; i < len(parts) && files[parts[i].file] == f; i++ {
			part := out[i]
			fg.targets = append(fg.targets, part.targets...)
			fg.callEdges = append(fg.callEdges, part.callEdges...)
			fg.entEdges = append(fg.entEdges, part.entEdges...)
			fg.untrusted = fg.untrusted || part.untrusted
			for id := range part.reads {
				fg.reads[id] = struct{}{}
			}
			for r := range part.cross {
				fg.cross[r] = struct{}{}
			}
		}
		memo.files[f] = fg
	}
	for _, w := range workers {
		proj.merge(w)
	}
}

// largestFirst orders 0..n-1 by size, largest first (the order among equals kept): work
// shared out in that order does not end waiting on one large piece handed out last.
func largestFirst(n int, size func(i int) int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return size(b) - size(a) })
	return order
}

// graphOf finds what f's calls contribute to the graph: each call as the last round
// found it while what it read holds (resolved), found again otherwise. last is what the
// file contributed before, nil in the round that parsed it.
func (proj *project) graphOf(f *pyparse.File, last *fileGraph, extra map[string]bool, memo *graphMemo) *fileGraph {
	fg := newFileGraph(last)
	proj.resolveShare(fg, f, share{to: len(f.Calls), entered: true}, extra, memo)
	return fg
}

// resolveShare adds to fg what a share of f's calls contributes (graphOf), in their order.
func (proj *project) resolveShare(fg *fileGraph, f *pyparse.File, sh share, extra map[string]bool, memo *graphMemo) {
	// resolve brings a slot up to date and, when its call was found again, adds what that
	// read to the file's reads.
	resolve := func(slot *resolvedCall, find func(*callPart)) *resolvedCall {
		if !proj.resolved(slot, find) {
			return slot
		}
		for _, r := range proj.cross {
			fg.cross[r] = struct{}{}
		}
		if slot.probes != 0 {
			for _, n := range proj.table.set(slot.probes) {
				if proj.table.probe(n).kind == probeUnknown {
					fg.untrusted = true
				} else {
					fg.reads[proj.table.answer(n)] = struct{}{}
				}
			}
		}
		return slot
	}
	slots := memo.calls.of(f, len(f.Calls))
	for i := sh.from; i < sh.to; i++ {
		c := f.Calls[i]
		r := resolve(&slots[i], func(part *callPart) { resolveCall(proj, f, c, extra, part) })
		fg.targets = append(fg.targets, r.targets()...)
		fg.callEdges = append(fg.callEdges, r.edges()...)
	}
	if !sh.entered {
		return
	}
	// `with m:` runs m's __enter__ and __exit__: an edge from the with item to each.
	slots = memo.entered.of(f, len(f.Entered))
	for i, c := range f.Entered {
		r := resolve(&slots[i], func(part *callPart) {
			for _, cr := range proj.managerClasses(f, c) {
				for _, name := range []string{"__enter__", "__exit__"} {
					if m := proj.findMethod(cr.file, cr.cls, name, 0); m != nil && m.fn.Node != nil && !m.fn.Node.Contains(c.Node) {
						part.edges = append(part.edges, &Edge{File: f, Call: c, Callee: m.fn, CalleeFile: m.file})
					}
				}
			}
		})
		fg.entEdges = append(fg.entEdges, r.edges()...)
	}
}

// resolveCall finds what one call contributes to the graph: a target when it empties the
// cache by itself, an edge to each project function it may run.
func resolveCall(proj *project, f *pyparse.File, c *pyparse.Call, extra map[string]bool, out *callPart) {
	target := func(t *Target) {
		if t != nil {
			out.targets = append(out.targets, t)
		}
	}
	q := proj.qualifiedCallee(f, c)
	if q == "" {
		// A table of callables: `{"cuda": torch.cuda.empty_cache, "mps": clear}[dev]()`.
		t, es := proj.tableCall(f, c)
		target(t)
		out.edges = append(out.edges, es...)
		return
	}
	if s, ok := directCallee(q); ok {
		target(&Target{File: f, Call: c, Spelling: s})
		return
	}
	why, ok := libraryHelper(q)
	if !ok {
		why, ok = libraryHelper(c.Callee)
		if ok {
			q = c.Callee
		}
	}
	if ok {
		target(&Target{File: f, Call: c, Spelling: q, Library: why})
		return
	}
	if extra[q] || extra[c.Callee] {
		target(&Target{File: f, Call: c, Spelling: q, Library: "listed in extra-helpers"})
		return
	}
	resolved := append(proj.resolveAll(f, c), proj.callbacks(f, c)...)
	for _, r := range resolved {
		if r.fn.Node != nil && !r.fn.Node.Contains(c.Node) {
			out.edges = append(out.edges, &Edge{File: f, Call: c, Callee: r.fn, CalleeFile: r.file, Dispatch: r.dispatch})
		}
	}
	if len(resolved) == 0 {
		// A callable field of a record: `spec.empty_cache_fn()` (index.go).
		t, es := proj.fieldCall(f, c)
		target(t)
		out.edges = append(out.edges, es...)
	}
}

// entryPoint reports functions whose callers are not worth a search of the whole project:
// entry points and dunder methods (called by Python or by name everywhere: `main`, `run`,
// `__init__`, tests), and model loaders, whose cache clearing is a model switch wherever
// they are called. Their callers in files already parsed are still followed.
func entryPoint(fn *pyparse.Function) bool {
	n := fn.Name
	switch n {
	case "main", "run", "cli_main", "setUp", "tearDown", "setUpClass", "tearDownClass",
		"setup_method", "teardown_method", "setup_class", "teardown_class", "setup_module", "teardown_module":
		return true
	}
	return strings.HasPrefix(n, "__") || strings.HasPrefix(n, "test") || reLoadModel.MatchString(n)
}

// searchable reports whether to search the whole project for a helper's callers. Functions
// are searched for by name. Methods are not: their callers reach them through `self.` or
// `super()` in the class's own file (already parsed), and a name like `forward`, `step` or
// `prepare_latents` is mentioned by most files of a large project while calls of it on
// other objects could not be told apart from other classes' methods of that name.
func searchable(fn *pyparse.Function) bool {
	return fn.Class == nil && len(strings.TrimLeft(fn.Name, "_")) >= 4
}

// needsCallers reports whether a helper's callers decide how often it empties the cache:
// some cache-emptying call in its body runs once per call of it (not inside a loop of its
// own). A helper whose only calls sit in its own loops is classified where it stands, so its
// callers' files need not be searched for — this keeps `train()`, `fit()` and `main()` from
// pulling in every file that mentions them.
func (g *CallGraph) needsCallers(fn *pyparse.Function) bool {
	for _, t := range g.targetsOf(fn) {
		if !g.Project.inOwnLoop(t.File, t.Call.Node) {
			return true
		}
	}
	for _, e := range g.Inner[fn] {
		if !g.Project.inOwnLoop(e.File, e.Call.Node) {
			return true
		}
	}
	return false
}

// targetsOf are the targets in fn's own body.
func (g *CallGraph) targetsOf(fn *pyparse.Function) []*Target {
	if g.targetsIn == nil {
		g.targetsIn = map[*pyparse.Function][]*Target{}
		for _, t := range g.Targets {
			g.targetsIn[t.Call.Function] = append(g.targetsIn[t.Call.Function], t)
		}
	}
	return g.targetsIn[fn]
}

// ownLoopsPerJob is the least number of calls whose loops (inOwnLoop) are worth a goroutine.
var ownLoopsPerJob = 256

// readOwnLoops reads on every CPU, into the memo of inOwnLoop, whether each call that
// needsCallers may ask about sits in a step loop of its function: the cache calls in the
// helpers and the helpers' calls of helpers. graphNeedles asks about them one helper after
// another, each round (an edited run of diffusers: 2 ms of its one goroutine).
func (p *project) readOwnLoops(g *CallGraph) {
	var set callSites
	for fn := range g.Helpers {
		for _, t := range g.targetsOf(fn) {
			set.add(t.File, t.Call)
		}
		for _, e := range g.Inner[fn] {
			set.add(e.File, e.Call)
		}
	}
	sites := slices.DeleteFunc(set.list, func(s callSite) bool {
		_, read := p.ownLoops[s.call.Node]
		return read
	})
	jobs := p.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs = min(jobs, len(sites)/ownLoopsPerJob); jobs <= 1 {
		return // asked one by one
	}
	in := make([]bool, len(sites))
	parallel.For(len(sites), jobs, func(_, i int) { in[i] = inOwnLoop(sites[i].f, sites[i].call.Node) })
	for i, s := range sites {
		p.ownLoops[s.call.Node] = in[i]
	}
}

// inOwnLoop is the package's inOwnLoop, memoized per call for the whole run: each round asks
// it again of every helper's calls (on the 15-project tree, 52 ms of a cold run's one
// goroutine).
func (p *project) inOwnLoop(f *pyparse.File, n *pyparse.Node) bool {
	in, ok := p.ownLoops[n]
	if !ok {
		in = inOwnLoop(f, n)
		p.ownLoops[n] = in
	}
	return in
}

// inOwnLoop reports whether a call sits in a loop of its function that looks like a step or
// epoch loop (the cheap, syntactic part of Classify's judgement: enough to decide whether
// the function's callers must be found).
func inOwnLoop(f *pyparse.File, n *pyparse.Node) bool {
	for m := n.Parent(); m != nil; m = m.Parent() {
		switch m.Kind() {
		case "for_statement":
			iter, target := m.ChildByField("right").Text(f.Src), m.ChildByField("left").Text(f.Src)
			if reStepIter.MatchString(iter) || reEpochIter.MatchString(iter) || reEpochIter.MatchString(target) {
				return true
			}
		case "while_statement":
			if reStepWhile.MatchString(m.ChildByField("condition").Text(f.Src)) {
				return true
			}
		case "function_definition", "class_definition":
			return false
		}
	}
	return false
}

func sortEdges(es []*Edge) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].File.Path != es[j].File.Path {
			return es[i].File.Path < es[j].File.Path
		}
		return es[i].Call.Node.Start < es[j].Call.Node.Start
	})
}

// Parsed is the parse CacheCalls made: every file any analyzer looks at.
func (g *CallGraph) Parsed() *pyparse.Result { return g.Project.res }
