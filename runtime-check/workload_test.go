package runtimecheck

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestTorchStatsWorkload(t *testing.T) {
	for _, tc := range []struct {
		file        string
		small       int    // 2 MiB segments released
		large       int    // large-pool segments released
		largeSize   uint64 // their modelled size
		reservedSeg int
	}{
		// handmade: small pool 40 MiB reserved, 20 active, 6 split -> 14 MiB = 7 segments;
		// large pool 10240 MiB in 80 segments (128 MiB average), 300 active, 100 split ->
		// 9840 MiB, 77 segments of 128 MiB (rounded up to 2 MiB).
		{"handmade-stats.json", 7, 77, 128 * mib, 100},
		// Real dumps from the H200 validation (docs/probe.md), taken just before an
		// empty_cache() call. ResNet-50: 18 MiB of small segments and 11392 MiB of large
		// ones at a 194.5 MiB average; PyTorch re-allocated 59.25 segments per step there.
		{"resnet50-stats.json", 9, 59, 194 * mib, 102},
		{"transformer-stats.json", 1, 30, 168 * mib, 61},
	} {
		w, err := torchStatsWorkload(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var small, large int
		for _, g := range w.Released {
			switch g.Pool {
			case "small":
				small += g.Count
				if g.SizeBytes != kSmallBuffer {
					t.Errorf("%s: small segment of %d bytes", tc.file, g.SizeBytes)
				}
			case "large":
				large += g.Count
				if g.SizeBytes != tc.largeSize {
					t.Errorf("%s: large segments of %s, want %s", tc.file, formatBytes(g.SizeBytes), formatBytes(tc.largeSize))
				}
			}
		}
		if small != tc.small || large != tc.large || w.ReservedSegments != tc.reservedSeg {
			t.Errorf("%s: released %d small + %d large of %d, want %d + %d of %d",
				tc.file, small, large, w.ReservedSegments, tc.small, tc.large, tc.reservedSeg)
		}
	}
}

func TestTorchStatsNestedDictMatchesFlat(t *testing.T) {
	// memory_stats_as_nested_dict() spells the same numbers as nested objects.
	nested := `{"reserved_bytes": {"small_pool": {"current": 4194304}, "large_pool": {"current": 209715200}},
		"active_bytes": {"small_pool": {"current": 0}, "large_pool": {"current": 0}},
		"inactive_split_bytes": {"small_pool": {"current": 0}, "large_pool": {"current": 0}},
		"segment": {"small_pool": {"current": 2}, "large_pool": {"current": 2}}}`
	path := filepath.Join(t.TempDir(), "nested.json")
	if err := os.WriteFile(path, []byte(nested), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := torchStatsWorkload(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Segments() != 4 || w.Bytes() != 4*mib+200*mib {
		t.Errorf("released %d segments, %d bytes; want 4 and %d", w.Segments(), w.Bytes(), 204*mib)
	}
}

func TestTorchSnapshotWorkload(t *testing.T) {
	// Eight segments: a free and a used 2 MiB small one; free large ones of 20 MiB,
	// 1 GiB twice and (on device 1) 20 MiB, all released, since empty_cache() empties every
	// device; a half-used 512 MiB one and a free one of a private pool (a CUDA graph's),
	// both kept.
	want := []SegmentGroup{
		{Pool: "small", SizeBytes: 2 * mib, Count: 1},
		{Pool: "large", SizeBytes: gib, Count: 2},
		{Pool: "large", SizeBytes: 20 * mib, Count: 2},
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "handmade-snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	// torch.cuda.memory._snapshot() holds the same list under "segments".
	dict := filepath.Join(t.TempDir(), "snapshot-dict.json")
	if err := os.WriteFile(dict, []byte(`{"segments": `+string(raw)+`, "device_traces": [[]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join("testdata", "handmade-snapshot.json"), dict} {
		w, err := torchStatsWorkload(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(w.Released, want) {
			t.Errorf("%s: released %+v, want %+v", path, w.Released, want)
		}
		if w.ReservedSegments != 8 || w.ReservedBytes != 2*2*mib+2*20*mib+2*gib+512*mib+100*mib {
			t.Errorf("%s: reserved %d segments, %d bytes", path, w.ReservedSegments, w.ReservedBytes)
		}
		if len(w.Notes) != 0 {
			t.Errorf("%s: exact segments need no note, got %q", path, w.Notes)
		}
	}
}

func TestTorchSnapshotFromTheH200Run(t *testing.T) {
	// memory_snapshot() taken just before an empty_cache() call in the variable-length
	// transformer benchmark (docs/probe.md, run of 2026-12-02): 62 segments, of which 10
	// hold no tensor, 4.9 GiB. memory_stats() from the same kind of step said 31.
	w, err := torchStatsWorkload(filepath.Join("testdata", "transformer-snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sizes []uint64
	for _, g := range w.Released {
		for i := 0; i < g.Count; i++ {
			sizes = append(sizes, g.SizeBytes/mib)
		}
	}
	// Small pool first, then large segments largest first.
	want := []uint64{2, 1250, 1126, 1126, 1126, 96, 96, 96, 80, 24}
	if w.ReservedSegments != 62 || w.Bytes() != 5022*mib || !reflect.DeepEqual(sizes, want) {
		t.Errorf("reserved %d, released %v MiB (%d MiB), want 62 and %v (5022 MiB)", w.ReservedSegments, sizes, w.Bytes()/mib, want)
	}
}

func TestTorchSnapshotNotesExpandableSegments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "expandable.json")
	seg := `{"total_size": 41943040, "allocated_size": 0, "segment_type": "large", "is_expandable": true}`
	if err := os.WriteFile(path, []byte("["+seg+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := torchStatsWorkload(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Segments() != 1 || len(w.Notes) != 1 || !strings.Contains(w.Notes[0], "expandable") {
		t.Errorf("workload %+v", w)
	}
}

func TestTorchStatsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"garbage.json", "not json", "not JSON"},
		{"list.json", "[1, 2]", "not a memory_snapshot() segment list"},
		{"number.json", "42", "not a JSON object or list"},
		{"nosizes.json", `[{"segment_type": "large"}]`, "segment 0 has no total_size"},
		{"emptysnapshot.json", `[]`, "holds no segments"},
		{"empty.json", "{}", "memory_stats() returns {} before CUDA is used"},
		{"partial.json", `{"reserved_bytes.small_pool.current": 2097152}`, `no "active_bytes.small_pool.current"`},
		{"negative.json", `{"reserved_bytes.small_pool.current": -1, "active_bytes.small_pool.current": 0,
			"inactive_split_bytes.small_pool.current": 0, "segment.small_pool.current": 0}`, "is negative"},
		{"nosegments.json", `{"reserved_bytes.small_pool.current": 0, "active_bytes.small_pool.current": 0,
			"inactive_split_bytes.small_pool.current": 0, "segment.small_pool.current": 0,
			"reserved_bytes.large_pool.current": 0, "active_bytes.large_pool.current": 0,
			"inactive_split_bytes.large_pool.current": 0, "segment.large_pool.current": 0}`, "holds no segments"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := torchStatsWorkload(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := torchStatsWorkload(filepath.Join(dir, "absent.json")); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestFlagWorkload(t *testing.T) {
	w, err := flagWorkload("flags", 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// 1 GiB over 1000 segments is about 1 MiB each: small-pool segments, 2 MiB apiece.
	if len(w.Released) != 1 || w.Released[0].Pool != "small" || w.Released[0].SizeBytes != kSmallBuffer || w.Segments() != 1000 {
		t.Errorf("workload %+v", w)
	}
}
