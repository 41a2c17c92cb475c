package pyparse

/*
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

// Mirrors of tree-sitter 0.25's public structs (tree_sitter/api.h); the functions below are
// compiled into the binary by go-tree-sitter's cgo package. TestFlattenMatchesCursorWalk
// guards the layout against a version bump.
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
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// scratch holds what flatten needs only while it copies one tree: a parser keeps it from
// file to file, so a run does not allocate and fault in about 40 bytes per tree-sitter node
// of every file it parses (a 1 MB file has some 250,000) only to drop them.
type scratch struct {
	flat    []C.cl_flat
	index   []int32 // flat index -> pre-order index among the nodes kept, -1 for dropped punctuation
	parents []int32 // kept node -> its parent's pre-order index (arrange)
	kids    []int32 // kept node -> number of children kept
	pos     []int32 // kept node -> its element in the tree's array
}

// grow returns buf with length n, reusing its array when it is large enough.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// flatten copies the tree into Go Nodes through one C call that walks it with a cursor.
func flatten(root *sitter.Node, f *File, sc *scratch) *Node {
	count := int(root.DescendantCount()) + 1
	sc.flat = grow(sc.flat, count)
	flat := sc.flat
	// sitter.Node's only field is the C TSNode, so its address is the TSNode's.
	n := int(C.cachelint_flatten((*C.cl_node)(unsafe.Pointer(root)), &flat[0], C.size_t(count)))
	lines := lineStarts(f.Src)
	sc.index = grow(sc.index, n)
	index := sc.index
	checkErrors := root.HasError()
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
