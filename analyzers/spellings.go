package analyzers

import (
	"sort"
	"strings"

	"github.com/cachelint/cachelint/internal/allocconf"
	"github.com/cachelint/cachelint/pyparse"
)

// directCallees are the fully qualified spellings of torch's cache-emptying functions
// (SPEC §2). Aliases are resolved to these through the file's imports first.
var directCallees = map[string]bool{
	"torch.cuda.empty_cache":               true,
	"torch.cuda.memory.empty_cache":        true,
	"torch.accelerator.empty_cache":        true,
	"torch.accelerator.memory.empty_cache": true,
	"torch.mps.empty_cache":                true,
	"torch.xpu.empty_cache":                true,
	"torch.npu.empty_cache":                true,
	"torch.mlu.empty_cache":                true,
	"torch.musa.empty_cache":               true,
}

// libraryHelpers are third-party functions known to empty the cache, by qualified name or,
// for methods, by the suffix after the receiver. Keep this list as data: extend it here.
var libraryHelpers = map[string]string{
	"accelerate.utils.release_memory":                            "accelerate's release_memory() calls torch.cuda.empty_cache()",
	"accelerate.utils.memory.release_memory":                     "accelerate's release_memory() calls torch.cuda.empty_cache()",
	"accelerate.utils.memory.clear_device_cache":                 "accelerate's clear_device_cache() calls the device's empty_cache()",
	"accelerate.utils.clear_device_cache":                        "accelerate's clear_device_cache() calls the device's empty_cache()",
	"lightning.pytorch.utilities.memory.garbage_collection_cuda": "Lightning's garbage_collection_cuda() calls torch.cuda.empty_cache()",
	"pytorch_lightning.utilities.memory.garbage_collection_cuda": "Lightning's garbage_collection_cuda() calls torch.cuda.empty_cache()",
	"lightning.pytorch.utilities.garbage_collection_cuda":        "Lightning's garbage_collection_cuda() calls torch.cuda.empty_cache()",
	"pytorch_lightning.utilities.garbage_collection_cuda":        "Lightning's garbage_collection_cuda() calls torch.cuda.empty_cache()",
	"lightning.fabric.utilities.memory.garbage_collection_cuda":  "Lightning's garbage_collection_cuda() calls torch.cuda.empty_cache()",
	"deepspeed.accelerator.get_accelerator().empty_cache":        "DeepSpeed's accelerator empty_cache() is torch.cuda.empty_cache() on CUDA",
	"deepspeed.runtime.utils.empty_cache":                        "DeepSpeed's runtime.utils.empty_cache() calls the accelerator's empty_cache()",
}

// oomRetryDecorators are decorators that run the function they wrap again after an
// out-of-memory error, with the cache emptied between attempts: the function's once-run code
// runs once per attempt. accelerate's find_executable_batch_size (src/accelerate/utils/
// memory.py: `while True: try: return function(batch_size, ...) except Exception as e: if
// should_reduce_batch_size(e): clear_device_cache(...); batch_size = reduce_batch_size_fn()`);
// transformers re-exports it (transformers/trainer_utils.py).
var oomRetryDecorators = map[string]bool{
	"accelerate.find_executable_batch_size":                 true,
	"accelerate.utils.find_executable_batch_size":           true,
	"accelerate.utils.memory.find_executable_batch_size":    true,
	"transformers.trainer_utils.find_executable_batch_size": true,
}

// nameHelpers are well-known helper names matched on the last part of the callee, for
// libraries whose helpers are usually re-imported through the project's own modules
// (Hugging Face's testing utilities dispatch through a table of device functions).
var nameHelpers = map[string]string{
	"backend_empty_cache": "Hugging Face's backend_empty_cache() calls the device's empty_cache()",
}

// methodHelpers are methods that empty the cache, matched on the receiver's dotted name
// ending (`accelerator.free_memory()`, `self.accelerator.free_memory()`).
var methodHelpers = map[string]string{
	"accelerator.free_memory": "accelerate's Accelerator.free_memory() calls release_memory(), which empties the cache",
	"accelerator.clear":       "accelerate's Accelerator.clear() calls free_memory(), which empties the cache",
}

// inspectsCallables are functions that take a function without calling it (Python's
// documentation of the builtins, inspect, functools and weakref): a project function passed
// to them is looked at, not run (`inspect.signature(self._rerank)`), so the call is no
// callback of it.
var inspectsCallables = map[string]bool{
	"id": true, "hash": true, "repr": true, "str": true, "print": true, "type": true, "vars": true, "dir": true,
	"isinstance": true, "issubclass": true, "callable": true, "hasattr": true, "getattr": true, "setattr": true,
	"inspect.signature": true, "inspect.getfullargspec": true, "inspect.getsource": true, "inspect.getsourcelines": true,
	"inspect.getfile": true, "inspect.getmodule": true, "inspect.getdoc": true, "inspect.unwrap": true,
	"inspect.isfunction": true, "inspect.ismethod": true, "inspect.iscoroutinefunction": true,
	"inspect.isgeneratorfunction": true, "inspect.isasyncgenfunction": true, "asyncio.iscoroutinefunction": true,
	"functools.wraps": true, "functools.update_wrapper": true, "weakref.ref": true, "weakref.WeakMethod": true,
	"typing.cast": true, "typing.get_type_hints": true,
}

// Needles are what a file must mention to be parsed at all, derived from the tables above
// so that a spelling added there is found: the last name of every direct and library
// spelling, every name helper, each method helper as a "receiver.method" pair (a file must
// mention both), the allocator-config variables, and the project's extra helpers. Helpers
// found in parsed files add their own names later (CacheCalls).
func Needles(extraHelpers []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	last := func(q string) string { return q[strings.LastIndex(q, ".")+1:] }
	for q := range directCallees {
		add(last(q))
	}
	for q := range libraryHelpers {
		add(last(q))
	}
	for n := range nameHelpers {
		add(n)
	}
	for suffix := range methodHelpers {
		add(suffix) // "accelerator.clear": the identifier set matches both tokens
	}
	for _, v := range allocconf.EnvVars() {
		add(pyparse.TextName(v.Name)) // named by a string, as a rule
	}
	for _, e := range extraHelpers {
		add(last(strings.TrimSpace(e)))
	}
	sort.Strings(out)
	return out
}

// directCallee reports whether a qualified callee is a direct cache-emptying call, and the
// spelling to show. torchModule is true when the receiver is known to be a torch device
// module (`getattr(torch, device).empty_cache`, a variable bound to `torch.cuda`).
func directCallee(q string) (string, bool) {
	if directCallees[q] {
		return q, true
	}
	if !strings.HasSuffix(q, ".empty_cache") {
		return "", false
	}
	recv := strings.TrimSuffix(q, ".empty_cache")
	switch {
	case recv == "get_accelerator()" || strings.HasSuffix(recv, ".get_accelerator()"):
		return "get_accelerator().empty_cache", true
	case recv == "getattr(torch)":
		return "getattr(torch, ...).empty_cache", true
	case recv == "torch.get_device_module()":
		return q, true
	case strings.HasPrefix(recv, "torch.") && !strings.Contains(recv, "()"):
		// torch.<device>.empty_cache for a device backend not listed above.
		return q, true
	}
	return "", false
}

// libraryHelper reports whether a qualified callee is a known library helper.
func libraryHelper(q string) (string, bool) {
	if why, ok := libraryHelpers[q]; ok {
		return why, true
	}
	if why, ok := nameHelpers[q[strings.LastIndex(q, ".")+1:]]; ok {
		return why, true
	}
	for suffix, why := range methodHelpers {
		if q == suffix || strings.HasSuffix(q, "."+suffix) {
			return why, true
		}
	}
	return "", false
}

// SpellingKind says which table a known spelling comes from.
type SpellingKind string

// The tables of known spellings.
const (
	DirectSpelling  SpellingKind = "direct"  // torch's own entry points
	LibrarySpelling SpellingKind = "library" // a library helper, by its qualified name
	NameSpelling    SpellingKind = "name"    // a library helper, by its name wherever it comes from
	MethodSpelling  SpellingKind = "method"  // a library method, "receiver.method"
)

// Spelling is one entry of the knowledge tables.
type Spelling struct {
	Name string
	Kind SpellingKind
}

// Spellings lists every entry of the knowledge tables, sorted by name: what the prefilter
// must let through and CacheCalls must find.
func Spellings() []Spelling {
	var out []Spelling
	for q := range directCallees {
		out = append(out, Spelling{q, DirectSpelling})
	}
	for q := range libraryHelpers {
		out = append(out, Spelling{q, LibrarySpelling})
	}
	for n := range nameHelpers {
		out = append(out, Spelling{n, NameSpelling})
	}
	for m := range methodHelpers {
		out = append(out, Spelling{m, MethodSpelling})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
