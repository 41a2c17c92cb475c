package analyzers

import (
	"context"
	"maps"
	"os"
	"testing"

	"github.com/cachelint/cachelint/pyparse"
)

// TestGlobalSelfFromModel holds globalSelfOf, which reads the methods whose own body holds one
// of the model's global statements, to a walk of every method of every class as it was
// first written: on the fixture corpus and on the shapes that tell them apart (classes
// nested in methods, a method defined twice, a global in a nested function, a class that
// is no class of the model).
func TestGlobalSelfFromModel(t *testing.T) {
	inputs := map[string]string{
		"nested.py": "class A:\n    x = 1\n    def m(self):\n        class B:\n            y = 2\n            def n(self):\n                global w\n                w = self\n        global w\n        w = self\n    z = 3\n",
		"twice.py":  "class A:\n    def m(self):\n        global g\n        g = self\n    def m(self):\n        pass\nclass C:\n    def m(self):\n        pass\n    def m(self):\n        global h\n        h = self\n",
		"inner.py":  "class A:\n    def m(self):\n        def inner():\n            global g\n            g = self\n        f = lambda: inner()\n        inner()\n",
		"branch.py": "class A:\n    if flag:\n        a = 1\n    else:\n        b: int = 2\n    for i in range(3):\n        c = i\n    c += 1\n    d, e = 1, 2\n    @staticmethod\n    def s():\n        global k\n        k = self\n",
		"broken.py": "class (:\n    x = 1\nclass Ok:\n    y = 2\n    def m(self):\n        global q\n        q = self\n",
		"module.py": "global top\ntop = 1\ndef f():\n    global g\n    g = 2\n",
	}
	for _, files := range fixtureProjects(t) {
		for _, p := range files {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			inputs[p] = string(src)
		}
	}
	withGlobals := 0
	for path, src := range inputs {
		f, err := pyparse.ParseAlone(context.Background(), path, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got, want := globalSelfOf(f), globalSelfByWalk(f); !maps.Equal(got, want) {
			t.Errorf("%s: globalSelfOf %v, a walk of the methods finds %v", path, got, want)
		}
		if len(globalSelfByWalk(f)) > 0 {
			withGlobals++
		}
	}
	if withGlobals < 4 {
		t.Errorf("%d inputs bind a global to an instance: too few to tell", withGlobals)
	}
}

// globalSelfByWalk is globalSelfOf as a walk of every method of every class.
func globalSelfByWalk(f *pyparse.File) map[string]*pyparse.Class {
	if len(f.GlobalStatements()) == 0 {
		return nil
	}
	m := map[string]*pyparse.Class{}
	for _, cls := range f.Classes {
		for _, fn := range cls.Methods {
			globalsToSelf(f, fn, m)
		}
	}
	return m
}
