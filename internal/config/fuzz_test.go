package config

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the reader as both file kinds: it must never panic,
// and every rejection must be a *Error naming the file.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"select = [\"CL001\"]\n",
		"[tool.cachelint]\nselect = [\"CL00\"]\n[tool.cachelint.per-file-ignores]\n\"t/*\" = [\"CL001\"]\n",
		"per-file-ignores = { \"a\" = [\"x\"] }\n",
		"tool.cachelint.select = [[1]]\n",
		"[[tool.cachelint]]\n",
		"respect-gitignore = tru\n",
		"a.b.c = 1\n[a]\n",
		"\uFEFFselect = []\r\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"cachelint.toml", "pyproject.toml"} {
			c, err := parse(name, data)
			if err != nil {
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("%s: error %v (%T) is not a *Error", name, err, err)
				}
				if !strings.HasPrefix(err.Error(), name+":") {
					t.Fatalf("%s: error %q does not start with the file name", name, err)
				}
				continue
			}
			if c == nil {
				t.Fatalf("%s: nil Config and nil error", name)
			}
			_ = c.IgnoredFor("src/a.py")
		}
	})
}
