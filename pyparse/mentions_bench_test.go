package pyparse

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// firstRound are the prefilter's first-round needles as analyzers.Needles gives them
// (spelt out here: pyparse's tests cannot import analyzers).
var firstRound = []string{"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF",
	"accelerator.clear", "accelerator.free_memory", "backend_empty_cache", "clear_device_cache",
	"empty_cache", "garbage_collection_cuda", "release_memory"}

// laterRound are needles like a later round's on a real project: `module.helper` pairs of
// every path component of a helper's module with its name, the names being ones real code
// uses for other things (train, forward, flush, cleanup, ...).
func laterRound() []string {
	var out []string
	for _, h := range []string{"train", "forward", "flush", "cleanup", "evaluate", "inference",
		"free_memory", "log_validation", "preprocess", "step", "model", "loss"} {
		for _, m := range []string{"utils", "memory", "src", "examples", "pkg0", "pkg1", "trainers",
			"pipelines", "testing_utils", "torch_utils", "training_utils", "memory_utils"} {
			out = append(out, m+"."+h)
		}
	}
	return out
}

// BenchmarkScan measures the prefilter's hot path, identSet.scan, which every file in scope
// goes through in the first round (and again in a later round when its signature may mention
// a new needle): one pass over the bytes, a lookup per identifier of a needle's length and
// first letter, and the file's identifier signature. The text is the example training
// script repeated to about 300 KB.
//
//	go test ./pyparse -run '^$' -bench Scan -benchtime 3x   (checks it runs)
//	go test ./pyparse -run '^$' -bench Scan -count 5        (numbers)
//
// first-round/miss: a file that does not mention the cache (most files: the whole text is
// looked up); first-round/hit: one that does near its top (lookups stop, the signature goes
// on); later-round/miss: ~150 pair needles whose helper half (train, step, loss, model) the
// file mentions all over while no module half is there; signature: the check that spares a
// later round reading a file again.
func BenchmarkScan(b *testing.B) {
	data, err := os.ReadFile("../examples/train.py")
	if err != nil {
		b.Fatal(err)
	}
	hit := []byte(strings.Repeat(string(data), 250))
	miss := []byte(strings.ReplaceAll(string(hit), "empty_cache", "synchronize"))
	for _, c := range []struct {
		name    string
		needles []string
		src     []byte
		want    bool
	}{
		{"first-round/miss", firstRound, miss, false},
		{"first-round/hit", firstRound, hit, true},
		{"later-round/miss", laterRound(), miss, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			set := newIdentSet(c.needles)
			b.SetBytes(int64(len(c.src)))
			for b.Loop() {
				var sig signature
				if got := set.scan(c.src, &sig, false); got != c.want {
					b.Fatalf("scan = %v, want %v", got, c.want)
				}
			}
		})
	}
	b.Run("signature", func(b *testing.B) {
		var sig signature
		newIdentSet(nil).scan(miss, &sig, false)
		sets := make([]*identSet, 16)
		for i := range sets {
			sets[i] = newIdentSet(append(laterRound(), fmt.Sprintf("helper_%d", i)))
		}
		i := 0
		for b.Loop() {
			sets[i%len(sets)].mayMention(&sig)
			i++
		}
	})
}
