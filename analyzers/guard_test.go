package analyzers

import (
	"strings"
	"testing"
)

func TestGuardNamesTheFileAndGoesOn(t *testing.T) {
	var errs []error
	ran := 0
	for _, file := range []string{"a.py", "b.py", "c.py"} {
		guard(&errs, file, func() {
			ran++
			if file == "b.py" {
				panic("bug on b.py")
			}
		})
	}
	if ran != 3 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "b.py") {
		t.Fatalf("ran %d, errs %v", ran, errs)
	}
}
