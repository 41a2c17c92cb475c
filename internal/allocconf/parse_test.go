package allocconf

import (
	"fmt"
	"strings"
	"testing"
)

// want is one expected problem: rule, the exact text it points at, the versions, and a
// fragment of the message.
type want struct {
	rule, at, versions, msg string
}

func describe(value string, ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\n  %s %q %s: %s", p.Rule, value[p.Offset:p.End], p.Versions, p.Message)
	}
	return b.String()
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  []want
	}{
		// Silent look-alikes: valid values every modelled release accepts.
		{"article recommendation", "max_split_size_mb:128,roundup_power2_divisions:4,garbage_collection_threshold:0.8", nil},
		{"expandable segments", "expandable_segments:True", nil},
		{"spaces around tokens", " max_split_size_mb : 64 , expandable_segments : True ", nil},
		{"trailing comma", "expandable_segments:True,", nil},
		{"empty value", "", nil},
		{"roundup list", "roundup_power2_divisions:[256:1,512:2,1024:4]", nil},
		{"roundup list with zero divisions", "roundup_power2_divisions:[64:0,128:2]", nil},
		{"native backend", "backend:native,max_split_size_mb:512", nil},
		{"async backend alone", "backend:cudaMallocAsync", nil},
		{"max split 21", "max_split_size_mb:21", nil},
		{"rocm alias", "release_lock_on_hipmalloc:True,pinned_use_hip_host_register:False", nil},
		{"pinned threads", "pinned_use_cuda_host_register:True,pinned_num_register_threads:8", nil},
		{"max non split rounding", "max_non_split_rounding_mb:64", nil},

		// Unknown keys and spelling.
		{"typo", "expandable_segment:True", []want{{"CL011", "expandable_segment", "all", "did you mean expandable_segments?"}}},
		{"wrong case key", "Max_Split_Size_MB:128", []want{{"CL011", "Max_Split_Size_MB", "all", "did you mean max_split_size_mb?"}}},
		{"made-up key", "use_magic:True", []want{{"CL011", "use_magic", "all", `unknown allocator option "use_magic"`}}},
		{"equals sign", "max_split_size_mb=128", []want{{"CL011", "max_split_size_mb=128", "all", "write max_split_size_mb:128"}}},
		{"semicolon separator", "expandable_segments:True;max_split_size_mb:128", []want{
			{"CL011", "True;max_split_size_mb", "all", "separate options with ','"},
			{"CL011", ":", "all", "expected ',' between options"},
		}},
		{"stray comma", "expandable_segments:True,,max_split_size_mb:64", []want{{"CL011", ",", "all", "stray ','"}}},
		{"missing value", "expandable_segments:", []want{{"CL011", "expandable_segments:", "all", "has no value after ':'"}}},
		{"missing colon", "expandable_segments", []want{{"CL011", "expandable_segments", "all", "has no value"}}},
		{"unclosed list", "roundup_power2_divisions:[256:1,512:2", []want{{"CL011", "[256:1,512:2", "all", "no closing ']'"}}},

		// Booleans.
		{"lower-case true", "expandable_segments:true", []want{{"CL011", "true", "all", "(write True)"}}},
		{"numeric bool", "release_lock_on_cudamalloc:1", []want{{"CL011", "1", "all", "(write True)"}}},
		{"upper-case FALSE", "pinned_use_background_threads:FALSE", []want{{"CL011", "FALSE", "all", "(write False)"}}},

		// Sizes: the bound moved from > 20 (legacy) to >= 20 (2.10).
		{"max split 20", "max_split_size_mb:20", []want{{"CL011", "20", "<=2.9", "more than 20 MiB"}}},
		{"max split 8", "max_split_size_mb:8", []want{{"CL011", "8", "all", "below the minimum of 20 MiB"}}},
		{"max non split 10", "max_non_split_rounding_mb:10", []want{{"CL011", "10", "all", "below the minimum of 20 MiB"}}},
		{"max split with unit", "max_split_size_mb:128MB", []want{{"CL011", "128MB", "all", `silently ignores "MB"; write 128`}}},
		{"max split float", "max_split_size_mb:64.5", []want{{"CL011", "64.5", "all", "leading integer"}}},
		{"max split words", "max_split_size_mb:big", []want{{"CL011", "big", "all", "expects an integer"}}},
		{"max split negative", "max_split_size_mb:-1", []want{{"CL011", "-1", "all", "wraps around"}}},
		{"max split beyond int32", "max_split_size_mb:4294967296", []want{{"CL011", "4294967296", "<=2.9", "too large"}}},

		// garbage_collection_threshold is an open interval; per_process_memory_fraction closed.
		{"gc threshold 1", "garbage_collection_threshold:1.0", []want{{"CL011", "1.0", "all", "strictly between 0 and 1"}}},
		{"gc threshold 0", "garbage_collection_threshold:0", []want{{"CL011", "0", "all", "strictly between 0 and 1"}}},
		{"gc threshold percent", "garbage_collection_threshold:80%", []want{{"CL011", "80%", "all", "leading number"}, {"CL011", "80%", "all", "strictly between"}}},
		{"gc threshold text", "garbage_collection_threshold:high", []want{{"CL011", "high", "all", "expects a number"}}},
		{"fraction out of range", "per_process_memory_fraction:1.5", []want{
			{"CL011", "per_process_memory_fraction", "<=2.9", "not an allocator option before PyTorch 2.10"},
			{"CL011", "1.5", ">=2.10", "between 0 and 1"},
		}},
		{"fraction one", "per_process_memory_fraction:1", []want{
			{"CL011", "per_process_memory_fraction", "<=2.9", "before PyTorch 2.10"},
			{"CL012", "per_process_memory_fraction:1", ">=2.10", "sets no limit"},
		}},

		// roundup_power2_divisions.
		{"divisions not power of two", "roundup_power2_divisions:3", []want{{"CL011", "3", "all", "power of two"}}},
		{"divisions zero scalar", "roundup_power2_divisions:0", []want{{"CL011", "0", "all", "0 is rejected here"}}},
		{"interval not power of two", "roundup_power2_divisions:[300:2,>:4]", []want{{"CL011", "300", "all", "intervals must be a power of two"}}},
		{"list divisions not power of two", "roundup_power2_divisions:[256:3]", []want{{"CL011", "3", "all", "0 or a power of two"}}},
		{"malformed entry", "roundup_power2_divisions:[256,512:2]", []want{{"CL011", "256", "all", "entries are interval:divisions"}}},
		{"legacy > overwrite", "roundup_power2_divisions:[256:1,512:2,>:4]", []want{{"CL012", "512:2", "<=2.9", "'>' fill starts at the previous interval"}}},
		{"duplicate interval", "roundup_power2_divisions:[256:1,256:2]", []want{{"CL012", "256:1", "all", "set again by 256:2"}}},
		{"intervals clamp to 64 GiB", "roundup_power2_divisions:[32768:2,65536:4]", []want{{"CL012", "32768:2", "all", "set again by 65536:4"}}},
		{"empty list", "roundup_power2_divisions:[]", []want{{"CL012", "[]", "all", "empty list"}}},

		// backend.
		{"bad backend", "backend:async", []want{{"CL011", "async", "all", "did you mean cudaMallocAsync?"}}},
		{"backend wrong case", "backend:cudamallocasync", []want{{"CL011", "cudamallocasync", "all", "did you mean cudaMallocAsync?"}}},
		{"hip backend on cuda", "backend:hipMallocAsync", []want{{"CL011", "hipMallocAsync", "all", "only by ROCm builds"}}},
		{"backend with space after colon", "backend: cudaMallocAsync", []want{{"CL011", "backend: cudaMallocAsync", "<=2.9", "parsed at load time"}}},
		{"two backends", "backend:native,backend:cudaMallocAsync", []want{
			{"CL012", "backend:native", "all", "set again later"},
			{"CL011", "backend:cudaMallocAsync", "<=2.9", "disagrees with the backend chosen when torch was imported (native)"},
		}},
		{"async ignores native options", "backend:cudaMallocAsync,max_split_size_mb:128,garbage_collection_threshold:0.6,pinned_num_register_threads:4", []want{
			{"CL012", "max_split_size_mb:128", "all", "no effect with backend:cudaMallocAsync"},
			{"CL012", "garbage_collection_threshold:0.6", "all", "no effect with backend:cudaMallocAsync"},
		}},

		// Pinned host memory.
		{"threads not power of two", "pinned_num_register_threads:6", []want{{"CL011", "6", "all", "power of two"}}},
		{"threads above 128", "pinned_num_register_threads:256", []want{{"CL011", "256", "all", "at most 128"}}},
		{"reserve segment zero", "pinned_reserve_segment_size_mb:0", []want{
			{"CL011", "pinned_reserve_segment_size_mb", "<=2.9", "before PyTorch 2.10"},
			{"CL011", "0", ">=2.10", "greater than 0"},
		}},

		// Keys that later releases added.
		{"record stream reuse", "graph_capture_record_stream_reuse:True", []want{{"CL011", "graph_capture_record_stream_reuse", "<=2.9", "before PyTorch 2.10"}}},
		{"throw on oom", "throw_on_cudamalloc_oom:True", []want{{"CL011", "throw_on_cudamalloc_oom", "<=2.11", "before PyTorch 2.12"}}},
		{"reserve", "expandable_segments:True,expandable_segments_reserve:40G", []want{{"CL011", "expandable_segments_reserve", "<=2.14", "before PyTorch 2.15"}}},
		{"bad reserve", "expandable_segments:True,expandable_segments_reserve:lots", []want{
			{"CL011", "expandable_segments_reserve", "<=2.14", "before PyTorch 2.15"},
			{"CL011", "lots", ">=2.15", "warns and ignores it"},
		}},
		{"reserve without expandable segments", "expandable_segments_reserve:0.5", []want{
			{"CL011", "expandable_segments_reserve", "<=2.14", "before PyTorch 2.15"},
			{"CL012", "expandable_segments_reserve:0.5", ">=2.15", "without expandable_segments:True"},
		}},

		// Whitespace: legacy strips only ' ', ConfigTokenizer every isspace.
		{"newline before key", "max_split_size_mb:128,\nexpandable_segments:True", []want{{"CL011", "\nexpandable_segments", "<=2.9", "contains a tab or newline"}}},
		{"tab after value", "expandable_segments:True\t", []want{{"CL011", "True\t", "<=2.9", "contains a tab or newline"}}},

		// Settings that do nothing.
		{"expandable false", "expandable_segments:False", []want{{"CL012", "False", "all", "is the default"}}},
		{"duplicate key", "max_split_size_mb:128,max_split_size_mb:256", []want{{"CL012", "max_split_size_mb:128", "all", "later value wins"}}},
		{"duplicate through alias", "release_lock_on_cudamalloc:True,release_lock_on_hipmalloc:False", []want{{"CL012", "release_lock_on_cudamalloc:True", "all", "set again later (release_lock_on_hipmalloc:False)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := Parse(tt.value)
			if len(got) != len(tt.want) {
				t.Fatalf("Parse(%q): got %d problems, want %d:%s", tt.value, len(got), len(tt.want), describe(tt.value, got))
			}
			for i, w := range tt.want {
				p := got[i]
				at := tt.value[p.Offset:p.End]
				if p.Rule != w.rule || at != w.at || p.Versions != w.versions || !strings.Contains(p.Message, w.msg) {
					t.Errorf("Parse(%q) problem %d:\n got  %s %q %s: %s\n want %s %q %s: ...%s...", tt.value, i, p.Rule, at, p.Versions, p.Message, w.rule, w.at, w.versions, w.msg)
				}
			}
		})
	}
}

func TestParseSettings(t *testing.T) {
	const value = "max_split_size_mb:128, roundup_power2_divisions:[256:1,512:4],release_lock_on_hipmalloc:True"
	c, probs := Parse(value)
	if len(probs) != 0 {
		t.Fatalf("unexpected problems:%s", describe(value, probs))
	}
	if len(c.Settings) != 3 {
		t.Fatalf("got %d settings, want 3: %+v", len(c.Settings), c.Settings)
	}
	s, ok := c.Get("roundup_power2_divisions")
	if !ok || s.Value != "256:1,512:4" {
		t.Errorf("roundup_power2_divisions = %+v, want list text 256:1,512:4", s)
	}
	if s, ok := c.Get("release_lock_on_cudamalloc"); !ok || s.Written != "release_lock_on_hipmalloc" || s.Value != "True" {
		t.Errorf("alias not folded: %+v", s)
	}
	if s, _ := c.Get("max_split_size_mb"); s.KeyOffset != 0 || s.KeyEnd != 17 || s.ValOffset != 18 || s.ValEnd != 21 {
		t.Errorf("max_split_size_mb positions = %+v", s)
	}
}

func TestGCThresholdNeedsFraction(t *testing.T) {
	tests := []struct {
		value         string
		programSetsIt bool
		wantProblem   bool
	}{
		{"garbage_collection_threshold:0.8", false, true},
		{"garbage_collection_threshold:0.8", true, false},
		{"garbage_collection_threshold:0.8,per_process_memory_fraction:0.9", false, false},
		{"garbage_collection_threshold:0.8,per_process_memory_fraction:1.0", false, true},
		{"max_split_size_mb:128", false, false},
		// cudaMallocAsync ignores the threshold anyway; that finding is the async one.
		{"backend:cudaMallocAsync,garbage_collection_threshold:0.8", false, false},
	}
	for _, tt := range tests {
		c, _ := Parse(tt.value)
		got := c.ProgramProblems(ProgramContext{SetsMemoryFraction: tt.programSetsIt})
		if (len(got) == 1) != tt.wantProblem || len(got) > 1 {
			t.Errorf("ProgramProblems(%q, sets=%v) = %+v, want problem: %v", tt.value, tt.programSetsIt, got, tt.wantProblem)
			continue
		}
		if tt.wantProblem {
			p := got[0]
			if p.Rule != "CL012" || tt.value[p.Offset:p.End] != "garbage_collection_threshold:0.8" || !strings.Contains(p.Message, "set_per_process_memory_fraction") {
				t.Errorf("ProgramProblems(%q) = %+v", tt.value, p)
			}
			key, off, ok := c.NeedsMemoryFraction()
			if !ok || key != "garbage_collection_threshold" || off != p.Offset {
				t.Errorf("NeedsMemoryFraction(%q) = %q %d %v", tt.value, key, off, ok)
			}
		}
	}
}

func TestParseSegmentsSkipsHoles(t *testing.T) {
	tests := []struct {
		name string
		segs []Segment
		want []string // texts the problems point at
	}{
		{"f-string value", []Segment{{Text: "max_split_size_mb:"}, {Text: "{n}", Hole: true}, {Text: ",expandable_segments:true"}}, []string{"true"}},
		{"hole holds whole options", []Segment{{Text: "{base}", Hole: true}, {Text: ",max_split_size_mb:8"}}, []string{"8"}},
		{"hole with separators inside", []Segment{{Text: "expandable_segments:True,"}, {Text: "{a:b,c}", Hole: true}}, nil},
		{"literal concatenation", []Segment{{Text: "expandable_segments:"}, {Text: "True"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var full strings.Builder
			for _, s := range tt.segs {
				full.WriteString(s.Text)
			}
			c, got := ParseSegments(tt.segs)
			var at []string
			for _, p := range got {
				at = append(at, full.String()[p.Offset:p.End])
			}
			if strings.Join(at, "|") != strings.Join(tt.want, "|") {
				t.Errorf("problems at %q, want %q:%s", at, tt.want, describe(full.String(), got))
			}
			hasHole := false
			for _, s := range tt.segs {
				hasHole = hasHole || s.Hole
			}
			if c.Holes != hasHole {
				t.Errorf("Holes = %v, want %v", c.Holes, hasHole)
			}
		})
	}
	c, _ := ParseSegments([]Segment{{Text: "per_process_memory_fraction:"}, {Text: "{f}", Hole: true}, {Text: ",garbage_collection_threshold:0.8"}})
	if !c.SetsMemoryFraction() {
		t.Error("a non-literal per_process_memory_fraction must count as set (no false CL012)")
	}
}

func TestProblemText(t *testing.T) {
	_, ps := Parse("max_split_size_mb:20")
	if len(ps) != 1 || !strings.HasSuffix(ps[0].Text(), "(PyTorch <=2.9)") {
		t.Fatalf("Text() = %v", ps)
	}
	_, ps = Parse("expandable_segments:yes")
	if len(ps) != 1 || strings.Contains(ps[0].Text(), "(PyTorch") {
		t.Fatalf("Text() of an all-versions problem must not name versions: %v", ps)
	}
}

func TestJoinProfiles(t *testing.T) {
	tests := []struct {
		in   []bool
		want string
	}{
		{[]bool{true, true, true, true}, "all"},
		{[]bool{true, false, false, false}, "<=2.9"},
		{[]bool{false, true, true, true}, ">=2.10"},
		{[]bool{false, true, false, false}, "2.10-2.11"},
		{[]bool{true, true, true, false}, "<=2.14"},
		{[]bool{true, false, false, true}, "<=2.9, >=2.15"},
	}
	for _, tt := range tests {
		if got := joinProfiles(tt.in); got != tt.want {
			t.Errorf("joinProfiles(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"max_split_size_mb:128", "roundup_power2_divisions:[256:1,>:4]", "a:[", ",,:", "backend: cudaMallocAsync"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, ps := Parse(s)
		for _, p := range ps {
			if p.Offset < 0 || p.End > len(s) || p.Offset > p.End {
				t.Fatalf("Parse(%q): problem range [%d,%d) outside value", s, p.Offset, p.End)
			}
			if p.Rule != "CL011" && p.Rule != "CL012" {
				t.Fatalf("Parse(%q): rule %q", s, p.Rule)
			}
		}
	})
}
