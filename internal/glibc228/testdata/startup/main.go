// Command startup is glibc228_test's program: it links internal/glibc228 and reports
// whether its C constructor ran and whether dlopen, dlsym and threads work through the
// package's stand-ins.
package main

/*
#include <dlfcn.h>
#include <stddef.h>

// constructed counts the runs of construct: exactly one, whether libc or csu_init runs
// the init array.
static int constructed;
__attribute__((constructor)) static void construct(void) { constructed++; }
static int constructor_ran(void) { return constructed; }

static int dlopen_works(void) {
	void *h = dlopen("libc.so.6", RTLD_NOW);
	if (h == NULL) return 0;
	void *f = dlsym(h, "getpid");
	dlclose(h);
	return f != NULL;
}
*/
import "C"

import (
	"fmt"
	"sync"

	_ "github.com/cachelint/cachelint/internal/glibc228"
)

func main() {
	// Goroutines blocked in C make the runtime start threads through pthread_create.
	var wg sync.WaitGroup
	results := make([]bool, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = C.dlopen_works() == 1
		}()
	}
	wg.Wait()
	fmt.Printf("constructor=%v dlopen=%v\n", C.constructor_ran() == 1, results)
}
