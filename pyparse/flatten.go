package pyparse

/*
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "arena.h"

// Mirrors of tree-sitter 0.25's public structs (tree_sitter/api.h); the functions below are
// compiled into the binary by go-tree-sitter's cgo package. TestFlattenMatchesCursorWalk and
// TestParseMatchesBinding guard the layouts against a version bump.
typedef struct { uint32_t context[4]; const void *id; const void *tree; } cl_node;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } cl_cursor;

cl_cursor ts_tree_cursor_new(cl_node);
void ts_tree_cursor_delete(cl_cursor *);
bool ts_tree_cursor_goto_first_child(cl_cursor *);
bool ts_tree_cursor_goto_next_sibling(cl_cursor *);
bool ts_tree_cursor_goto_parent(cl_cursor *);
cl_node ts_tree_cursor_current_node(const cl_cursor *);
uint16_t ts_tree_cursor_current_field_id(const cl_cursor *);
uint16_t ts_node_symbol(cl_node);
uint32_t ts_node_start_byte(cl_node);
uint32_t ts_node_end_byte(cl_node);
bool ts_node_is_named(cl_node);
bool ts_node_is_missing(cl_node);
bool ts_node_has_error(cl_node);
uint32_t ts_node_descendant_count(cl_node);

typedef struct { uint32_t row, column; } cl_point;
typedef struct {
	void *payload;
	const char *(*read)(void *payload, uint32_t byte_index, cl_point position, uint32_t *bytes_read);
	int encoding; // TSInputEncodingUTF8 is 0
	void *decode;
} cl_input;
typedef struct { void *payload; uint32_t current_byte_offset; bool has_error; } cl_parse_state;
typedef struct { void *payload; bool (*progress_callback)(cl_parse_state *state); } cl_parse_options;
void *ts_parser_new(void);
bool ts_parser_set_language(void *parser, const void *language);
void ts_parser_delete(void *parser);
void *ts_parser_parse_with_options(void *parser, const void *old_tree, cl_input input, cl_parse_options options);
cl_node ts_tree_root_node(const void *tree);

// cl_text is the text being parsed: tree-sitter reads it in place. (go-tree-sitter's
// ParseWithOptions calls back into Go for each read, which copies the rest of the file
// twice, and for each progress check.)
typedef struct { const char *text; uint32_t len; } cl_text;

static const char *cl_read(void *payload, uint32_t off, cl_point p, uint32_t *n) {
	const cl_text *t = payload;
	if (off >= t->len) { *n = 0; return ""; }
	*n = t->len - off;
	return t->text + off;
}

// cl_budget ends a parse at its deadline or when *cancel is set (the run's context is done).
typedef struct { struct timespec deadline; const volatile int32_t *cancel; } cl_budget;

static bool cl_progress(cl_parse_state *s) {
	const cl_budget *b = s->payload;
	if (*b->cancel) return true;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > b->deadline.tv_sec || (now.tv_sec == b->deadline.tv_sec && now.tv_nsec >= b->deadline.tv_nsec);
}

// cachelint_parse parses text with parser within budget_ns, or until *cancel is set; it
// returns the tree (NULL when cut short), whose root is in *root.
static void *cachelint_parse(cl_arena *arena, const void *language, const char *text, uint32_t len, int64_t budget_ns, const volatile int32_t *cancel, cl_node *root) {
	cl_text t = {len ? text : "", len};
	cl_budget b;
	clock_gettime(CLOCK_MONOTONIC, &b.deadline);
	b.deadline.tv_sec += budget_ns / 1000000000;
	b.deadline.tv_nsec += budget_ns % 1000000000;
	if (b.deadline.tv_nsec >= 1000000000) { b.deadline.tv_sec++; b.deadline.tv_nsec -= 1000000000; }
	b.cancel = cancel;
	cl_input in = {&t, cl_read, 0, NULL};
	cl_parse_options o = {&b, cl_progress};
	// Everything the parse allocates, the parser included, is in the arena (arena.c): the
	// parser is deleted here, the tree when the arena is reset.
	cl_arena_enter(arena);
	void *parser = ts_parser_new();
	void *tree = NULL;
	if (ts_parser_set_language(parser, language)) {
		tree = ts_parser_parse_with_options(parser, NULL, in, o);
	}
	ts_parser_delete(parser);
	cl_arena_leave();
	if (tree) *root = ts_tree_root_node(tree);
	return tree;
}

typedef struct {
	uintptr_t id;
	uint32_t start, end;
	int32_t parent;
	uint16_t kind, field;
	uint8_t named, missing;
} cl_flat;

// cachelint_flatten writes the tree under root in pre-order into out (at most cap entries)
// and returns how many it wrote: one cgo call per file instead of several per node.
static size_t cachelint_flatten(const cl_node *root, cl_flat *out, size_t cap) {
	cl_cursor c = ts_tree_cursor_new(*root);
	size_t n = 0;
	int32_t parent = -1;
	for (;;) {
		if (n >= cap) break;
		cl_node node = ts_tree_cursor_current_node(&c);
		cl_flat *f = &out[n];
		f->id = (uintptr_t)node.id;
		f->start = ts_node_start_byte(node);
		f->end = ts_node_end_byte(node);
		f->parent = parent;
		f->kind = ts_node_symbol(node);
		f->field = ts_tree_cursor_current_field_id(&c);
		f->named = ts_node_is_named(node);
		f->missing = ts_node_is_missing(node);
		int32_t self = (int32_t)n++;
		if (ts_tree_cursor_goto_first_child(&c)) {
			parent = self;
			continue;
		}
		for (;;) {
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			if (!ts_tree_cursor_goto_parent(&c)) { ts_tree_cursor_delete(&c); return n; }
			parent = out[parent].parent;
		}
	}
	ts_tree_cursor_delete(&c);
	return n;
}
*/
import "C"

import (
	"sync/atomic"
	"time"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// scratch holds what flatten needs only while it copies one tree: a parser keeps it from
// file to file, so a run does not allocate and fault in about 40 bytes per tree-sitter node
// of every file it parses (a 1 MB file has some 250,000) only to drop them.
type scratch struct {
	flat    []C.cl_flat
	lines   []int   // the file's line starts (newTree copies them into the tree's table)
	index   []int32 // flat index -> pre-order index among the nodes kept, -1 for dropped punctuation
	parents []int32 // kept node -> its parent's pre-order index (arrange)
	kids    []int32 // kept node -> number of children kept
	pos     []int32 // kept node -> its element in the tree's array
	// buildModel's walk and what it gathers before the file keeps a copy of each.
	frames           []modelFrame
	calls            []Call
	imports          []Import
	assigns, excepts []*Node
}

// grow returns buf with length n, reusing its array when it is large enough.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// arena is where a parser's parses allocate (arena.c), one file at a time.
type arena struct{ p *C.cl_arena }

func newArena() arena { return arena{C.cl_arena_new()} }

func (a arena) free() { C.cl_arena_delete(a.p) }

// bytes is how much memory the arena holds.
func (a arena) bytes() int { return int(C.cl_arena_bytes(a.p)) }

// language is tree-sitter-python's TSLanguage (C memory), set by loadLanguage.
var language unsafe.Pointer

// cancelFlag is a flag in C memory that ends a parse when set (cl_budget.cancel).
type cancelFlag struct{ p *C.int32_t }

func newCancelFlag() cancelFlag {
	c := cancelFlag{(*C.int32_t)(C.malloc(4))}
	c.store(0)
	return c
}

func (c cancelFlag) store(v int32) { atomic.StoreInt32((*int32)(unsafe.Pointer(c.p)), v) }

func (c cancelFlag) free() { C.free(unsafe.Pointer(c.p)) }

// parseTree parses text in arena, reading it in place, and copies the tree (nil when the
// budget ran out or cancel was set first). The arena is reset afterwards: the tree is gone.
func parseTree(a arena, text []byte, budget time.Duration, cancel cancelFlag, f *File, sc *scratch) *Node {
	var root C.cl_node
	defer C.cl_arena_reset(a.p)
	if !parseInto(a, text, budget, cancel, &root) {
		return nil
	}
	return flatten(&root, f, sc)
}

// parseOnly parses text as parseTree does and drops the tree unread: the parser's own cost,
// without the tree's copy into Go or the model (BenchmarkParseFloor).
func parseOnly(a arena, text []byte, budget time.Duration, cancel cancelFlag) bool {
	var root C.cl_node
	defer C.cl_arena_reset(a.p)
	return parseInto(a, text, budget, cancel, &root)
}

// parseInto parses text into a's arena, the tree's root into *root; false when the parse
// was cut short. The tree lives until a is reset.
func parseInto(a arena, text []byte, budget time.Duration, cancel cancelFlag, root *C.cl_node) bool {
	var ptr *C.char
	if len(text) > 0 {
		ptr = (*C.char)(unsafe.Pointer(&text[0]))
	}
	return C.cachelint_parse(a.p, language, ptr, C.uint32_t(len(text)), C.int64_t(budget), cancel.p, root) != nil //nolint:gocritic // cgo's own pointer checks, not this line, compare a value with itself
}

// flattenNode is flatten of a tree the official binding parsed (tests).
func flattenNode(root *sitter.Node, f *File, sc *scratch) *Node {
	// sitter.Node's only field is the C TSNode, so its address is the TSNode's.
	return flatten((*C.cl_node)(unsafe.Pointer(root)), f, sc)
}

// flatten copies the tree into Go Nodes through one C call that walks it with a cursor.
func flatten(root *C.cl_node, f *File, sc *scratch) *Node {
	count := int(C.ts_node_descendant_count(*root)) + 1
	sc.flat = grow(sc.flat, count)
	flat := sc.flat
	n := int(C.cachelint_flatten(root, &flat[0], C.size_t(count)))
	sc.lines = appendLineStarts(sc.lines[:0], f.Src)
	lines := sc.lines
	sc.index = grow(sc.index, n)
	index := sc.index
	checkErrors := bool(C.ts_node_has_error(*root))
	// Punctuation, left out, is some 30% of a tree's nodes (unsloth: 2.9 M of which 2.1 M
	// kept); it is always a leaf, so every kept node's parent is kept.
	sc.parents, sc.kids = grow(sc.parents, n), grow(sc.kids, n)
	parents, kids := sc.parents, sc.kids
	kept := int32(0)
	for i := 0; i < n; i++ {
		if isPunct(uint16(flat[i].kind)) {
			index[i] = -1
			continue
		}
		index[i], kids[kept] = kept, 0
		if p := int(flat[i].parent); p >= 0 {
			parents[kept] = index[p]
			kids[index[p]]++
		}
		kept++
	}
	sc.pos = grow(sc.pos, int(kept))
	pos := sc.pos
	nodes := newTree(parents[:kept], kids[:kept], pos, lines)
	for i := 0; i < n; i++ {
		e := &flat[i]
		kind := uint16(e.kind)
		if index[i] < 0 {
			if checkErrors && e.missing != 0 {
				row, _ := position(lines, int(e.start))
				f.Errors = append(f.Errors, SyntaxError{Line: row + 1, Col: Column(f.Src, int(e.start)), Msg: "missing " + symbolName(kind)})
			}
			continue
		}
		nd := &nodes[pos[index[i]]]
		field := uint8(0)
		if fid := int(e.field); fid < len(fieldNames) {
			field = uint8(fid)
		}
		nd.meta = packMeta(kind, field, e.named != 0)
		nd.Start, nd.End = int32(e.start), int32(e.end)
		if checkErrors && (nd.Kind() == "ERROR" || e.missing != 0) {
			msg := "invalid syntax"
			if nd.Kind() != "ERROR" {
				msg = "missing " + nd.Kind()
			}
			row, _ := position(lines, int(nd.Start))
			f.Errors = append(f.Errors, SyntaxError{Line: row + 1, Col: Column(f.Src, int(nd.Start)), Msg: msg})
		}
	}
	return &nodes[0]
}
