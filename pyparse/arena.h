// An arena for tree-sitter's allocations while one file is parsed (arena.c).
#ifndef CACHELINT_ARENA_H
#define CACHELINT_ARENA_H

#include <stddef.h>

typedef struct cl_arena cl_arena;

cl_arena *cl_arena_new(void);
void cl_arena_delete(cl_arena *a);
// cl_arena_reset frees everything allocated in a at once, keeping some of its memory for
// the next file.
void cl_arena_reset(cl_arena *a);
// cl_arena_enter routes this thread's tree-sitter allocations to a until cl_arena_leave.
void cl_arena_enter(cl_arena *a);
void cl_arena_leave(void);
// cl_arena_install points tree-sitter's allocator at the arena of the calling thread, or at
// libc's malloc when it has none.
void cl_arena_install(void);
// cl_arena_bytes is how much memory a holds (its mapped chunks).
size_t cl_arena_bytes(const cl_arena *a);

#endif
