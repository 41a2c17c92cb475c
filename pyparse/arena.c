// An arena for tree-sitter's allocations while one file is parsed.
//
// A parse makes and frees millions of small blocks (a subtree per node, the stack's
// versions, arrays that grow), and deleting the tree walks it again to free each node. With
// libc's allocator that was a third of a parse: perf of unsloth's cold run put 11% of the
// run's CPU in libc's malloc and free, 3% in ts_subtree_release, and much of the kernel's
// 18% in page faults of memory glibc had handed back and took again. Here a parse allocates
// from its parser's arena, blocks of a size class are reused within the parse, and once the
// tree is copied (flatten.go) everything goes at once: the arena keeps up to retain bytes
// of its memory for the next file and nothing walks the tree to free it. BenchmarkParse: 58
// -> 40 ms per parse; cold runs 6-9% faster, peak memory unchanged (bench/README.md).
//
// tree-sitter has one allocator for the process (ts_set_allocator). The arena a thread's
// allocations go to is thread-local and set only while one C call parses (cachelint_parse
// in flatten.go): the parser is made, used and deleted inside that call, so every block it
// frees there came from the arena. Outside such a call (the tree cursor flatten uses, tests
// that parse through the official binding) allocations go to libc, as before.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"

void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

// A block is a 16-byte header holding its size class, then the caller's bytes. Classes are
// multiples of 16 bytes up to 1 KB, then powers of two.
enum {
	header = 16,
	smallMax = 1024,
	smallClasses = smallMax / 16,
	classes = smallClasses + 40,
	firstChunk = 256 << 10,
	largestChunk = 8 << 20,
	// retain is how much memory an arena keeps from one file to the next.
	retain = 16 << 20,
};

typedef struct chunk {
	struct chunk *next;
	size_t size, used;
	size_t pad; // the data after the chunk's header is 16-byte aligned
} chunk;

struct cl_arena {
	chunk *first, *cur, *last;
	void *free[classes];
	size_t bytes; // the chunks' sizes
	size_t next;  // the size of the next chunk
};

static _Thread_local cl_arena *current;

static void out_of_memory(size_t n) {
	fprintf(stderr, "cachelint: out of memory while parsing (%zu bytes)\n", n);
	abort();
}

static unsigned class_of(size_t n) {
	if (n <= smallMax) {
		return n <= 16 ? 1 : (unsigned)((n + 15) >> 4);
	}
	unsigned c = smallClasses;
	size_t s = smallMax;
	while (s < n) {
		if (c + 1 >= classes) {
			out_of_memory(n);
		}
		s <<= 1;
		c++;
	}
	return c;
}

static size_t class_size(unsigned c) {
	return c <= smallClasses ? (size_t)c << 4 : (size_t)smallMax << (c - smallClasses);
}

// bump takes n bytes from the arena's chunks, adding a chunk when none has room.
static char *bump(cl_arena *a, size_t n) {
	for (chunk *c = a->cur; c != NULL; c = c->next) {
		if (c->size - c->used >= n) {
			char *p = (char *)(c + 1) + c->used;
			c->used += n;
			a->cur = c;
			return p;
		}
	}
	size_t size = a->next > n ? a->next : n;
	// Chunks are mapped, not malloc'd: glibc keeps freed blocks of this size in its heaps
	// (its mmap threshold rises to the largest it freed), where they stayed resident for the
	// rest of a run (unsloth: 25 MB more at the peak).
	chunk *c = mmap(NULL, sizeof(chunk) + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		out_of_memory(n);
	}
	c->next = NULL;
	c->size = size;
	c->used = n;
	if (a->last != NULL) {
		a->last->next = c;
	} else {
		a->first = c;
	}
	a->last = c;
	a->cur = c;
	a->bytes += size;
	if (a->next < largestChunk) {
		a->next *= 2;
	}
	return (char *)(c + 1);
}

static void *arena_alloc(cl_arena *a, size_t n) {
	unsigned c = class_of(n);
	void *p = a->free[c];
	if (p != NULL) {
		a->free[c] = *(void **)p;
		return p;
	}
	char *b = bump(a, header + class_size(c));
	*(uint32_t *)b = c;
	return b + header;
}

static unsigned class_at(void *p) { return *(uint32_t *)((char *)p - header); }

static void arena_free(cl_arena *a, void *p) {
	unsigned c = class_at(p);
	*(void **)p = a->free[c];
	a->free[c] = p;
}

static void *cl_malloc(size_t n) {
	cl_arena *a = current;
	return a != NULL ? arena_alloc(a, n) : malloc(n);
}

static void *cl_calloc(size_t n, size_t size) {
	cl_arena *a = current;
	if (a == NULL) {
		return calloc(n, size);
	}
	if (size != 0 && n > SIZE_MAX / size) {
		out_of_memory(SIZE_MAX);
	}
	void *p = arena_alloc(a, n * size);
	memset(p, 0, n * size);
	return p;
}

static void *cl_realloc(void *p, size_t n) {
	cl_arena *a = current;
	if (a == NULL) {
		return realloc(p, n);
	}
	if (p == NULL) {
		return arena_alloc(a, n);
	}
	size_t have = class_size(class_at(p));
	if (n <= have) {
		return p;
	}
	void *q = arena_alloc(a, n);
	memcpy(q, p, have);
	arena_free(a, p);
	return q;
}

static void cl_free(void *p) {
	cl_arena *a = current;
	if (a == NULL) {
		free(p);
	} else if (p != NULL) {
		arena_free(a, p);
	}
}

void cl_arena_install(void) { ts_set_allocator(cl_malloc, cl_calloc, cl_realloc, cl_free); }

cl_arena *cl_arena_new(void) {
	cl_arena *a = calloc(1, sizeof(cl_arena));
	if (a == NULL) {
		out_of_memory(sizeof(cl_arena));
	}
	a->next = firstChunk;
	return a;
}

static void free_chunks(cl_arena *a) {
	for (chunk *c = a->first; c != NULL;) {
		chunk *next = c->next;
		munmap(c, sizeof(chunk) + c->size);
		c = next;
	}
	a->first = a->cur = a->last = NULL;
	a->bytes = 0;
}

void cl_arena_reset(cl_arena *a) {
	memset(a->free, 0, sizeof(a->free));
	if (a->bytes > retain) {
		// A large file's memory goes back; the next file starts with one chunk of what
		// an arena keeps.
		free_chunks(a);
		a->next = retain;
		return;
	}
	for (chunk *c = a->first; c != NULL; c = c->next) {
		c->used = 0;
	}
	a->cur = a->first;
}

void cl_arena_delete(cl_arena *a) {
	if (a != NULL) {
		free_chunks(a);
		free(a);
	}
}

void cl_arena_enter(cl_arena *a) { current = a; }

void cl_arena_leave(void) { current = NULL; }

size_t cl_arena_bytes(const cl_arena *a) { return a->bytes; }
