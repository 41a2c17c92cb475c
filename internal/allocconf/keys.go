package allocconf

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// ValueForm is the shape of value a key takes.
type ValueForm int

const (
	// FormBool is exactly True or False (case-sensitive).
	FormBool ValueForm = iota
	// FormMB is an integer number of MiB with a lower bound of 20 (kLargeBuffer).
	FormMB
	// FormGCThreshold is a real number strictly between 0 and 1.
	FormGCThreshold
	// FormFraction is a real number in [0, 1].
	FormFraction
	// FormDivisions is a power of two, or a list [interval_mb:divisions,...,>:divisions].
	FormDivisions
	// FormBackend is native or cudaMallocAsync.
	FormBackend
	// FormThreads is a power of two, at most 128.
	FormThreads
	// FormPositiveInt is an integer greater than 0.
	FormPositiveInt
	// FormReserve is a fraction of device memory (0.5) or a size in GiB (40G).
	FormReserve
	// FormReserveByClass is a list [class:reserve,...].
	FormReserveByClass
)

// Key describes one allocator option.
type Key struct {
	Name string
	// Aliases are other spellings PyTorch accepts for the same option (ROCm's hip names).
	Aliases []string
	Form    ValueForm
	// Since is the first modelled release (2.Since) that accepts the key.
	Since int
	// Default is the value PyTorch uses when the key is absent, as written in a config.
	Default string
	// DeviceAllocator marks options that only the native caching allocator
	// (DeviceCachingAllocator in c10/cuda/CUDACachingAllocator.cpp) reads, so
	// backend:cudaMallocAsync ignores them.
	DeviceAllocator bool
	// Values says, for people, what the key accepts.
	Values string
	// Summary says what the key does.
	Summary string
	// Source is the PyTorch file and function that parse it.
	Source string
}

const (
	srcLegacy = "c10/cuda/CUDAAllocatorConfig.cpp CUDAAllocatorConfig::parseArgs (<=2.9)"
	srcAccel  = "c10/core/AllocatorConfig.cpp AcceleratorAllocatorConfig::parseArgs (>=2.10)"
	srcCUDA   = "c10/cuda/CUDAAllocatorConfig.cpp CUDAAllocatorConfig::parseArgs"
)

var keys = []Key{
	{
		Name: "backend", Form: FormBackend, Since: 8, Default: "native",
		Values:  "native | cudaMallocAsync (hipMallocAsync on ROCm builds)",
		Summary: "which device allocator serves CUDA memory; read when libc10_cuda is loaded, i.e. at import torch",
		Source:  srcCUDA + " parseAllocatorConfig; c10/cuda/CUDACachingAllocator.cpp BackendStaticInitializer",
	},
	{
		Name: "max_split_size_mb", Form: FormMB, Since: 8, Default: "unlimited", DeviceAllocator: true,
		Values:  "integer MiB; > 20 on <=2.9, >= 20 on >=2.10",
		Summary: "blocks larger than this are never split, which limits fragmentation of large blocks",
		Source:  srcLegacy + " parseMaxSplitSize; " + srcAccel + " parseMaxSplitSize",
	},
	{
		Name: "max_non_split_rounding_mb", Form: FormMB, Since: 8, Default: "20", DeviceAllocator: true,
		Values:  "integer MiB; same bounds as max_split_size_mb",
		Summary: "how much larger than the request an unsplittable cached block may be and still be reused",
		Source:  srcLegacy + " parseMaxNonSplitRoundingSize; " + srcAccel + " parseMaxNonSplitRoundingSize",
	},
	{
		Name: "garbage_collection_threshold", Form: FormGCThreshold, Since: 8, Default: "0 (off)", DeviceAllocator: true,
		Values:  "real number with 0 < value < 1",
		Summary: "reclaim old cached blocks once usage passes this fraction of the per-process memory limit (acts only when a memory fraction below 1 is set)",
		Source:  srcLegacy + " parseGarbageCollectionThreshold; " + srcAccel + " parseGarbageCollectionThreshold",
	},
	{
		Name: "roundup_power2_divisions", Form: FormDivisions, Since: 8, Default: "0 (no rounding)", DeviceAllocator: true,
		Values:  "power of two (applies to every size), or [interval_mb:divisions,...,>:divisions] with power-of-two intervals in MiB and divisions 0 or a power of two",
		Summary: "round allocation sizes up to one of N divisions between powers of two, so blocks are reusable",
		Source:  srcLegacy + " parseRoundUpPower2Divisions; " + srcAccel + " parseRoundUpPower2Divisions",
	},
	{
		Name: "expandable_segments", Form: FormBool, Since: 8, Default: "False", DeviceAllocator: true,
		Values:  "True | False",
		Summary: "grow one virtual-memory segment per stream instead of allocating new segments; the article's fragmentation fix",
		Source:  srcLegacy + "; " + srcAccel + " parseExpandableSegments",
	},
	{
		Name: "release_lock_on_cudamalloc", Aliases: []string{"release_lock_on_hipmalloc"}, Form: FormBool, Since: 8, Default: "False", DeviceAllocator: true,
		Values:  "True | False",
		Summary: "drop the allocator lock while cudaMalloc runs",
		Source:  srcCUDA,
	},
	{
		Name: "pinned_use_cuda_host_register", Aliases: []string{"pinned_use_hip_host_register"}, Form: FormBool, Since: 8, Default: "False",
		Values:  "True | False",
		Summary: "pinned host memory: malloc + cudaHostRegister instead of cudaHostAlloc",
		Source:  srcCUDA + " parsePinnedUseCudaHostRegister",
	},
	{
		Name: "pinned_num_register_threads", Form: FormThreads, Since: 8, Default: "1",
		Values:  "power of two, at most 128 (pinned_max_register_threads)",
		Summary: "threads used to register pinned host memory",
		Source:  srcCUDA + " parsePinnedNumRegisterThreads",
	},
	{
		Name: "pinned_use_background_threads", Form: FormBool, Since: 8, Default: "False",
		Values:  "True | False",
		Summary: "process pinned-memory events on a background thread",
		Source:  srcLegacy + " parsePinnedUseBackgroundThreads; " + srcAccel + " parsePinnedUseBackgroundThreads",
	},
	{
		Name: "pinned_reserve_segment_size_mb", Form: FormPositiveInt, Since: 10, Default: "0 (none)",
		Values:  "integer MiB > 0",
		Summary: "reserve one large pinned host segment up front and serve small pinned requests from it",
		Source:  srcCUDA + " parsePinnedReserveSegmentSize (pytorch#164501)",
	},
	{
		Name: "graph_capture_record_stream_reuse", Form: FormBool, Since: 10, Default: "False", DeviceAllocator: true,
		Values:  "True | False",
		Summary: "during CUDA graph capture, reuse record_stream blocks once the graph proves them free",
		Source:  srcCUDA + " parseGraphCaptureRecordStreamReuse (pytorch#158352)",
	},
	{
		Name: "per_process_memory_fraction", Form: FormFraction, Since: 10, Default: "1.0 (no limit)", DeviceAllocator: true,
		Values:  "real number with 0 <= value <= 1",
		Summary: "cap this process's caching allocator at a fraction of device memory, like torch.cuda.set_per_process_memory_fraction",
		Source:  srcCUDA + " parsePerProcessMemoryFraction (pytorch#161035)",
	},
	{
		Name: "throw_on_cudamalloc_oom", Form: FormBool, Since: 12, Default: "False", DeviceAllocator: true,
		Values:  "True | False",
		Summary: "raise OutOfMemoryError before cudaMalloc when the per-process limit would be exceeded",
		Source:  srcCUDA + " parseThrowOnCudaMallocOom (pytorch#179473)",
	},
	{
		Name: "pinned_free_catch_all", Form: FormBool, Since: 12, Default: "False",
		Values:  "True | False",
		Summary: "pinned host allocator option (release in which it first shipped not verified: modelled from 2.12)",
		Source:  srcCUDA + " parsePinnedFreeCatchAll",
	},
	{
		Name: "expandable_segments_reserve", Form: FormReserve, Since: 15, Default: "1.125 (9/8 of device memory)", DeviceAllocator: true,
		Values:  "fraction of device memory (0.5) or GiB with a G suffix (40G); a bad value is ignored with a warning",
		Summary: "virtual-address reservation of each expandable segment",
		Source:  srcCUDA + " parseExpandableSegmentsReserve, parseReserveSpec (pytorch#192269)",
	},
	{
		Name: "expandable_segments_reserve_by_class", Form: FormReserveByClass, Since: 15, Default: "none", DeviceAllocator: true,
		Values:  "[class:reserve,...] with reserves as for expandable_segments_reserve",
		Summary: "per-stream-class override of expandable_segments_reserve",
		Source:  srcCUDA + " parseExpandableSegmentsReserveByClass (pytorch#192269)",
	},
}

// Keys returns every modelled option, in the order the docs list them.
func Keys() []Key {
	return append([]Key(nil), keys...)
}

// LookupKey finds an option by name or alias.
func LookupKey(name string) (Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
		for _, a := range k.Aliases {
			if a == name {
				return k, true
			}
		}
	}
	return Key{}, false
}

// acceptedBy reports whether profile p knows the key.
func (k Key) acceptedBy(p Profile) bool { return k.Since <= p.Lo }

// suggest returns the option a misspelt name most likely meant, among those profile p
// accepts: a case-insensitive match first, else the nearest name within a third of its
// length in edits.
func suggest(name string, p Profile) string {
	best, bestDist := "", len(name)/3+1
	for _, k := range keys {
		if !k.acceptedBy(p) {
			continue
		}
		for _, cand := range append([]string{k.Name}, k.Aliases...) {
			if strings.EqualFold(cand, name) {
				return cand
			}
			if d := levenshtein.ComputeDistance(strings.ToLower(name), cand); d < bestDist {
				best, bestDist = cand, d
			}
		}
	}
	return best
}
