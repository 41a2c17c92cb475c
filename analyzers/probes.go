package analyzers

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cachelint/cachelint/pyparse"
)

// A prefilter round parses more files, and what a call resolves to can change with them: a
// module it imports from is parsed now, a function or class field of a name it reads is
// defined, a class it dispatches through has a new subclass. Those are the only answers the
// resolver reads of the set of parsed files (everything else it reads is the call's own
// file, or the paths of the project, which a round does not change). While buildGraph
// resolves a call, the project records each such answer as a probe; the next round
// re-resolves the call only when one of its probes answers differently, and keeps what it
// found otherwise (it was 22% of a cold run's time, rebuilt in full every round).

// probeKind is which answer a probe recorded.
type probeKind uint8

const (
	probeParsed     probeKind = iota // the module file name is parsed
	probeFuncName                    // some parsed function is called name
	probeField                       // some parsed class body declares the field name
	probeSubclasses                  // the project subclasses of cls
	probeUnknown                     // read while nothing recorded: never trusted again
	// probeImport is no probe: a crossRead of a question asked about an unparsed module's
	// imports (pyparse.Result.MayImport), named by the module's path, a NUL and the name.
	probeImport
)

type probe struct {
	kind  probeKind
	found bool
	name  string
	cls   *pyparse.Class
	subs  []classRef
}

// probeID names the answer a probe recorded, whatever it was.
type probeID struct {
	kind probeKind
	name string
	cls  *pyparse.Class
}

func (pr probe) id() probeID { return probeID{kind: pr.kind, name: pr.name, cls: pr.cls} }

// answers are what changed of the project's answers to the probes since the last answers:
// files are only ever added to a parse, so the files parsed, function names and class
// fields are only ever added to (the files parsed since, the names reindex added since); the
// subclasses are the round's table, which a later round replaces and never changes in place.
// (A round used to copy the table of parsed files and build the set of class fields
// afresh: on 16 cores, part of a round's time on one goroutine.)
type answers struct {
	parsed, names, fields []string
	subclasses            map[*pyparse.Class][]classRef
}

func (p *project) answers() answers {
	if p.answered == nil {
		p.answered = map[*pyparse.File]bool{}
	}
	var parsed []string
	for _, f := range p.res.Files {
		if !p.answered[f] {
			p.answered[f] = true
			parsed = append(parsed, f.Path)
		}
	}
	now := answers{parsed: parsed, names: p.addedNames, fields: p.addedFields, subclasses: p.subclasses}
	p.addedNames, p.addedFields = nil, nil
	return now
}

// changedSince are the probes whose answer is now other than last's: those of the files,
// function names and class fields added since (now's), and the subclass lists that differ.
func (p *project) changedSince(now, last answers) map[probeID]bool {
	changed := map[probeID]bool{}
	for _, name := range now.names {
		changed[probeID{kind: probeFuncName, name: name}] = true
	}
	for _, path := range now.parsed {
		changed[probeID{kind: probeParsed, name: path}] = true
	}
	for _, name := range now.fields {
		changed[probeID{kind: probeField, name: name}] = true
	}
	for cls, subs := range now.subclasses {
		if !slices.Equal(subs, last.subclasses[cls]) {
			changed[probeID{kind: probeSubclasses, cls: cls}] = true
		}
	}
	return changed
}

// probeKey names a cached answer of the resolver whose computation read probes: a class's
// attribute bindings (attrFuncs, attrClasses) or a function's local name (localRefs).
type probeKey struct {
	table int8
	ptr   any
	name  string
}

const (
	tableAttrFuncs int8 = iota
	tableAttrClasses
	tableLocalRefs
	tableClassLookups
	tableModuleSearches
)

// note records a probe while recording.
func (p *project) note(pr probe) {
	if p.recording {
		p.probes = append(p.probes, pr)
	}
}

// A run after an edit keeps the call graph of the files whose calls read nothing that the
// edit changed (kept.go). Within a run an answer found stays found, so probes record only
// the answers that can still change; across runs a changed file can take back what it
// defined, and the files a call read into can change. So, while recording, the project
// also logs every answer a call read, found or not, as a crossRead: the modules it looked
// up (parsed or not), the function names and class fields it asked about, and whether it
// read a class's subclasses. Cached answers replay theirs as they replay their probes.

// crossRead is an answer a call read, as a later run names it: its kind, and the module's
// path, the name asked about or the qualified name of the class whose subclasses were read
// ("" for probeUnknown, an answer computed while nothing recorded: every change may matter
// to it).
type crossRead struct {
	kind probeKind
	name string
}

// read logs an answer the call being resolved read, while recording.
func (p *project) read(kind probeKind, name string) {
	if p.recording {
		p.cross = append(p.cross, crossRead{kind, name})
	}
}

// noteMissing records a probe of an answer that can still change: a module not parsed yet,
// a name no parsed function or class field has yet. Files are only ever added to a parse,
// so an answer found stays found, and its probe would always hold: a call resolved through
// the modules a package star-imports read hundreds of them, each a probe kept with the call.
func (p *project) noteMissing(kind probeKind, name string, found bool) {
	p.read(kind, name)
	if !found {
		p.note(probe{kind: kind, name: name})
	}
}

// parsedFile is the parsed file of a project module's path, nil when it is not parsed.
func (p *project) parsedFile(file string) *pyparse.File {
	if testHookParsedFile != nil {
		testHookParsedFile(file)
	}
	t := p.res.ByPath[file]
	p.noteMissing(probeParsed, file, t != nil)
	return t
}

// testHookParsedFile, set by tests, sees each module the resolver looks up.
var testHookParsedFile func(file string)

// isFuncName reports whether a parsed file defines a function called name.
func (p *project) isFuncName(name string) bool {
	ok := p.funcNames[name]
	p.noteMissing(probeFuncName, name, ok)
	return ok
}

// isField reports whether a parsed class body declares a field called name (classFields).
func (p *project) isField(name string) bool {
	ok := p.classFields()[name]
	p.noteMissing(probeField, name, ok)
	return ok
}

// mayImport asks whether the unparsed module file's import statements may bind name
// (pyparse.Result.MayImport), logging the question for a run after an edit: the run keeps
// the questions its kept calls asked (keptQuestions).
func (p *project) mayImport(file, name string) bool {
	p.read(probeImport, file+"\x00"+name)
	return p.res.MayImport(file, name)
}

// mayBind asks whether the unparsed module file may bind name at all
// (pyparse.Result.MayBind), logged as mayImport's questions are.
func (p *project) mayBind(file, name string) bool {
	p.read(probeImport, file+"\x00"+pyparse.BindQuestion(name))
	return p.res.MayBind(file, name)
}

// subclassesOf are the project classes that name cls as a base.
func (p *project) subclassesOf(cls *pyparse.Class) []classRef {
	subs := p.subclasses[cls]
	// The round's list itself, not a copy: reindex builds new lists and never changes one.
	p.note(probe{kind: probeSubclasses, cls: cls, subs: subs})
	p.read(probeSubclasses, cls.QualName)
	for _, sub := range subs {
		// Read into as a module looked up is (parsedFile).
		p.read(probeParsed, sub.file.Path)
	}
	return subs
}

// holds reports whether every probe of the set numbered set answers now as it did when
// recorded.
func (p *project) holds(set int32) bool {
	if set == 0 {
		return true
	}
	for _, n := range p.table.set(set) {
		switch pr := p.table.probe(n); pr.kind {
		case probeParsed:
			if (p.res.ByPath[pr.name] != nil) != pr.found {
				return false
			}
		case probeFuncName:
			if p.funcNames[pr.name] != pr.found {
				return false
			}
		case probeField:
			if p.classFields()[pr.name] != pr.found {
				return false
			}
		case probeSubclasses:
			if !slices.Equal(p.subclasses[pr.cls], pr.subs) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// cachedProbes adds to the recording what computing a cached answer read: a call that
// reuses the answer depends on the same things.
func (p *project) cachedProbes(key probeKey) {
	if p.recording {
		p.probes = append(p.probes, p.cacheProbes[key]...)
		p.cross = append(p.cross, p.cacheCross[key]...)
	}
}

// computing starts computing a cached answer; calling what it returns keeps what the
// computation read with the answer.
func (p *project) computing(key probeKey) func() {
	start, crossStart, recording := len(p.probes), len(p.cross), p.recording
	return func() {
		if recording && p.recording {
			p.cacheProbes[key] = slices.Clone(p.probes[start:])
			p.cacheCross[key] = slices.Clone(p.cross[crossStart:])
		} else {
			p.cacheProbes[key] = []probe{{kind: probeUnknown}}
			p.cacheCross[key] = []crossRead{{kind: probeUnknown}}
		}
	}
}

// graphDone drops what numbered and kept the probes of the graph's calls once the graph is
// final: no analysis after it resolves a call again (7-15 MB of the 260 MB live when
// classification starts on the 15-project tree).
func (p *project) graphDone() {
	p.table, p.probeCache, p.probes, p.cacheProbes = nil, nil, nil, map[probeKey][]probe{}
	p.cross, p.cacheCross = nil, map[probeKey][]crossRead{}
}

// record resolves one call with the probes recorded, and returns the number of their set;
// the answers it read are p.cross until the next record.
func (p *project) record(resolve func()) int32 {
	p.recording, p.probes, p.cross = true, p.probes[:0], p.cross[:0]
	resolve()
	p.recording = false
	return p.intern(p.probes)
}

// probeTable numbers the distinct probes of a run, the distinct answers they read
// (probeID) and the distinct sets of probes calls read: a resolved call keeps the number of
// its set in place of a copy of its probes. On the 15-project tree of bench/README.md the
// calls recorded 1.1 M probes, 42 k of them distinct, and the copies were 45 MB of the heap
// while the rounds ran. The goroutines that resolve a round's calls share one table, each
// through a probeCache of its own.
//
// A probe or set is looked up in one of probeShards shards, each with a lock of its own;
// only one the table has not numbered yet takes the table's lock, to number it; what the
// numbers stand for is read without a lock (chunkedList). With one lock for all of it, the
// 16 goroutines of a round on 16 cores spent 5 of their 19 s waiting for it (a mutex profile
// of the 14 installed packages), and a round's call graph kept 3-7 cores busy.
type probeTable struct {
	shards [probeShards]probeShard
	mu     sync.Mutex // numbering: ids and the lists below
	ids    map[probeID]int32
	// What the numbers stand for: lists only appended to, read without a lock.
	probes chunkedList[probe]
	idOf   chunkedList[int32]   // probe number -> its answer's number
	sets   chunkedList[[]int32] // set number -> its probes' numbers, in increasing order; set 0 is empty
}

// probeShards is how many shards a probeTable's lookups are spread over.
const probeShards = 64

// probeShard holds the numbers of the probes and sets whose hash falls in it.
type probeShard struct {
	mu     sync.Mutex
	number map[probeEntry]int32
	setOf  map[string]int32 // a set's numbers as bytes -> the set's number
}

// chunkedList is a list appended to under its table's lock and read without one: its
// elements sit in chunks that never move, so an element written before its number is
// handed out (through a shard's lock, or a round's end) is where the number says. The
// chunks are listed in a directory replaced whole, never changed, when a chunk is added:
// a reader sees one that holds every chunk numbered before. (A fixed directory for 134 M
// elements was 256 KB to clear and scan per list, three a project: in a folder of a
// thousand clones, each its own project, a fifth of the run.)
type chunkedList[T any] struct {
	n   int32
	dir atomic.Pointer[[]*[chunkSize]T]
}

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
)

// at is the element numbered i.
func (c *chunkedList[T]) at(i int32) *T { return &(*c.dir.Load())[i>>chunkBits][i&(chunkSize-1)] }

// push appends v and returns its number (the table's lock held).
func (c *chunkedList[T]) push(v T) int32 {
	i := c.n
	if i == math.MaxInt32 {
		panic("probe table full")
	}
	var dir []*[chunkSize]T
	if d := c.dir.Load(); d != nil {
		dir = *d
	}
	k := int(i >> chunkBits)
	if k == len(dir) {
		grown := make([]*[chunkSize]T, k+1)
		copy(grown, dir)
		grown[k] = new([chunkSize]T)
		c.dir.Store(&grown)
		dir = grown
	}
	dir[k][i&(chunkSize-1)] = v
	c.n++
	return i
}

// probe is the probe numbered n.
func (t *probeTable) probe(n int32) *probe { return t.probes.at(n) }

// answer is the number of the answer the probe numbered n read.
func (t *probeTable) answer(n int32) int32 { return *t.idOf.at(n) }

// set is the numbers of the probes of the set numbered n.
func (t *probeTable) set(n int32) []int32 { return *t.sets.at(n) }

// probeEntry is what tells two probes apart: a subclass list by its array and length,
// since a round's lists are never changed in place.
type probeEntry struct {
	kind  probeKind
	found bool
	name  string
	cls   *pyparse.Class
	subs  *classRef
	nsubs int
}

func entryOf(pr *probe) probeEntry {
	e := probeEntry{kind: pr.kind, found: pr.found, name: pr.name, cls: pr.cls, nsubs: len(pr.subs)}
	if len(pr.subs) > 0 {
		e.subs = &pr.subs[0]
	}
	return e
}

func newProbeTable() *probeTable {
	t := &probeTable{ids: map[probeID]int32{}}
	for i := range t.shards {
		t.shards[i] = probeShard{number: map[probeEntry]int32{}, setOf: map[string]int32{}}
	}
	t.sets.push(nil)
	return t
}

// numberOf returns the number of a probe (e is its entry, h the entry's hash), giving it
// the next when it has none.
func (t *probeTable) numberOf(pr *probe, e probeEntry, h uint64) int32 {
	sh := &t.shards[h%probeShards]
	sh.mu.Lock()
	n, ok := sh.number[e]
	sh.mu.Unlock()
	if ok {
		return n
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if n, ok := sh.number[e]; ok {
		return n // numbered by another goroutine meanwhile
	}
	id, ok := t.ids[pr.id()]
	if !ok {
		id = int32(len(t.ids))
		t.ids[pr.id()] = id
	}
	n = t.probes.push(*pr)
	t.idOf.push(id)
	sh.number[e] = n
	return n
}

// setNumber returns the number of a set of probe numbers (sorted, no repeats; key its
// bytes, h their hash), giving it the next when it has none.
func (t *probeTable) setNumber(set []int32, key []byte, h uint64) int32 {
	sh := &t.shards[h%probeShards]
	sh.mu.Lock()
	n, ok := sh.setOf[string(key)]
	sh.mu.Unlock()
	if ok {
		return n
	}
	set = slices.Clone(set) // outside the table's lock
	t.mu.Lock()
	defer t.mu.Unlock()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if n, ok := sh.setOf[string(key)]; ok {
		return n
	}
	n = t.sets.push(set)
	sh.setOf[string(key)] = n
	return n
}

// probeCache is what one resolving goroutine has had numbered (probeTable), kept across
// rounds (graphMemo.caches): the table is asked only for a probe or a set of probes the
// goroutine has not seen. Probes and sets are kept by a hash, each found one checked against
// the table, so that the keys (a probe's name, a set's bytes) stay in the table alone and
// not once more per goroutine.
type probeCache struct {
	numbers map[uint64]int32 // probe's hash -> its number
	sets    map[uint64]int32 // set's hash -> its number
	scratch []int32
	key     []byte
}

func newProbeCache() *probeCache {
	return &probeCache{numbers: map[uint64]int32{}, sets: map[uint64]int32{}}
}

// probeSeed seeds the hashes of the run's probe caches.
var probeSeed = maphash.MakeSeed()

// intern returns the number of the set of probes.
func (p *project) intern(probes []probe) int32 {
	if len(probes) == 0 {
		return 0
	}
	c := p.probeCache
	set := c.scratch[:0]
	for i := range probes {
		e := entryOf(&probes[i])
		h := maphash.Comparable(probeSeed, e)
		n, ok := c.numbers[h]
		if !ok || entryOf(p.table.probe(n)) != e {
			n = p.table.numberOf(&probes[i], e, h)
			c.numbers[h] = n
		}
		set = append(set, n)
	}
	slices.Sort(set)
	set = slices.Compact(set)
	c.scratch = set
	key := c.key[:0]
	for _, n := range set {
		key = binary.LittleEndian.AppendUint32(key, uint32(n))
	}
	c.key = key
	h := maphash.Bytes(probeSeed, key)
	if n, ok := c.sets[h]; ok && slices.Equal(p.table.set(n), set) {
		return n
	}
	n := p.table.setNumber(set, key, h)
	c.sets[h] = n
	return n
}

// idNumbers are the numbers of the answers in changed that some probe read; the others no
// call read.
func (t *probeTable) idNumbers(changed map[probeID]bool) map[int32]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[int32]bool, len(changed))
	for id := range changed {
		if n, ok := t.ids[id]; ok {
			out[n] = true
		}
	}
	return out
}
