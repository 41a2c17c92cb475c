// Command serial reads execution traces of cachelint runs and says how long one of the run's
// goroutines worked while the others had nothing to do: the part of a run that more cores
// cannot shorten. It prints, over all the traces given:
//
//   - the time with 0, 1, 2, ... of cachelint's goroutines running, runnable or in a system
//     call (the collector's, the profiler's and the tracer's own goroutines left out);
//   - for each phase (the runtime/trace regions cachelint opens: "scan", "parse",
//     "reindex", "graph", "prewarm", "follow", ...), its time and its time with one
//     goroutine at work, per run (a trace, or each -within region);
//   - with -region NAME, the functions CPU samples found during that phase's one-goroutine
//     time (the traces must come from a run profiled too: go test's -cpuprofile with -trace);
//     with -all, the samples found whatever the number of goroutines at work (what a run
//     costs in CPU, which is what a machine of few cores waits for), and the leaf functions
//     (runtime's included) by samples.
//
// Usage (bench/README.md, "What more cores cannot shorten"):
//
//	go test ./internal/cli -run '^$' -bench CheckCorpusEdited -benchtime 8x -trace t.out -cpuprofile c.out
//	go run ./bench/serial -within "edited run" t.out
//
// (from bench/serial, which is a module of its own: `go run . ../../t.out`).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"golang.org/x/exp/trace"
)

// within, when set, is the region the time is counted in; all counts every sample, not
// only those of one-goroutine time.
var (
	within string
	all    bool
)

type totals struct {
	runs            int
	span            int64
	byActive        map[int]int64
	regionTime      map[string]int64
	regionSerial    map[string]int64
	samples, serial int
	funcs, leaves   map[string]int
}

func main() {
	region := flag.String("region", "", "list the functions sampled in this phase's one-goroutine time")
	flag.BoolVar(&all, "all", false, "list the functions of every sample, not only of one-goroutine time")
	flag.StringVar(&within, "within", "", "count only the time inside this region (each occurrence one run): \"edited run\" for BenchmarkCheckCorpusEdited")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: serial [-region NAME] TRACE...")
		os.Exit(2)
	}
	t := &totals{byActive: map[int]int64{}, regionTime: map[string]int64{}, regionSerial: map[string]int64{}, funcs: map[string]int{}, leaves: map[string]int{}}
	for _, path := range flag.Args() {
		if err := t.read(path, *region); err != nil {
			fmt.Fprintf(os.Stderr, "serial: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
	t.print(*region)
}

// read adds one trace to t.
func (t *totals) read(path, region string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return err
	}
	ours := map[trace.GoID]bool{}   // cachelint's goroutines (mine)
	active := map[trace.GoID]bool{} // ours, and running, runnable or in a system call
	var regions []string            // the phases open, innermost last
	var last trace.Time
	for {
		ev, err := r.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if last == 0 {
			last = ev.Time()
		}
		d := int64(ev.Time() - last)
		last = ev.Time()
		phase := "(no phase)"
		if len(regions) > 0 {
			phase = regions[len(regions)-1]
		}
		counted := within == "" || slices.Contains(regions, within)
		if counted {
			t.span += d
			t.byActive[len(active)] += d
			t.regionTime[phase] += d
			if len(active) == 1 {
				t.regionSerial[phase] += d
			}
		}
		switch ev.Kind() {
		case trace.EventRegionBegin:
			if ev.Region().Type == within {
				t.runs++
			}
			regions = append(regions, ev.Region().Type)
		case trace.EventRegionEnd:
			if n := len(regions); n > 0 && regions[n-1] == ev.Region().Type {
				regions = regions[:n-1]
			}
		case trace.EventStackSample:
			if !counted {
				continue
			}
			t.samples++
			if (all || len(active) == 1) && (region == "" || region == phase) {
				t.serial++
				seen := map[string]bool{}
				for fr := range ev.Stack().Frames() {
					if len(seen) == 0 {
						t.leaves[fr.Func]++
					}
					if !seen[fr.Func] {
						seen[fr.Func] = true
						t.funcs[fr.Func]++
					}
				}
			}
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			g := st.Resource.Goroutine()
			if !ours[g] && mine(st.Stack) {
				ours[g] = true
			}
			_, to := st.Goroutine()
			if ours[g] && (to == trace.GoRunning || to == trace.GoRunnable || to == trace.GoSyscall) {
				active[g] = true
			} else {
				delete(active, g)
			}
		}
	}
	if within == "" {
		t.runs++
	}
	return nil
}

// mine reports a stack in cachelint's code and not in the runtime's own goroutines
// (collector, profiler, tracer, signals): a goroutine is cachelint's from the first
// transition that shows it so (the benchmark's goroutine starts in package testing).
func mine(stk trace.Stack) bool {
	ours := false
	for fr := range stk.Frames() {
		for _, sys := range []string{"runtime/pprof", "runtime/trace", "os/signal", "runtime.gc", "runtime.bg"} {
			if strings.Contains(fr.Func, sys) {
				return false
			}
		}
		ours = ours || strings.Contains(fr.Func, "github.com/cachelint/cachelint/")
	}
	return ours
}

func (t *totals) print(region string) {
	if t.runs == 0 {
		fmt.Println("no run found")
		return
	}
	n := float64(t.runs)
	ms := func(ns int64) float64 { return float64(ns) / 1e6 / n }
	fmt.Printf("%d run(s), %.1f ms each (times below are per run)\n", t.runs, ms(t.span))
	var counts []int
	for k := range t.byActive {
		counts = append(counts, k)
	}
	sort.Ints(counts)
	for _, k := range counts {
		fmt.Printf("  %2d of cachelint's goroutines at work: %8.1f ms\n", k, ms(t.byActive[k]))
	}
	var phases []string
	for p := range t.regionTime {
		phases = append(phases, p)
	}
	sort.Slice(phases, func(i, j int) bool { return t.regionSerial[phases[i]] > t.regionSerial[phases[j]] })
	fmt.Printf("%-28s %10s %10s\n", "phase", "ms", "one at work")
	var serial int64
	for _, p := range phases {
		serial += t.regionSerial[p]
		fmt.Printf("%-28s %10.1f %10.1f\n", p, ms(t.regionTime[p]), ms(t.regionSerial[p]))
	}
	fmt.Printf("%-28s %10.1f %10.1f\n", "all", ms(t.span), ms(serial))
	if t.serial == 0 {
		return
	}
	what := "one-goroutine time"
	if all {
		what = "any time"
	}
	if region != "" {
		what += " in " + region
	}
	fmt.Printf("CPU samples: %d, %d of them in %s; functions by samples (inclusive):\n", t.samples, t.serial, what)
	type fc struct {
		f string
		c int
	}
	var fs []fc
	for f, c := range t.funcs {
		if strings.Contains(f, "cachelint") {
			fs = append(fs, fc{f, c})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].c > fs[j].c || fs[i].c == fs[j].c && fs[i].f < fs[j].f })
	for i, e := range fs {
		if i == 40 {
			break
		}
		fmt.Printf("  %5d %s\n", e.c, strings.TrimPrefix(e.f, "github.com/cachelint/cachelint/"))
	}
	if !all {
		return
	}
	fs = fs[:0]
	for f, c := range t.leaves {
		fs = append(fs, fc{f, c})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].c > fs[j].c || fs[i].c == fs[j].c && fs[i].f < fs[j].f })
	fmt.Println("leaf functions by samples:")
	for i, e := range fs {
		if i == 60 {
			break
		}
		fmt.Printf("  %5d %s\n", e.c, strings.TrimPrefix(e.f, "github.com/cachelint/cachelint/"))
	}
}
