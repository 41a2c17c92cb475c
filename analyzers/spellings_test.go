package analyzers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
)

// TestEverySpellingIsFound writes, for each entry of the knowledge tables, a training loop
// whose only cache-emptying call is that spelling, as a user writes it, and runs the
// production path (prefilter included) on it: each must be CL001. A spelling the prefilter
// lets slip gives "All checks passed!" and fails here.
func TestEverySpellingIsFound(t *testing.T) {
	spellings := analyzers.Spellings()
	if len(spellings) < 20 {
		t.Fatalf("only %d spellings listed", len(spellings))
	}
	for _, s := range spellings {
		for i, form := range userForms(s) {
			t.Run(fmt.Sprintf("%s/%d", s.Name, i), func(t *testing.T) {
				dir := t.TempDir()
				src := form.imports + `

def train(model, loader, optimizer, helper):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        ` + form.call + `  # want "CL001"
`
				if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				analyzertest.Run(t, dir, analyzers.StepLoop)
			})
		}
	}
}

type userForm struct{ imports, call string }

// userForms are the ways a user writes a spelling: imported from its module, or through
// the module; a name helper imported from anywhere; a method on a variable.
func userForms(s analyzers.Spelling) []userForm {
	switch s.Kind {
	case analyzers.NameSpelling:
		return []userForm{{"from somelib.testing import " + s.Name, s.Name + `("cuda")`}}
	case analyzers.MethodSpelling:
		recv, _, _ := strings.Cut(s.Name, ".")
		return []userForm{{"from somelib import Thing\n\n" + recv + " = Thing()", s.Name + "()"}}
	}
	if pre, rest, ok := strings.Cut(s.Name, "()."); ok {
		// deepspeed.accelerator.get_accelerator().empty_cache
		mod, fn := split(pre)
		return []userForm{
			{"from " + mod + " import " + fn, fn + "()." + rest + "()"},
			{"import " + mod, pre + "()." + rest + "()"},
		}
	}
	mod, fn := split(s.Name)
	return []userForm{
		{"import " + mod, s.Name + "()"},
		{"from " + mod + " import " + fn, fn + "()"},
	}
}

func split(q string) (mod, name string) {
	i := strings.LastIndex(q, ".")
	return q[:i], q[i+1:]
}
