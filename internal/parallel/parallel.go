// Package parallel runs work over indices on a fixed number of goroutines, for the packages
// that share a run's work out (parsing, the call graph, classification, the cache's stamps).
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// For runs work(w, i) for every i < n on jobs goroutines (GOMAXPROCS when jobs <= 0, never
// more than n), each taking the next i (w is the goroutine's own number, below jobs). A panic
// in one, a bug, would end the process: it is caught there, the others take no more, and it
// is raised again in the caller with the goroutine's stack, where the driver reports it as an
// internal error.
func For(n, jobs int, work func(w, i int)) {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, n)
	var next atomic.Int64
	var failure atomic.Value
	var wg sync.WaitGroup
	for w := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					failure.CompareAndSwap(nil, fmt.Sprintf("%v\n%s", v, debug.Stack()))
					next.Store(int64(n))
				}
			}()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				work(w, i)
			}
		}()
	}
	wg.Wait()
	if v := failure.Load(); v != nil {
		panic(v)
	}
}
