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
	// Notes say where the workload is approximate.
	Notes []string `json:"notes,omitempty"`
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

// torchStatsWorkload reads a JSON dump taken where the empty_cache() call would run and
// works out which segments that call would release. Two dumps are accepted: the segment
// list of torch.cuda.memory_snapshot() (or the dict of torch.cuda.memory._snapshot(), which
// holds it under "segments"), which gives every segment's size, and the statistics of
// torch.cuda.memory_stats(), which give only totals per pool.
func torchStatsWorkload(path string) (Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Workload{}, fmt.Errorf("read torch stats: %w", err)
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Workload{}, fmt.Errorf("torch stats %s: not JSON: %w", path, err)
	}
	var w Workload
	switch top := raw.(type) {
	case []any:
		w, err = snapshotWorkload(data)
	case map[string]any:
		if _, ok := top["segments"].([]any); ok {
			var snap struct {
				Segments json.RawMessage `json:"segments"`
			}
			if err = json.Unmarshal(data, &snap); err == nil {
				w, err = snapshotWorkload(snap.Segments)
			}
			break
		}
		w, err = statsWorkload(top)
	default:
		err = errors.New("not a JSON object or list; expected the dict torch.cuda.memory_stats() returns or the list torch.cuda.memory_snapshot() returns")
	}
	if err != nil {
		return Workload{}, fmt.Errorf("torch stats %s: %w", path, err)
	}
	if w.ReservedSegments == 0 {
		return Workload{}, fmt.Errorf("torch stats %s: the allocator holds no segments (dump the stats after a few training steps, where empty_cache() is called)", path)
	}
	w.Source = "torch-stats " + path
	sort.SliceStable(w.Released, func(i, j int) bool {
		a, b := w.Released[i], w.Released[j]
		if a.Pool != b.Pool {
			return a.Pool > b.Pool
		}
		return a.SizeBytes > b.SizeBytes
	})
	return w, nil
}

// snapshotSegment is the part of a memory_snapshot() segment the model reads (the Segment
// TypedDict in torch/cuda/memory.py; blocks and stack frames are ignored).
type snapshotSegment struct {
	TotalSize     *uint64 `json:"total_size"`
	AllocatedSize *uint64 `json:"allocated_size"`
	SegmentType   string  `json:"segment_type"`
	PoolID        []int64 `json:"segment_pool_id"`
	Expandable    bool    `json:"is_expandable"`
}

// snapshotWorkload counts the segments of a memory_snapshot() list that empty_cache()
// would free. release_cached_blocks() first waits for the events of blocks freed on other
// streams, then cudaFrees every block with neither prev nor next: every segment with no
// allocated block. Segments of a private pool (CUDA graphs, MemPool) are left alone unless
// that pool is the one being emptied, which torch.cuda.empty_cache() never asks for.
// It releases the cache of every device, so segments of all devices count.
func snapshotWorkload(data []byte) (Workload, error) {
	var segs []snapshotSegment
	if err := json.Unmarshal(data, &segs); err != nil {
		return Workload{}, fmt.Errorf("not a memory_snapshot() segment list: %w", err)
	}
	var w Workload
	groups := map[SegmentGroup]int{}
	expandable := 0
	for i, s := range segs {
		if s.TotalSize == nil || s.AllocatedSize == nil {
			return Workload{}, fmt.Errorf("segment %d has no total_size or allocated_size; is this the output of torch.cuda.memory_snapshot()?", i)
		}
		w.ReservedBytes += *s.TotalSize
		w.ReservedSegments++
		if *s.AllocatedSize != 0 || !defaultPool(s.PoolID) {
			continue
		}
		if s.Expandable {
			expandable++
		}
		pool := s.SegmentType
		if pool != "small" {
			pool = "large"
		}
		groups[SegmentGroup{Pool: pool, SizeBytes: *s.TotalSize}]++
	}
	for g, n := range groups {
		g.Count = n
		w.Released = append(w.Released, g)
	}
	if expandable > 0 {
		w.Notes = append(w.Notes, fmt.Sprintf("%d released segments are expandable (expandable_segments:True): PyTorch unmaps their pages rather than calling cudaFree, and the probe times cuMemFree", expandable))
	}
	return w, nil
}

func defaultPool(id []int64) bool {
	for _, v := range id {
		if v != 0 {
			return false
		}
	}
	return true
}

// statsWorkload works out the released segments from memory_stats() totals.
//
// After its event sync, every free block is either a whole segment, which
// release_cached_blocks() frees, or a split piece of a segment that still holds a tensor.
// memory_stats() counts the latter as inactive_split ("inactive, non-releasable"), so per
// pool
//
//	releasable = reserved - active - inactive_split
//
// Small-pool segments are all 2 MiB, so their count is exact. Large-pool segments vary in
// size and memory_stats() does not list them, so their count assumes the released ones
// have the pool's average size; memory_snapshot() gives the exact sizes.
func statsWorkload(top map[string]any) (Workload, error) {
	stats, err := flattenStats(top)
	if err != nil {
		return Workload{}, err
	}
	var w Workload
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
				return Workload{}, fmt.Errorf("no %q; is this the output of torch.cuda.memory_stats()?", k.name)
			}
			if v < 0 {
				return Workload{}, fmt.Errorf("%q is negative (%v)", k.name, v)
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
	if len(w.Released) > 0 {
		w.Notes = append(w.Notes, "memory_stats() gives no segment sizes: released large segments are taken to have the pool's average size (dump torch.cuda.memory_snapshot() for exact ones)")
	}
	return w, nil
}

// flattenStats accepts the flat dict torch.cuda.memory_stats() returns and the nested one
// of memory_stats_as_nested_dict(), flattening the latter to the same dotted keys.
func flattenStats(top map[string]any) (map[string]float64, error) {
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
