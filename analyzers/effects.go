package analyzers

import "github.com/cachelint/cachelint/pyparse"

// Classification asks effect questions of functions and loops (does the function hold a step
// loop, run a step, load a model, serve only requests; what kind of loop is this) and
// memoizes the answers (ARCHITECTURE: effects per function). The questions recurse through
// callees and callers, which call each other in cycles, so an answer is computed while others
// are still open: meeting an open question again answers it provisionally (no step loop, no
// load) to end the cycle. An answer that met such a cut depends on where the outermost
// question started, and some questions are followed only so many calls deep, so their
// answers depend on the depth they are asked at. Kept per function for the whole run, either
// made a call site's classification depend on which site was classified first (a loop that
// reaches a pipeline two calls deep was a step loop or an outer loop according to whether
// another loop had asked the same function's question three calls deep before it). So an
// answer is kept for the run only when it met no cut, one that did only until the outermost
// question is answered (each question is still answered once per outermost question: a
// cycle is not walked again for each path into it), and a depth-bounded question is kept per
// depth (depthKey). Every answer is then the same whatever was asked before it.

// effectMemo holds one kind of effect answer.
type effectMemo[K comparable, V any] struct {
	done    map[K]V                // answers that met no cut
	partial map[K]partialAnswer[V] // answers that did, for the outermost question that made them
	open    map[K]V                // questions being answered, with their provisional answer
}

type partialAnswer[V any] struct {
	v     V
	outer uint32
}

// effects is what the memos of one classifier share: how many cuts were met, how many
// questions are open, and which outermost question is being answered.
type effects struct {
	cuts  int
	open  int
	outer uint32
}

// depthKey asks a question of a function that is followed only so many calls deep: the
// answer depends on how deep it is asked, and is kept for that depth.
type depthKey struct {
	fn    *pyparse.Function
	depth int
}

// remember answers k from m, or computes it. While compute runs, asking k again gets
// provisional (and counts as a cut).
func remember[K comparable, V any](e *effects, m *effectMemo[K, V], k K, provisional V, compute func() V) V {
	if v, ok := m.done[k]; ok {
		return v
	}
	if p, ok := m.partial[k]; ok && p.outer == e.outer {
		return p.v
	}
	if v, ok := m.open[k]; ok {
		e.cuts++
		return v
	}
	if m.open == nil {
		m.done, m.partial, m.open = map[K]V{}, map[K]partialAnswer[V]{}, map[K]V{}
	}
	m.open[k] = provisional
	e.open++
	before := e.cuts
	// Closed even when compute panics (a bug, reported for its call by guard): the questions
	// asked after it must not find this one open.
	defer func() {
		delete(m.open, k)
		if e.open--; e.open == 0 {
			e.outer++
		}
	}()
	v := compute()
	if e.cuts == before {
		m.done[k] = v
	} else {
		m.partial[k] = partialAnswer[V]{v, e.outer}
	}
	return v
}
