package allocconf

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// assignRE matches a plain (non-f) string literal assigned to an allocator variable, and
// its optional `# want "..."` expectation.
var assignRE = regexp.MustCompile(`os\.environ\["(PYTORCH_(?:CUDA_|HIP_)?ALLOC_CONF)"\] = "([^"]*)"\s*(?:# want "([^"]*)")?$`)

// TestFixturesAgreeWithParse keeps the analyzer fixtures honest about what this package
// reports for a whole literal: a `# want` line must produce a matching problem, any other
// literal assignment none (the program-level CL012 aside, which needs the analyzer).
func TestFixturesAgreeWithParse(t *testing.T) {
	for _, name := range []string{"cl011_invalid.py", "cl012_settings.py"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "src", "allocconf", name))
		if err != nil {
			t.Fatalf("read fixture: %v", err)
		}
		checked := 0
		for i, line := range regexp.MustCompile(`\r?\n`).Split(string(data), -1) {
			m := assignRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			checked++
			_, probs := Parse(m[2])
			if m[3] == "" {
				if len(probs) != 0 {
					t.Errorf("%s:%d: %q should be silent, got %v", name, i+1, m[2], probs)
				}
				continue
			}
			re := regexp.MustCompile(m[3])
			found := false
			for _, p := range probs {
				found = found || re.MatchString(p.Text())
			}
			if !found {
				t.Errorf("%s:%d: no problem of %q matches %q: %v", name, i+1, m[2], m[3], probs)
			}
		}
		if checked < 5 {
			t.Fatalf("%s: only %d assignments recognised; the fixture or the pattern changed", name, checked)
		}
	}
}
