package allocconf

import (
	"strings"
	"testing"

	"github.com/cachelint/cachelint/rules"
)

func TestIsCUDADevice(t *testing.T) {
	tests := map[string]bool{
		"cuda": true, "cuda:0": true, "cuda:12": true, "\tcuda:1\n": true,
		"cpu": false, "meta": false, "cuda:": false, "cuda:x": false, "cudagraph": false, "CUDA": false, "": false,
	}
	for in, want := range tests {
		if got := IsCUDADevice(in); got != want {
			t.Errorf("IsCUDADevice(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestInitializesCUDA(t *testing.T) {
	for _, name := range []string{"torch.cuda.init", "torch.cuda.set_device", "torch.cuda.mem_get_info", "torch.cuda.current_device", "torch.cuda.synchronize", ".cuda"} {
		if _, ok := InitializesCUDA(name); !ok {
			t.Errorf("InitializesCUDA(%q) = false, want true", name)
		}
	}
	// Look-alikes a CL010 check must not treat as CUDA initialisation.
	for _, name := range []string{"torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.memory_allocated", "torch.cuda.empty_cache", "torch.cuda.manual_seed"} {
		if _, ok := InitializesCUDA(name); ok {
			t.Errorf("InitializesCUDA(%q) = true, want false", name)
		}
		if !KnownNotToInitializeCUDA(name) {
			t.Errorf("KnownNotToInitializeCUDA(%q) = false, want true", name)
		}
	}
}

func TestEnvKnowledge(t *testing.T) {
	for _, name := range []string{"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"} {
		if !IsConfigVar(name) {
			t.Errorf("IsConfigVar(%q) = false", name)
		}
	}
	if IsConfigVar("PYTORCH_NPU_ALLOC_CONF") || IsConfigVar("CUDA_VISIBLE_DEVICES") {
		t.Error("IsConfigVar accepts a variable the CUDA allocator never reads")
	}
	if KeyReadTime("backend") != AtImport {
		t.Error("backend is read when torch is imported")
	}
	for _, k := range []string{"max_split_size_mb", "expandable_segments", "release_lock_on_hipmalloc"} {
		if KeyReadTime(k) != AtCUDAInit {
			t.Errorf("KeyReadTime(%q) should be AtCUDAInit", k)
		}
	}
}

func TestKeyTableComplete(t *testing.T) {
	doc := rules.All()
	var cl011 string
	for _, r := range doc {
		if r.Code == "CL011" {
			cl011 = r.Doc()
		}
	}
	if cl011 == "" {
		t.Fatal("rules/CL011.md is missing")
	}
	for _, k := range Keys() {
		if k.Source == "" || k.Values == "" || k.Summary == "" {
			t.Errorf("key %s lacks Source, Values or Summary", k.Name)
		}
		// `cachelint explain CL011` must list every accepted key.
		if !strings.Contains(cl011, "`"+k.Name+"`") {
			t.Errorf("rules/CL011.md does not list key %s", k.Name)
		}
		if got, ok := LookupKey(k.Name); !ok || got.Name != k.Name {
			t.Errorf("LookupKey(%q) = %v, %v", k.Name, got, ok)
		}
		for _, a := range k.Aliases {
			if got, _ := LookupKey(a); got.Name != k.Name {
				t.Errorf("alias %s resolves to %q, want %s", a, got.Name, k.Name)
			}
		}
	}
}
