package allocconf

import (
	"fmt"
	"strings"
)

// Profile is a range of PyTorch releases that parse the allocator config the same way.
// Releases are 2.Lo through 2.Hi; Hi < 0 means "and every later release".
type Profile struct {
	Lo, Hi int
	// Legacy marks CUDAAllocatorConfig's own lexer (2.9 and earlier): it drops only ' ',
	// throws on a missing separator, and requires max_split_size_mb > 20. From 2.10 the
	// shared ConfigTokenizer (c10/core/AllocatorConfig.h) drops every isspace character
	// and accepts max_split_size_mb >= 20.
	Legacy bool
}

// Profiles are the version ranges cachelint models, oldest first. 2.8 is the oldest
// modelled release; 2.8 and 2.9 share the legacy parser (the refactor that replaced it,
// pytorch#165135, landed on 2025-10-10, after the 2.9 branch cut). Key additions split
// the newer releases: per_process_memory_fraction, graph_capture_record_stream_reuse and
// pinned_reserve_segment_size_mb arrive with 2.10; throw_on_cudamalloc_oom and
// pinned_free_catch_all with 2.12 (release/2.12 carries test_throw_on_cudamalloc_oom);
// expandable_segments_reserve[_by_class] landed on main in 2026-08 (pytorch#192269) and
// are modelled from 2.15, the first release cut after it.
var Profiles = []Profile{
	{Lo: 8, Hi: 9, Legacy: true},
	{Lo: 10, Hi: 11},
	{Lo: 12, Hi: 14},
	{Lo: 15, Hi: -1},
}

func (p Profile) String() string { return versionRange(p.Lo, p.Hi) }

// versionRange writes a range the way messages and Problem.Versions show it.
func versionRange(lo, hi int) string {
	first := Profiles[0].Lo
	switch {
	case lo <= first && hi < 0:
		return "all"
	case lo <= first:
		return fmt.Sprintf("<=2.%d", hi)
	case hi < 0:
		return fmt.Sprintf(">=2.%d", lo)
	case lo == hi:
		return fmt.Sprintf("2.%d", lo)
	default:
		return fmt.Sprintf("2.%d-2.%d", lo, hi)
	}
}

// joinProfiles turns the set of profiles a problem occurs in into a Versions string,
// merging neighbours ("<=2.9", ">=2.10", "2.10-2.14", "<=2.9, >=2.15").
func joinProfiles(in []bool) string {
	var parts []string
	for i := 0; i < len(in); i++ {
		if !in[i] {
			continue
		}
		j := i
		for j+1 < len(in) && in[j+1] {
			j++
		}
		parts = append(parts, versionRange(Profiles[i].Lo, Profiles[j].Hi))
		i = j
	}
	return strings.Join(parts, ", ")
}
