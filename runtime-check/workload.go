package runtimecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// Sizes PyTorch's CUDA caching allocator works in (c10/cuda/CUDACachingAllocator.cpp):
// requests up to kSmallSize (1 MiB) are packed into kSmallBuffer (2 MiB) segments of the
// small pool; larger ones come from the large pool, in kLargeBuffer (20 MiB) segments for
// requests under kMinLargeAlloc (10 MiB) and in segments of the request rounded up to
// kRoundLarge (2 MiB) above that.
const (
	mib          = 1 << 20
	gib          = 1 << 30
	kSmallBuffer = 2 * mib
	kRoundLarge  = 2 * mib
)

// SegmentGroup is a number of same-sized segments that one empty_cache() call returns to
// the driver and the next step takes back with cudaMalloc.
type SegmentGroup struct {
	Pool      string `json:"pool"` // "small", "large" or "mixed"
	SizeBytes uint64 `json:"size_bytes"`
	Count     int    `json:"count"`
}

// Workload is what one torch.cuda.empty_cache() releases.
type Workload struct {
	// Source is "default", "flags" or "torch-stats <file>".
	Source string `json:"source"`
	// Released are the segments the call frees (and the next step re-allocates).
	Released []SegmentGroup `json:"released"`
	// ReservedBytes and ReservedSegments describe the whole cache before the call.
	ReservedBytes    uint64 `json:"reserved_bytes"`
	ReservedSegments int    `json:"reserved_segments"`
}

// Segments is the number of segments released.
func (w Workload) Segments() int {
	n := 0
	for _, g := range w.Released {
		n += g.Count
	}
	return n
}

// Bytes is the number of bytes released.
func (w Workload) Bytes() uint64 {
	var b uint64
	for _, g := range w.Released {
		b += g.SizeBytes * uint64(g.Count)
	}
	return b
}

// Defaults for --reserved-gb and --segments: the ResNet-50 training step of the seed
// article re-allocated about 100 segments per call.
const (
	defaultReservedGB = 8.0
	defaultSegments   = 100
)

// flagWorkload models a cache of reservedGB in n segments, all released: every segment
// is the same size, rounded up as PyTorch rounds large segments.
func flagWorkload(source string, reservedGB float64, n int) (Workload, error) {
	if !(reservedGB > 0) || math.IsInf(reservedGB, 0) {
		return Workload{}, fmt.Errorf("--reserved-gb must be a positive number, got %v", reservedGB)
	}
	if n < 1 {
		return Workload{}, fmt.Errorf("--segments must be at least 1, got %d", n)
	}
	total := uint64(reservedGB * gib)
	size := roundUp(total/uint64(n), kRoundLarge)
	pool := "large"
	if size <= kSmallBuffer {
		size, pool = kSmallBuffer, "small"
	}
	return Workload{
		Source:           source,
		Released:         []SegmentGroup{{Pool: pool, SizeBytes: size, Count: n}},
		ReservedBytes:    size * uint64(n),
		ReservedSegments: n,
	}, nil
}

func roundUp(v, to uint64) uint64 {
	if v == 0 {
		return to
	}
	return (v + to - 1) / to * to
}

// torchStatsWorkload reads a JSON dump of torch.cuda.memory_stats() taken where the
// empty_cache() call would run, and works out which segments that call would release.
//
// release_cached_blocks() frees only blocks with neither prev nor next, i.e. segments with
// no block in use: after its event sync, every free block is either such a whole segment
// or a split piece of a segment that still holds a tensor. memory_stats() counts the
// latter as inactive_split ("inactive, non-releasable"), so per pool
//
//	releasable = reserved - active - inactive_split
//
// Small-pool segments are all 2 MiB, so their count is exact. Large-pool segments vary in
// size and memory_stats() does not list them, so their count assumes the released ones
// have the pool's average size.
func torchStatsWorkload(path string) (Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Workload{}, fmt.Errorf("read torch stats: %w", err)
	}
	stats, err := parseTorchStats(data)
	if err != nil {
		return Workload{}, fmt.Errorf("torch stats %s: %w", path, err)
	}
	w := Workload{Source: "torch-stats " + path}
	for _, pool := range []string{"small_pool", "large_pool"} {
		key := func(stat string) string { return stat + "." + pool + ".current" }
		var reserved, active, split, segs float64
		for _, k := range []struct {
			name string
			dst  *float64
		}{
			{key("reserved_bytes"), &reserved},
			{key("active_bytes"), &active},
			{key("inactive_split_bytes"), &split},
			{key("segment"), &segs},
		} {
			v, ok := stats[k.name]
			if !ok {
				return Workload{}, fmt.Errorf("torch stats %s: no %q; is this the output of torch.cuda.memory_stats()?", path, k.name)
			}
			if v < 0 {
				return Workload{}, fmt.Errorf("torch stats %s: %q is negative (%v)", path, k.name, v)
			}
			*k.dst = v
		}
		w.ReservedBytes += uint64(reserved)
		w.ReservedSegments += int(segs)
		free := reserved - active - split
		if free <= 0 || segs == 0 {
			continue
		}
		if pool == "small_pool" {
			n := int(math.Round(free / kSmallBuffer))
			if n > 0 {
				w.Released = append(w.Released, SegmentGroup{Pool: "small", SizeBytes: kSmallBuffer, Count: n})
			}
			continue
		}
		avg := reserved / segs
		n := int(math.Round(free / avg))
		if n < 1 {
			n = 1
		}
		if active > 0 && n > int(segs)-1 {
			// A live tensor keeps at least one segment.
			n = int(segs) - 1
		}
		if n < 1 {
			continue
		}
		size := roundUp(uint64(free/float64(n)), kRoundLarge)
		w.Released = append(w.Released, SegmentGroup{Pool: "large", SizeBytes: size, Count: n})
	}
	if w.ReservedSegments == 0 {
		return Workload{}, fmt.Errorf("torch stats %s: the allocator holds no segments (dump the stats after a few training steps, where empty_cache() is called)", path)
	}
	sort.Slice(w.Released, func(i, j int) bool { return w.Released[i].Pool > w.Released[j].Pool })
	return w, nil
}

// parseTorchStats accepts the flat dict torch.cuda.memory_stats() returns and the nested
// one of memory_stats_as_nested_dict(), flattening the latter to the same dotted keys.
func parseTorchStats(data []byte) (map[string]float64, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	top, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object; expected the dict torch.cuda.memory_stats() returns")
	}
	if len(top) == 0 {
		return nil, errors.New("empty statistics (memory_stats() returns {} before CUDA is used)")
	}
	out := map[string]float64{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				walk(strings.TrimPrefix(prefix+"."+k, "."), sub)
			}
		case json.Number:
			if f, err := x.Float64(); err == nil {
				out[prefix] = f
			}
		}
	}
	walk("", top)
	return out, nil
}
