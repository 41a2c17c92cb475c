package analyzers

import (
	"maps"
	"slices"

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

// answers are the project's answers to every probe as one round gives them: the tables
// reindex builds, which a later round replaces and never changes in place.
type answers struct {
	parsed     map[string]*pyparse.File
	funcNames  map[string]bool
	fields     map[string]bool
	subclasses map[*pyparse.Class][]classRef
}

func (p *project) answers() answers {
	return answers{parsed: maps.Clone(p.res.ByPath), funcNames: p.funcNames, fields: p.classFields(), subclasses: p.subclasses}
}

// changedSince are the probes whose answer is now other than last's. Files are only ever
// added to a parse, so function names and class fields are only ever added, by the files
// parsed since: those are all that is read for them.
func (p *project) changedSince(now, last answers) map[probeID]bool {
	changed := map[probeID]bool{}
	for path, f := range now.parsed {
		if last.parsed[path] == f {
			continue
		}
		changed[probeID{kind: probeParsed, name: path}] = true
		for _, fn := range f.Functions {
			if !last.funcNames[fn.Name] {
				changed[probeID{kind: probeFuncName, name: fn.Name}] = true
			}
		}
		for _, name := range p.fieldsOf(f) {
			if !last.fields[name] {
				changed[probeID{kind: probeField, name: name}] = true
			}
		}
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
)

// note records a probe while recording.
func (p *project) note(pr probe) {
	if p.recording {
		p.probes = append(p.probes, pr)
	}
}

// parsedFile is the parsed file of a project module's path, nil when it is not parsed.
func (p *project) parsedFile(file string) *pyparse.File {
	t := p.res.ByPath[file]
	p.note(probe{kind: probeParsed, name: file, found: t != nil})
	return t
}

// isFuncName reports whether a parsed file defines a function called name.
func (p *project) isFuncName(name string) bool {
	ok := p.funcNames[name]
	p.note(probe{kind: probeFuncName, name: name, found: ok})
	return ok
}

// isField reports whether a parsed class body declares a field called name (classFields).
func (p *project) isField(name string) bool {
	ok := p.classFields()[name]
	p.note(probe{kind: probeField, name: name, found: ok})
	return ok
}

// subclassesOf are the project classes that name cls as a base.
func (p *project) subclassesOf(cls *pyparse.Class) []classRef {
	subs := p.subclasses[cls]
	if p.recording {
		p.probes = append(p.probes, probe{kind: probeSubclasses, cls: cls, subs: slices.Clone(subs)})
	}
	return subs
}

// holds reports whether every probe answers now as it did when recorded.
func (p *project) holds(probes []probe) bool {
	for _, pr := range probes {
		switch pr.kind {
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
	}
}

// computing starts computing a cached answer; calling what it returns keeps what the
// computation read with the answer.
func (p *project) computing(key probeKey) func() {
	start, recording := len(p.probes), p.recording
	return func() {
		if recording && p.recording {
			p.cacheProbes[key] = slices.Clone(p.probes[start:])
		} else {
			p.cacheProbes[key] = []probe{{kind: probeUnknown}}
		}
	}
}

// record resolves one call with the probes recorded, and returns them.
func (p *project) record(resolve func()) []probe {
	p.recording, p.probes = true, p.probes[:0]
	resolve()
	p.recording = false
	return slices.Clone(p.probes)
}
