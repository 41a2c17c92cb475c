package pyparse

/*
#include <stdlib.h>
// Declared here rather than through tree-sitter's header: the symbol is compiled into the
// binary by go-tree-sitter's own cgo package.
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
static void cachelint_use_libc_allocator(void) {
	ts_set_allocator(malloc, calloc, realloc, free);
}
*/
import "C"

import "sync"

var allocOnce sync.Once

// useLibcAllocator points tree-sitter straight at libc's allocator. go-tree-sitter v0.25.0
// routes every tree-sitter malloc/free through an exported Go callback (a cgo round trip per
// allocation); going straight to libc parses the same bytes faster. Measured with
// `go test ./pyparse -bench Parse -benchtime 20x` on a 2-core machine: see BenchmarkParse in
// parser_test.go and the numbers recorded there. go-tree-sitter's own frees of tree-sitter
// memory go through C.free, so the two allocators never mix.
func useLibcAllocator() {
	allocOnce.Do(func() { C.cachelint_use_libc_allocator() })
}
