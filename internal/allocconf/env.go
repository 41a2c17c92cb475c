package allocconf

import "strings"

// EnvVar is an environment variable PyTorch reads the allocator config from.
type EnvVar struct {
	Name string
	// Versions are the releases that read it for the CUDA caching allocator.
	Versions string
	// ROCmOnly: only ROCm builds read it.
	ROCmOnly bool
	Note     string
}

// EnvVars lists the variables, with when each is honoured.
//
// <=2.9: CUDAAllocatorConfig::instance() (c10/cuda/CUDAAllocatorConfig.h) reads
// PYTORCH_CUDA_ALLOC_CONF, and on ROCm falls back to PYTORCH_HIP_ALLOC_CONF. 2.9 also has
// AcceleratorAllocatorConfig::instance() (c10/core/AllocatorConfig.cpp), which reads
// PYTORCH_ALLOC_CONF first and warns "PYTORCH_CUDA_ALLOC_CONF is deprecated", but the
// CUDA allocator does not consult it, so on 2.9 PYTORCH_ALLOC_CONF is silently ignored
// for CUDA (pytorch#183387, verified on 2.9.1; fixed by 2.11.0).
//
// >=2.10: the device-generic keys (max_split_size_mb, max_non_split_rounding_mb,
// garbage_collection_threshold, roundup_power2_divisions, expandable_segments,
// pinned_use_background_threads) come from AcceleratorAllocatorConfig, which takes the
// first of PYTORCH_ALLOC_CONF, PYTORCH_CUDA_ALLOC_CONF, PYTORCH_HIP_ALLOC_CONF that is
// set; the CUDA-specific keys come from CUDAAllocatorConfig::instance(), which takes
// PYTORCH_CUDA_ALLOC_CONF, then (ROCm) PYTORCH_HIP_ALLOC_CONF, then PYTORCH_ALLOC_CONF.
// With both PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF set, each family of keys is
// therefore read from a different variable.
var envVars = []EnvVar{
	{Name: "PYTORCH_CUDA_ALLOC_CONF", Versions: "all", Note: "the long-standing name; >=2.9 warns that it is deprecated in favour of PYTORCH_ALLOC_CONF"},
	{Name: "PYTORCH_ALLOC_CONF", Versions: ">=2.10", Note: "device-generic name; on 2.9 the CUDA allocator ignores it"},
	{Name: "PYTORCH_HIP_ALLOC_CONF", Versions: "all", ROCmOnly: true, Note: "read by ROCm builds when PYTORCH_CUDA_ALLOC_CONF is unset"},
}

// EnvVars returns the allocator config variables.
func EnvVars() []EnvVar { return append([]EnvVar(nil), envVars...) }

// IsConfigVar reports whether name is an allocator config variable.
func IsConfigVar(name string) bool {
	for _, v := range envVars {
		if v.Name == name {
			return true
		}
	}
	return false
}

// ReadTime is when PyTorch reads a key from the environment.
type ReadTime int

const (
	// AtCUDAInit: when the CUDA caching allocator is first initialised (the first
	// operation that initialises CUDA; see InitializesCUDA). Setting the variable after
	// import torch but before that is fine.
	AtCUDAInit ReadTime = iota
	// AtImport: when libc10_cuda is loaded, i.e. at import torch.
	AtImport
)

// KeyReadTime says when a key is read. backend is read by the static initializer
// BackendStaticInitializer in c10/cuda/CUDACachingAllocator.cpp, which runs when the
// shared library loads (import torch); every other key is parsed by
// CUDAAllocatorConfig::instance() / AcceleratorAllocatorConfig::instance() on first use,
// which is the caching allocator's initialisation (NativeCachingAllocator::init from
// torch._C._cuda_init). After that, changing os.environ has no effect; only
// torch.cuda.memory._set_allocator_settings (private) re-parses.
func KeyReadTime(key string) ReadTime {
	if canonical(key) == "backend" {
		return AtImport
	}
	return AtCUDAInit
}

// CUDAInitCall is a torch API whose call initialises CUDA (torch.cuda._lazy_init or the
// C++ lazyInitDevice), after which allocator settings from the environment are fixed.
type CUDAInitCall struct {
	// Name is the dotted path under torch ("torch.cuda.set_device"), or, for methods,
	// ".name" (".cuda").
	Name string
	// Why cites the source.
	Why string
}

// cudaInitCalls come from torch/cuda/__init__.py (functions that call _lazy_init(), or
// call into torch._C functions that lazily initialise CUDA) and torch/cuda/memory.py.
var cudaInitCalls = []CUDAInitCall{
	{"torch.cuda.init", "torch/cuda/__init__.py init(): calls _lazy_init()"},
	{"torch.cuda._lazy_init", "torch/cuda/__init__.py _lazy_init()"},
	{"torch.cuda.current_device", "torch/cuda/__init__.py current_device(): _lazy_init()"},
	{"torch.cuda.set_device", "torch/cuda/__init__.py set_device() -> torch._C._cuda_setDevice, which lazily initialises CUDA"},
	{"torch.cuda.device", "torch/cuda/__init__.py device.__enter__(): _lazy_init()"},
	{"torch.cuda.synchronize", "torch/cuda/__init__.py synchronize(): _lazy_init()"},
	{"torch.cuda.get_device_properties", "torch/cuda/__init__.py get_device_properties(): _lazy_init()"},
	{"torch.cuda.get_device_name", "torch/cuda/__init__.py get_device_name() -> get_device_properties()"},
	{"torch.cuda.get_device_capability", "torch/cuda/__init__.py get_device_capability() -> get_device_properties()"},
	{"torch.cuda.current_stream", "torch/cuda/__init__.py current_stream(): _lazy_init()"},
	{"torch.cuda.default_stream", "torch/cuda/__init__.py default_stream(): _lazy_init()"},
	{"torch.cuda.ipc_collect", "torch/cuda/__init__.py ipc_collect(): _lazy_init()"},
	{"torch.cuda.current_blas_handle", "torch/cuda/__init__.py current_blas_handle(): _lazy_init()"},
	{"torch.cuda.cudart", "torch/cuda/__init__.py cudart(): _lazy_init()"},
	{"torch.cuda.mem_get_info", "torch/cuda/memory.py mem_get_info() -> torch.cuda.cudart().cudaMemGetInfo"},
	{"torch.cuda.memory.mem_get_info", "torch/cuda/memory.py mem_get_info()"},
	{"torch.cuda.set_per_process_memory_fraction", "torch/cuda/memory.py set_per_process_memory_fraction(): _lazy_init()"},
	{"torch.cuda.memory.set_per_process_memory_fraction", "torch/cuda/memory.py set_per_process_memory_fraction(): _lazy_init()"},
	{".cuda", "Tensor.cuda() / Module.cuda() allocate on the device, which initialises CUDA"},
}

// notCUDAInitCalls are look-alikes that do not initialise CUDA, so an allocator setting
// after them still takes effect.
var notCUDAInitCalls = []CUDAInitCall{
	{"torch.cuda.is_available", "torch/cuda/__init__.py is_available(): driver check and device count only"},
	{"torch.cuda.device_count", "torch/cuda/__init__.py device_count(): no _lazy_init()"},
	{"torch.cuda.is_initialized", "torch/cuda/__init__.py is_initialized()"},
	{"torch.cuda.manual_seed", "torch/cuda/random.py: queued with _lazy_call until CUDA initialises"},
	{"torch.cuda.manual_seed_all", "torch/cuda/random.py: queued with _lazy_call until CUDA initialises"},
	{"torch.cuda.empty_cache", "torch/cuda/memory.py empty_cache(): acts only if is_initialized()"},
	{"torch.cuda.memory_stats", "torch/cuda/memory.py memory_stats_as_nested_dict(): returns {} if not is_initialized()"},
	{"torch.cuda.memory_allocated", "torch/cuda/memory.py: via memory_stats()"},
	{"torch.cuda.memory_reserved", "torch/cuda/memory.py: via memory_stats()"},
	{"torch.cuda.max_memory_allocated", "torch/cuda/memory.py: via memory_stats()"},
	{"torch.cuda.max_memory_reserved", "torch/cuda/memory.py: via memory_stats()"},
}

// CUDAInitCalls returns the torch calls that initialise CUDA.
func CUDAInitCalls() []CUDAInitCall { return append([]CUDAInitCall(nil), cudaInitCalls...) }

// InitializesCUDA reports whether a call to the resolved dotted name (e.g.
// "torch.cuda.set_device", or ".cuda" for a method) initialises CUDA. Device arguments
// (.to("cuda"), device="cuda") are judged with IsCUDADevice.
func InitializesCUDA(name string) (CUDAInitCall, bool) {
	for _, c := range cudaInitCalls {
		if c.Name == name {
			return c, true
		}
	}
	return CUDAInitCall{}, false
}

// KnownNotToInitializeCUDA reports whether name is a torch.cuda call verified not to
// initialise CUDA (torch.cuda.is_available and friends).
func KnownNotToInitializeCUDA(name string) bool {
	for _, c := range notCUDAInitCalls {
		if c.Name == name {
			return true
		}
	}
	return false
}

// IsCUDADevice reports whether a device string literal names a CUDA device, so that a
// tensor created with device=... or moved with .to(...) initialises CUDA: "cuda",
// "cuda:0", " cuda:1" are; "cpu", "meta", "cudagraph" are not.
func IsCUDADevice(s string) bool {
	s = strings.TrimSpace(s)
	if s == "cuda" {
		return true
	}
	rest, ok := strings.CutPrefix(s, "cuda:")
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return false
		}
	}
	return true
}
