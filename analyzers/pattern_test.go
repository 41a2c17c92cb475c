package analyzers

import (
	"strings"
	"testing"
)

// TestGatedRegexp: a gated expression answers as the expression alone does. Each of
// reLoadModel's alternatives holds one of its literals (so the gate never turns a match
// away), and texts with and without a literal get the expression's answer.
func TestGatedRegexp(t *testing.T) {
	pattern := reLoadModel.String()
	if strings.ContainsAny(pattern, "()[]") {
		t.Fatalf("the check below splits %q at |: groups or classes would need a real parse", pattern)
	}
	for _, alt := range strings.Split(pattern, "|") {
		held := false
		for _, l := range reLoadModel.literals {
			held = held || strings.Contains(alt, l)
		}
		if !held {
			t.Errorf("alternative %q holds none of the gate's literals %q", alt, reLoadModel.literals)
		}
	}
	for _, s := range []string{"", "x = 1", "pipe = Pipe.from_pretrained(p)", "engine.wake_up()", "self.delete_lora_cache_entry(k)",
		"init_text_model()", "loader.next()", "evict(k)", "model.train()", "unload_lora_weights", "download(url)"} {
		if got, want := reLoadModel.MatchString(s), reLoadModel.Regexp.MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v, the expression says %v", s, got, want)
		}
	}
}
