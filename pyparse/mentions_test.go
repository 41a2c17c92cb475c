package pyparse

import "testing"

func TestIdentSet(t *testing.T) {
	set := newIdentSet([]string{"empty_cache", "free_gpu"})
	for src, want := range map[string]bool{
		"torch.cuda.empty_cache()":       true,
		"x = 'free_gpu'":                 true,
		"my_empty_cache_helper()":        false, // whole tokens only
		"empty_cachex":                   false,
		"free_gpu_memory()":              false,
		"# nothing\n":                    false,
		"é = free_gpu":                   true,
		"":                               false,
		"\xff\xfe empty_cache \x00 junk": true,
	} {
		var sig signature
		if got := set.scan([]byte(src), &sig); got != want {
			t.Errorf("scan(%q) = %v, want %v", src, got, want)
		}
		// The signature never loses a name the file mentions.
		if want && !set.mayMention(&sig) {
			t.Errorf("signature of %q lost a name", src)
		}
	}
}

func TestSignatureFiltersLaterRounds(t *testing.T) {
	var sig signature
	newIdentSet([]string{"empty_cache"}).scan([]byte("def train(loader):\n    for batch in loader:\n        step(batch)\n"), &sig)
	if !newIdentSet([]string{"step"}).mayMention(&sig) {
		t.Fatal("a name the file mentions was filtered out")
	}
	misses := 0
	for _, name := range []string{"free_gpu_memory", "cleanup_cuda", "release_all", "flush_allocator", "clear_mem"} {
		if !newIdentSet([]string{name}).mayMention(&sig) {
			misses++
		}
	}
	if misses < 4 {
		t.Errorf("signature lets through %d of 5 absent names", 5-misses)
	}
}

// TestIdentSetPairs: a dotted needle matches a file that mentions both of its parts, in
// either order and anywhere, and no file that mentions only one.
func TestIdentSetPairs(t *testing.T) {
	set := newIdentSet([]string{"accelerator.clear", "empty_cache"})
	for src, want := range map[string]bool{
		"accelerator.clear()":      true,
		"self.accelerator.clear()": true,
		"d.clear()":                false,
		"from accelerate import Accelerator\nacc = accelerator\nacc.clear()": true,
		"accelerator.backward(loss)":                                         false,
		"clear(); accelerator":                                               true,
		"torch.cuda.empty_cache()":                                           true,
	} {
		var sig signature
		if got := set.scan([]byte(src), &sig); got != want {
			t.Errorf("scan(%q) = %v, want %v", src, got, want)
		}
		if want && !set.mayMention(&sig) {
			t.Errorf("signature of %q lost a pair", src)
		}
	}
	var sig signature
	newIdentSet([]string{"x"}).scan([]byte("d.clear()"), &sig)
	if newIdentSet([]string{"accelerator.clear"}).mayMention(&sig) && newIdentSet([]string{"accelerator"}).mayMention(&sig) {
		t.Error("signature lets a pair through on one part")
	}
}
