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

// releaseFreed hands what glibc keeps of freed C memory back to the system once a round's
// parses are done. A parse's trees no longer pass through glibc (arena.c); what does (the
// cursor the copy walks with, the grammar's scanner state, cgo's own) still left more
// resident on the 15-project tree without it (3 cold runs: 433 against 452 MB), for no time
// measured. Before the arena, unsloth's parses left 67 MB there. A no-op on other C
// libraries.
func releaseFreed() { C.cachelint_release_freed() }
