package analyzers

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"maps"
	"runtime"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/parallel"
	"github.com/cachelint/cachelint/pyparse"
)

// A run after an edit (a commit, a save) usually changes a few files the last run parsed.
// What each unchanged file's calls contributed to the call graph (its targets and edges)
// still holds when nothing its calls read changed, and the run parses the same files:
//
//   - a changed file whose interface is as it was (the file without comments and without
//     the statements of function bodies that are calls, strings or `pass`: interfaceOf)
//     changed nothing another file can read of it. A resolver looking into another file
//     reads its definitions, imports, classes and bases, assignments, returns and loops,
//     never such a statement of a function body (it binds no name; a lambda or a walrus in
//     one keeps the statement in the interface). Its own calls that line up with the kept
//     ones (the same print: text, function and bindings before) keep theirs too;
//   - a changed file whose interface changed has all its calls found again, and so does
//     every file whose calls read something it changed (delta): the file itself (a module
//     looked up and read into, or a subclass's file), a function name or class field it
//     defined or defines now, the subclasses of a class whose list is another now. What a
//     file's calls read is kept with its record: every answer of the kinds the probes of
//     a round record (probes.go), found or not, as a crossRead; a kept call with an edge
//     into the changed file is found again whatever its reads say;
//   - a changed file that mentions no needle now is left unparsed, and changed everything
//     it gave (its file, names and subclasses); it is parsed again, in rounds of the kept
//     run's own, when a call wants it (the module it goes through), as the rounds do;
//   - the run parses the same files: with the graph built, its helpers (by file and
//     qualified name), the needles they give and the allocator settings' needles are the
//     last run's, and no module is wanted that the last run did not parse. The prefilter's
//     rounds are then what they were (each parses the files that mention the needles of
//     the helpers found so far, and the modules a binding leads to, and a helper's needles
//     come from its callees, which mention their own), so the last run's files are parsed
//     at once and the rounds are not run again.
//
// Any check that fails runs the analysis in full, as a run without kept results does. The
// classification runs in full either way.

// keptFormat starts an encoded kept graph; it changes whenever the layout does.
const keptFormat = "cachelint-graph-3\n"

// interfaceOf reads f's interface: its digest, the SHA-256 of what other files' resolution
// can read of f (its tree's kinds and leaf texts in order, without comments and without the
// call, string and pass statements of function bodies, see above; positions left out), and
// the print of each of its calls (f.Calls' order): the call's text, the function it is in
// and its anchor, the number of the interface's nodes before it. A call of a changed file
// whose interface is unchanged that has the print of a kept call is in the same context:
// the same function, the same bindings before it (such a statement binds nothing).
func interfaceOf(f *pyparse.File) (digest [32]byte, prints []uint64) {
	return new(interfaceScratch).of(f)
}

// interfaceScratch is what interfaceOf uses, kept from one file to the next by a goroutine
// that reads many: on the 15-project tree, buffers and tables made anew for each file, with
// the heap at its largest, cost the collector's assists more than the walks themselves (the
// graph store took 861 ms of a 2-CPU cold run).
type interfaceScratch struct {
	h      hash.Hash
	buf    []byte
	prints []uint64
	index  map[*pyparse.Call]int
	funcs  map[*pyparse.Function]int
}

// of is interfaceOf(f); prints is the scratch's own until its next use.
func (sc *interfaceScratch) of(f *pyparse.File) (digest [32]byte, prints []uint64) {
	if sc.h == nil {
		sc.h, sc.buf = sha256.New(), make([]byte, 0, 40<<10)
		sc.index, sc.funcs = map[*pyparse.Call]int{}, map[*pyparse.Function]int{}
	}
	h, buf := sc.h, sc.buf[:0]
	h.Reset()
	clear(sc.index)
	clear(sc.funcs)
	anchor := 0
	prints = slices.Grow(sc.prints[:0], len(f.Calls))[:len(f.Calls)]
	clear(prints)
	sc.prints = prints
	index, funcs := sc.index, sc.funcs
	for i, c := range f.Calls {
		index[c] = i
	}
	for i, fn := range f.Functions {
		funcs[fn] = i + 1
	}
	var walk func(n *pyparse.Node, inFunc, skipped bool)
	walk = func(n *pyparse.Node, inFunc, skipped bool) {
		kind := n.Kind()
		if kind == "comment" {
			return
		}
		skipped = skipped || inFunc && bareStatement(n)
		if kind == "call" {
			if c := f.CallOf(n); c != nil {
				var b [2 * binary.MaxVarintLen64]byte
				k := binary.PutUvarint(b[:], uint64(anchor))
				k += binary.PutUvarint(b[k:], uint64(funcs[c.Function]))
				prints[index[c]] = fnv64a(fnv64a(fnvOffset, b[:k]), nodeBytes(f.Src, n))
			}
		}
		if !skipped {
			anchor++
			// A node is its kind, then its text (a leaf) or its children, between 1 and 2.
			buf = append(buf, kind...)
			if n.ChildCount() == 0 {
				buf = append(buf, 0)
				buf = append(buf, nodeBytes(f.Src, n)...)
			}
			buf = append(buf, 1)
			if len(buf) > 32<<10 {
				h.Write(buf)
				buf = buf[:0]
			}
		}
		inFunc = inFunc || kind == "function_definition"
		for c := range n.Children() {
			walk(c, inFunc, skipped)
		}
		if !skipped {
			buf = append(buf, 2)
		}
	}
	if f.Root != nil {
		walk(f.Root, false, false)
	}
	h.Write(buf)
	h.Sum(digest[:0])
	sc.buf = buf
	return digest, prints
}

// nodeBytes is n's text, as Node.Text gives it, without a copy.
func nodeBytes(src []byte, n *pyparse.Node) []byte {
	if n.Start < 0 || int(n.End) > len(src) || n.Start > n.End {
		return nil
	}
	return src[n.Start:n.End]
}

// FNV-1a, 64 bits (hash/fnv's, without an allocation per call printed).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv64a(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// bareStatement reports a statement that is a call (awaited or not), a string or `pass`,
// binding nothing: no lambda, assignment expression or yield inside it.
func bareStatement(n *pyparse.Node) bool {
	if n.Kind() == "pass_statement" {
		return true
	}
	if n.Kind() != "expression_statement" || n.ChildCount() != 1 {
		return false
	}
	e := n.Child(0)
	if e.Kind() == "await" && e.ChildCount() > 0 {
		e = e.Child(e.ChildCount() - 1)
	}
	if e.Kind() != "call" && e.Kind() != "string" && e.Kind() != "concatenated_string" {
		return false
	}
	binds := e.Find(func(m *pyparse.Node) bool {
		switch m.Kind() {
		case "lambda", "named_expression", "yield":
			return true
		}
		return false
	})
	return binds == nil
}

// keptFile is one parsed file as a kept graph holds it: its interface digest, the
// fingerprint of each of its calls (interfaceOf), and what each of its calls and with items
// contributed once the last round was done (the slots with a part; the others contributed
// nothing).
type keptFile struct {
	// encoded is the file's record in the kept graph: what encodeKept writes of the file
	// again when its calls are the kept ones.
	encoded            []byte
	digest             [32]byte
	calls, entered     int
	printBytes         []byte // the calls' prints (interfaceOf), 8 bytes each: callPrints
	callParts, enParts []keptPart
	// cross are the answers its calls read (crossRead), funcs the names of its functions
	// and fields the class fields it declares: what it gave the tables of function names
	// and fields.
	cross         []crossRead
	funcs, fields []string
}

// callPrints are the prints of the file's calls as kept (interfaceOf's, in f.Calls' order).
func (kf *keptFile) callPrints() []uint64 {
	prints := make([]uint64, len(kf.printBytes)/8)
	for j := range prints {
		prints[j] = binary.LittleEndian.Uint64(kf.printBytes[8*j:])
	}
	return prints
}

// keptPart is what one call contributed, by slot: targets by spelling, edges by callee.
type keptPart struct {
	slot    int
	targets [][2]string // spelling, library
	edges   []keptEdge
}

type keptEdge struct {
	file, fn int
	dispatch bool
}

// keptGraph is a decoded kept graph.
type keptGraph struct {
	paths   []string
	records map[string]keptRecord
	helpers map[helperID]bool
	// subclasses is the table of the project's subclasses (subclassTable).
	subclasses map[string]bool
}

// helperID names a function across runs: its file and its qualified name, with the number
// of functions of that name before it in the file (a function added before it keeps it).
type helperID struct {
	path, qual string
}

// encodeKept encodes what the graph's files contributed (memo) and its helpers, for the next
// run: the store is the pieces it returns, in order. A file in kept is written as its
// record there (the files parsed, and so their numbers, are those of the kept graph it was
// taken from). Files whose calls were not all resolved (a run cut short) are left out.
func encodeKept(g *CallGraph, memo *graphMemo, kept map[string][]byte) [][]byte {
	files := g.Project.res.Files
	index := make(map[string]int, len(files))
	for i, f := range files {
		index[f.Path] = i
	}
	// Each file on its own goroutine: the digest walks its whole tree. A file's part is its
	// record, or its head and its body.
	parts := make([][2][]byte, len(files))
	jobs := g.Project.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	scratch := make([]interfaceScratch, jobs)
	parallel.For(len(files), jobs, func(w, i int) {
		f := files[i]
		if record := kept[f.Path]; record != nil {
			parts[i][0] = record
			return
		}
		calls, entered := memo.calls[f], memo.entered[f]
		// A file's record is its path and its body, each after its length: the bodies are
		// decoded on every CPU.
		if len(calls) != len(f.Calls) || len(entered) != len(f.Entered) || !allDone(calls) || !allDone(entered) {
			parts[i][0] = appendString(appendString(nil, f.Path), "")
			return
		}
		var b []byte
		d, prints := scratch[w].of(f)
		b = slices.Grow(b, 32+2*binary.MaxVarintLen64+8*len(prints))
		b = append(b, d[:]...)
		b = binary.AppendUvarint(b, uint64(len(calls)))
		b = binary.AppendUvarint(b, uint64(len(entered)))
		for _, fp := range prints {
			b = binary.LittleEndian.AppendUint64(b, fp)
		}
		fnIndex := funcIndexes{}
		for _, slots := range [2][]resolvedCall{calls, entered} {
			for j := range slots {
				p := slots[j].part
				if p == nil {
					continue
				}
				b = binary.AppendUvarint(b, uint64(j)+1)
				b = binary.AppendUvarint(b, uint64(len(p.targets)))
				for _, t := range p.targets {
					b = appendString(appendString(b, t.Spelling), t.Library)
				}
				b = binary.AppendUvarint(b, uint64(len(p.edges)))
				for _, e := range p.edges {
					b = binary.AppendUvarint(b, uint64(index[e.CalleeFile.Path]))
					b = binary.AppendUvarint(b, uint64(fnIndex.of(e.CalleeFile, e.Callee)))
					b = append(b, boolByte(e.Dispatch))
				}
			}
			b = binary.AppendUvarint(b, 0) // the end of the calls', then the with items' slots
		}
		var cross []crossRead
		if fg := memo.files[f]; fg != nil {
			cross = slices.Collect(maps.Keys(fg.cross))
			if fg.untrusted {
				cross = append(cross, crossRead{kind: probeUnknown})
			}
		}
		slices.SortFunc(cross, func(a, b crossRead) int { return cmp.Or(cmp.Compare(a.kind, b.kind), strings.Compare(a.name, b.name)) })
		b = binary.AppendUvarint(b, uint64(len(cross)))
		for _, r := range cross {
			b = appendString(append(b, byte(r.kind)), r.name)
		}
		b = binary.AppendUvarint(b, uint64(len(f.Functions)))
		for _, fn := range f.Functions {
			b = appendString(b, fn.Name)
		}
		fields := declaredFields(f)
		b = binary.AppendUvarint(b, uint64(len(fields)))
		for _, name := range fields {
			b = appendString(b, name)
		}
		parts[i] = [2][]byte{binary.AppendUvarint(appendString(nil, f.Path), uint64(len(b))), b}
	})
	// The store is its pieces in order, never put together here: the cache writes them one
	// after another. Put together, it was a buffer of fresh memory the store's size (52 MB
	// over the 13 installed packages of bench/installed: 29-47 ms of an edited run on one
	// goroutine, most of it the first touch of that memory).
	head := binary.AppendUvarint([]byte(keptFormat), uint64(len(files)))
	pieces := make([][]byte, 0, 2*len(parts)+2)
	pieces = append(pieces, head)
	for _, p := range parts {
		for _, b := range p {
			if len(b) > 0 {
				pieces = append(pieces, b)
			}
		}
	}
	var tail []byte
	var helpers []helperID
	fnIndex := funcIndexes{}
	for fn := range g.Helpers {
		helpers = append(helpers, fnIndex.id(g.FileOf[fn], fn))
	}
	slices.SortFunc(helpers, func(a, b helperID) int {
		return cmp.Or(strings.Compare(a.path, b.path), strings.Compare(a.qual, b.qual))
	})
	tail = binary.AppendUvarint(tail, uint64(len(helpers)))
	for _, h := range helpers {
		tail = binary.AppendUvarint(tail, uint64(index[h.path]))
		tail = appendString(tail, h.qual)
	}
	table := subclassTable(g.Project)
	tail = binary.AppendUvarint(tail, uint64(len(table)))
	for _, e := range table {
		tail = appendString(tail, e)
	}
	return append(pieces, tail)
}

// subclassTable is the project's table of subclasses as a later run compares it: an entry
// "base\x00subclass" for each, a class named by its file's path and its qualified name.
func subclassTable(p *project) []string {
	pathOf := map[*pyparse.Class]string{}
	for _, f := range p.res.Files {
		for _, c := range f.Classes {
			pathOf[c] = f.Path
		}
	}
	var out []string
	for cls, subs := range p.subclasses {
		base := pathOf[cls] + "#" + cls.QualName
		for _, s := range subs {
			out = append(out, base+"\x00"+s.file.Path+"#"+s.cls.QualName)
		}
	}
	slices.Sort(out)
	return out
}

func allDone(slots []resolvedCall) bool {
	for i := range slots {
		if !slots[i].done {
			return false
		}
	}
	return true
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// funcIndexes number the functions of files, a file's on first use.
type funcIndexes map[*pyparse.File]map[*pyparse.Function]int

// of is fn's index in f.Functions.
func (x funcIndexes) of(f *pyparse.File, fn *pyparse.Function) int {
	m := x[f]
	if m == nil {
		m = make(map[*pyparse.Function]int, len(f.Functions))
		for i, fn := range f.Functions {
			m[fn] = i
		}
		x[f] = m
	}
	return m[fn]
}

// id names fn, a function of f, across runs.
func (x funcIndexes) id(f *pyparse.File, fn *pyparse.Function) helperID {
	n := 0
	for _, other := range f.Functions[:x.of(f, fn)] {
		if other.QualName == fn.QualName {
			n++
		}
	}
	return helperID{f.Path, fn.QualName + "#" + strconv.Itoa(n)}
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errKept = errors.New("not a kept graph of this format")

// decodeKept reads a kept graph's files and helpers (the engine checks it is the graph its
// entry names); each file's body is decoded when asked for (keptGraph.file). Anything but
// a whole graph of this format is an error.
func decodeKept(data []byte) (*keptGraph, error) {
	if len(data) < len(keptFormat) || string(data[:len(keptFormat)]) != keptFormat {
		return nil, errKept
	}
	d := &decoder{b: data[len(keptFormat):]}
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) {
		return nil, errKept
	}
	kg := &keptGraph{paths: make([]string, n), records: make(map[string]keptRecord, n), helpers: map[helperID]bool{}}
	for i := range kg.paths {
		start := d.b
		kg.paths[i] = d.string()
		body := d.bytes(d.uint())
		if d.err != nil {
			return nil, errKept
		}
		if len(body) > 0 {
			kg.records[kg.paths[i]] = keptRecord{whole: start[:len(start)-len(d.b)], body: body}
		}
	}
	for range d.uint() {
		file := d.uint()
		qual := d.string()
		if d.err != nil || file >= n {
			return nil, errKept
		}
		kg.helpers[helperID{kg.paths[file], qual}] = true
	}
	kg.subclasses = map[string]bool{}
	for range d.uint() {
		e := d.string()
		if d.err != nil {
			return nil, errKept
		}
		kg.subclasses[e] = true
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errKept
	}
	return kg, nil
}

// keptRecord is one file's record in a kept graph: whole as written, and its body.
type keptRecord struct {
	whole, body []byte
}

// file decodes the body of path's record, nil when the graph keeps none for it.
func (kg *keptGraph) file(path string) (*keptFile, error) {
	r, ok := kg.records[path]
	if !ok {
		return nil, nil
	}
	d := &decoder{b: r.body}
	kf := &keptFile{encoded: r.whole}
	copy(kf.digest[:], d.bytes(32))
	nc, ne := d.uint(), d.uint()
	if d.err != nil || nc > uint64(len(d.b))/8 || ne > uint64(len(d.b)) {
		return nil, errKept
	}
	kf.calls, kf.entered = int(nc), int(ne)
	// Read when a changed file's calls are lined up with them (callPrints), which an
	// unchanged file's never are: an edited run reads every file's record.
	kf.printBytes = d.bytes(8 * nc)
	for which, limit := range [2]int{kf.calls, kf.entered} {
		for {
			j := d.uint()
			if j == 0 || d.err != nil {
				break
			}
			if j > uint64(limit) {
				return nil, errKept
			}
			kp := keptPart{slot: int(j - 1)}
			for range d.uint() {
				if d.err != nil {
					return nil, errKept
				}
				kp.targets = append(kp.targets, [2]string{d.string(), d.string()})
			}
			for range d.uint() {
				if d.err != nil {
					return nil, errKept
				}
				file, fn := d.uint(), d.uint()
				if file >= uint64(len(kg.paths)) {
					return nil, errKept
				}
				kp.edges = append(kp.edges, keptEdge{int(file), int(fn), d.byte() == 1})
			}
			if which == 0 {
				kf.callParts = append(kf.callParts, kp)
			} else {
				kf.enParts = append(kf.enParts, kp)
			}
		}
	}
	// Each answer takes two bytes at least, each name one: a count the rest of the record
	// cannot hold is garbage; the others size their lists (an edited run decodes every
	// unchanged file's record).
	n := d.uint()
	if n > uint64(len(d.b))/2 {
		return nil, errKept
	}
	kf.cross = make([]crossRead, 0, n)
	for range n {
		kind := probeKind(d.byte())
		kf.cross = append(kf.cross, crossRead{kind, d.string()})
		if d.err != nil || kind > probeImport {
			return nil, errKept
		}
	}
	for _, list := range []*[]string{&kf.funcs, &kf.fields} {
		n := d.uint()
		if n > uint64(len(d.b)) {
			return nil, errKept
		}
		*list = make([]string, 0, n)
		for range n {
			*list = append(*list, d.string())
			if d.err != nil {
				return nil, errKept
			}
		}
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errKept
	}
	return kf, nil
}

// slots are the kept parts of f's calls as its memo slots (callMemo), the part of the kept
// file's call slot i given to f's call at(i) (-1: none); ok is false when an edge names a
// function the run's files do not have.
func (kg *keptGraph) slots(f *pyparse.File, kf *keptFile, res *pyparse.Result, at func(slot int) int) (calls, entered []resolvedCall, ok bool) {
	calls, entered = make([]resolvedCall, len(f.Calls)), make([]resolvedCall, len(f.Entered))
	for which, slots := range [2][]resolvedCall{calls, entered} {
		list := [2][]*pyparse.Call{f.Calls, f.Entered}[which]
		for i := range slots {
			slots[i].done = true
		}
		for _, kp := range [2][]keptPart{kf.callParts, kf.enParts}[which] {
			i := kp.slot
			if which == 0 {
				i = at(i)
			}
			if i < 0 {
				continue
			}
			if i >= len(list) {
				return nil, nil, false
			}
			c, p := list[i], &callPart{}
			for _, t := range kp.targets {
				p.targets = append(p.targets, &Target{File: f, Call: c, Spelling: t[0], Library: t[1]})
			}
			for _, e := range kp.edges {
				callee := res.ByPath[kg.paths[e.file]]
				if callee == nil || e.fn >= len(callee.Functions) {
					return nil, nil, false
				}
				p.edges = append(p.edges, &Edge{File: f, Call: c, Callee: callee.Functions[e.fn], CalleeFile: callee, Dispatch: e.dispatch})
			}
			slots[i].part = p
		}
	}
	return calls, entered, true
}

// alignCalls maps each kept call (by its fingerprint in old) to the call of the same
// fingerprint in now, in order: the calls before and after the edit line up one to one, and
// in between each kept call takes the next unmatched call of its print, if any (-1: none).
func alignCalls(old, now []uint64) []int {
	at := make([]int, len(old))
	for i := range at {
		at[i] = -1
	}
	pre := 0
	for pre < len(old) && pre < len(now) && old[pre] == now[pre] {
		at[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(now)-pre && old[len(old)-1-suf] == now[len(now)-1-suf] {
		at[len(old)-1-suf] = len(now) - 1 - suf
		suf++
	}
	byPrint := map[uint64][]int{}
	for j := pre; j < len(now)-suf; j++ {
		byPrint[now[j]] = append(byPrint[now[j]], j)
	}
	last := pre - 1
	for i := pre; i < len(old)-suf; i++ {
		js := byPrint[old[i]]
		k, _ := slices.BinarySearch(js, last+1)
		if k < len(js) {
			at[i], last = js[k], js[k]
		}
	}
	return at
}

// decoder reads a kept graph; the first error sticks, and every read after it gives zeros.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errKept
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errKept
		return make([]byte, n&0xffff)
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) byte() byte {
	if b := d.bytes(1); len(b) == 1 {
		return b[0]
	}
	return 0
}

// string reads a string, which is the store's own bytes (driver.Kept.Graph stays as it is
// for as long as the process runs): an edited run reads every unchanged file's record, and
// copying their names was a tenth of what it allocated (diffusers).
func (d *decoder) string() string {
	b := d.bytes(d.uint())
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// keptRun builds the call graph from an earlier run's kept graph (see the top of this
// file): the last run's files parsed at once, the unchanged files' calls taken as they
// were. miss says why not, when something shows that the run would parse other files or
// that the kept graph does not apply: the caller then runs the rounds in full, on a fresh
// parse.
func keptRun(ctx context.Context, pass *driver.Pass, k *driver.Kept, res *pyparse.Result, first []string, extra map[string]bool) (g *CallGraph, miss string, err error) {
	defer trace.StartRegion(ctx, "kept graph").End()
	kg, err := decodeKept(k.Graph)
	if err != nil {
		return nil, "its store does not decode", nil
	}
	// A changed file that mentions no needle now is parsed by the rounds only when a call
	// wants it (a module a call goes through): it is left unparsed, and parsed again below
	// if a call wants it (dropped).
	mentions := pyparse.Matcher(k.Needles)
	dropped := map[string]bool{}
	for _, path := range k.Changed {
		if src, err := pass.ReadFile(path); err == nil && !mentions(src, nil) {
			dropped[path] = true
		}
	}
	parse := k.Parsed
	if len(dropped) > 0 {
		parse = slices.DeleteFunc(slices.Clone(k.Parsed), func(p string) bool { return dropped[p] })
	}
	// The trees read back and their models are what the run keeps: no garbage to collect
	// (unsloth: 7-10% of an edited run, the collector marking and its write barriers). Once
	// they are read, the collector stays off for the rest of the analysis (HoldGC), which
	// allocates little more, unless the kept graph does not hold.
	var release func()
	err = func() error {
		if pause := pass.Settings.PauseGC; pause != nil {
			defer pause()()
		}
		err := res.ParseFiles(ctx, parse)
		if hold := pass.Settings.HoldGC; hold != nil && err == nil {
			release = hold()
		}
		return err
	}()
	if release != nil {
		defer func() {
			if g == nil { // the full analysis that runs instead collects as it goes
				release()
			}
		}()
	}
	if err != nil {
		return nil, "", err
	}
	if res.Parsed != len(parse) || len(res.Failures) > 0 {
		return nil, "a file it parsed does not parse now", nil
	}
	changed := make(map[string]bool, len(k.Changed))
	for _, path := range k.Changed {
		if res.ByPath[path] == nil && !dropped[path] {
			return nil, path + " was not parsed", nil
		}
		changed[path] = true
	}
	proj := newProject(pass.Settings.Root, pass.Files, res)
	proj.jobs = pass.Settings.Jobs
	// The kept files' calls look nothing up this run: what their lookups asked for still
	// matters to the next.
	proj.looked.add(k.Lookups)
	// The tables of names and classes first: a changed interface is told by what it
	// changed in them.
	proj.reindex()
	memo := newGraphMemo()
	memo.jobs = pass.Settings.Jobs
	// The changed files first. One whose interface is the kept one has its calls lined up
	// with the kept ones; one whose interface changed has them all found again, and so do
	// the files whose calls read something it changed (delta): the file itself, a
	// function name or class field it defined or defines now, the subclasses of a class.
	delta := map[crossRead]bool{}
	aligned := map[string][]int{}
	keptOf := map[string]*keptFile{}
	for _, path := range k.Changed {
		f := res.ByPath[path]
		kf, err := kg.file(path)
		if err != nil {
			return nil, "its store does not decode", nil
		}
		if kf == nil {
			return nil, path + " is not in its graph store", nil
		}
		keptOf[path] = kf
		// What it gives the tables now: nothing while it is left unparsed.
		var names, fields []string
		if f != nil {
			digest, prints := interfaceOf(f)
			if digest == kf.digest {
				// A with statement is in the interface: the with items are the kept ones.
				aligned[path] = alignCalls(kf.callPrints(), prints)
				continue
			}
			for _, fn := range f.Functions {
				names = append(names, fn.Name)
			}
			fields = declaredFields(f)
		}
		delta[crossRead{probeParsed, path}] = true
		for _, n := range symmetricDifference(kf.funcs, names) {
			delta[crossRead{probeFuncName, n}] = true
		}
		for _, n := range symmetricDifference(kf.fields, fields) {
			delta[crossRead{probeField, n}] = true
		}
	}
	if len(delta) > 0 {
		for _, e := range symmetricDifference(slices.Collect(maps.Keys(kg.subclasses)), subclassTable(proj)) {
			base, _, _ := strings.Cut(e, "\x00")
			_, qual, _ := strings.Cut(base, "#")
			delta[crossRead{probeSubclasses, qual}] = true
		}
	}
	// Each file's calls from its record, on every CPU; misses[i] says why file i's do not
	// hold, again[i] that they are found again.
	type keptCalls struct {
		calls, entered []resolvedCall
		encoded        []byte
		cross          []crossRead
	}
	taken := make([]keptCalls, len(res.Files))
	misses := make([]string, len(res.Files))
	again := make([]bool, len(res.Files))
	parallel.For(len(res.Files), pass.Settings.Jobs, func(_, i int) {
		f := res.Files[i]
		if changed[f.Path] && aligned[f.Path] == nil {
			again[i] = true
			return
		}
		kf := keptOf[f.Path]
		if kf == nil {
			var err error
			if kf, err = kg.file(f.Path); err != nil {
				misses[i] = "its store does not decode"
				return
			}
		}
		if kf == nil || kf.entered != len(f.Entered) || !changed[f.Path] && kf.calls != len(f.Calls) {
			misses[i] = f.Path + " is not in its graph store as it is now"
			return
		}
		// A call into a file whose interface changed that its reads did not show (its
		// functions may be others now) is found again rather than trusted.
		if len(delta) > 0 && (!changed[f.Path] && readsAny(kf.cross, delta) || kg.callsInto(kf, delta)) {
			again[i] = true
			return
		}
		at := func(slot int) int { return slot }
		var mapped []bool
		if align := aligned[f.Path]; align != nil {
			// The calls that line up with the kept ones are theirs; the others are found.
			at = func(slot int) int { return align[slot] }
			mapped = make([]bool, len(f.Calls))
			for _, j := range align {
				if j >= 0 {
					mapped[j] = true
				}
			}
		}
		calls, entered, ok := kg.slots(f, kf, res, at)
		if !ok {
			misses[i] = f.Path + " calls a function its graph store does not name"
			return
		}
		for j := range mapped {
			if !mapped[j] {
				calls[j] = resolvedCall{} // found again
			}
		}
		taken[i] = keptCalls{calls, entered, kf.encoded, kf.cross}
	})
	keptFiles := map[string][]byte{}
	readsOf := map[*pyparse.File][]crossRead{} // what the kept calls read
	keptAgain := 0                             // unchanged files whose calls are found again
	for i, f := range res.Files {
		if misses[i] != "" {
			return nil, misses[i], nil
		}
		if again[i] {
			if !changed[f.Path] {
				keptAgain++
			}
			continue
		}
		memo.calls[f], memo.entered[f] = taken[i].calls, taken[i].entered
		readsOf[f] = taken[i].cross
		if !changed[f.Path] {
			keptFiles[f.Path] = taken[i].encoded
		}
	}
	g = buildGraph(proj, res, extra, memo)
	// Rounds of their own for the files left unparsed that a call wants (as the rounds
	// parse a module a binding leads to): the calls that read them are found again.
	lastParsed := make(map[string]bool, len(k.Parsed))
	for _, p := range k.Parsed {
		lastParsed[p] = true
	}
	for {
		var more []string
		for file := range proj.want {
			if res.ByPath[file] == nil && lastParsed[file] {
				more = append(more, file)
			}
		}
		if len(more) == 0 {
			break
		}
		slices.Sort(more)
		before := res.Parsed
		if err := res.ParseFiles(ctx, more); err != nil {
			return nil, "", err
		}
		if res.Parsed != before+len(more) || len(res.Failures) > 0 {
			return nil, "a file it parsed does not parse now", nil
		}
		proj.reindex()
		g = buildGraph(proj, res, extra, memo)
	}
	// What the kept calls read, for the records written of them: those of a lined-up file,
	// and, when a file the last run parsed is not parsed now, every file's (the files are
	// numbered otherwise, so no record is written as it was read).
	renumbered := res.Parsed != len(k.Parsed)
	for f, reads := range readsOf {
		if fg := memo.files[f]; aligned[f.Path] != nil || renumbered {
			for _, r := range reads {
				fg.cross[r] = struct{}{}
			}
		}
	}
	records := keptFiles
	if renumbered {
		records = nil
	}
	// The same files parsed: the same needles, and nothing more wanted.
	needles := map[string]bool{}
	for _, n := range first {
		needles[n] = true
	}
	proj.graphNeedles(g, func(n string) { needles[n] = true })
	fraction := fractionNeedles(g)
	for _, n := range fraction {
		needles[n] = true
	}
	last := map[string]bool{}
	for _, n := range k.Needles {
		last[n] = true
	}
	if !sameHelpers(g, kg.helpers) {
		return nil, "the functions that empty the cache changed", nil
	}
	if !maps.Equal(needles, last) {
		return nil, "the names searched for changed", nil
	}
	// A module wanted, or a file setting a memory fraction, that the last run did not parse
	// (a module out of scope is wanted in vain, as the rounds found).
	wanted := slices.Collect(maps.Keys(proj.want))
	before := res.Parsed
	if err := res.ParseMatchingAnd(ctx, fraction, wanted); err != nil {
		return nil, "", err
	}
	if res.Parsed != before {
		return nil, "a file it did not parse is wanted now", nil
	}
	g.Rounds, g.Needles = k.Rounds, k.Needles
	g.keptFiles, g.keptAgain, g.keptAsked = len(keptFiles), keptAgain, keptQuestions(k.ImportsAsked, readsOf)
	if pass.Settings.Trees != nil {
		region := trace.StartRegion(ctx, "graph store")
		g.kept = encodeKept(g, memo, records)
		region.End()
	}
	proj.graphDone()
	return g, "", nil
}

// keptQuestions are the questions about unparsed modules' imports that the kept calls asked
// (reads: the records of the files whose calls were kept, whole or lined up), with the
// answers the last run got (asked). The last run's other questions were asked by calls
// found again this run, which asked them again if they still matter: a question kept that
// no call asks any more is one a later edit of the module would fail the cache on for
// nothing.
func keptQuestions(asked map[string]map[string]bool, reads map[*pyparse.File][]crossRead) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, reads := range reads {
		for _, r := range reads {
			if r.kind != probeImport {
				continue
			}
			path, name, _ := strings.Cut(r.name, "\x00")
			if yes, ok := asked[path][name]; ok {
				if out[path] == nil {
					out[path] = map[string]bool{}
				}
				out[path][name] = yes
			}
		}
	}
	return out
}

// symmetricDifference is the strings in one of a and b and not in the other, sorted.
func symmetricDifference(a, b []string) []string {
	in := func(list []string) map[string]bool {
		m := make(map[string]bool, len(list))
		for _, s := range list {
			m[s] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out []string
	for s := range ina {
		if !inb[s] {
			out = append(out, s)
		}
	}
	for s := range inb {
		if !ina[s] {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// callsInto reports whether one of kf's kept calls has an edge into a file that delta
// names.
func (kg *keptGraph) callsInto(kf *keptFile, delta map[crossRead]bool) bool {
	for _, parts := range [2][]keptPart{kf.callParts, kf.enParts} {
		for _, kp := range parts {
			for _, e := range kp.edges {
				if delta[crossRead{probeParsed, kg.paths[e.file]}] {
					return true
				}
			}
		}
	}
	return false
}

// readsAny reports whether reads holds an answer of delta, or one computed while nothing
// recorded (probeUnknown), to which any change may matter.
func readsAny(reads []crossRead, delta map[crossRead]bool) bool {
	for _, r := range reads {
		if r.kind == probeUnknown || delta[r] {
			return true
		}
	}
	return false
}

// sameHelpers reports whether g's helpers are the kept ones.
func sameHelpers(g *CallGraph, kept map[helperID]bool) bool {
	if len(g.Helpers) != len(kept) {
		return false
	}
	fnIndex := funcIndexes{}
	for fn := range g.Helpers {
		if !kept[fnIndex.id(g.FileOf[fn], fn)] {
			return false
		}
	}
	return true
}
