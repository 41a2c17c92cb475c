package pyparse

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "arena.h"
static void cachelint_release_freed(void) {
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
*/
import "C"

import "sync"

var allocOnce sync.Once

// installAllocator points tree-sitter at arena.c's allocator: a parse allocates from its
// parser's arena, everything else from libc. go-tree-sitter v0.25.0 would route every
// tree-sitter malloc/free through an exported Go callback (a cgo round trip per allocation:
// 12% of a parse, BenchmarkParse), and it frees tree-sitter memory through C.free, which
// holds for whatever it allocates outside a parse.
func installAllocator() {
	allocOnce.Do(func() { C.cl_arena_install() })
}

// releaseFreed hands the memory of the trees tree-sitter has freed back to the system.
// glibc keeps it in its arenas (one per thread that parsed, up to eight per CPU), where
// nothing but another parse reuses it: unsloth's 265 parsed files left 67 MB there, resident
// while the analysis after the parse grows the Go heap. A no-op on other C libraries.
func releaseFreed() { C.cachelint_release_freed() }
