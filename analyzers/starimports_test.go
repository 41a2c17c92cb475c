package analyzers

import (
	"context"
	"fmt"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/pyparse"
)

// writeFiles writes files (slash paths -> texts) under a temporary directory, and returns it
// and the files' paths.
func writeFiles(t *testing.T, files map[string]string) (dir string, paths []string) {
	t.Helper()
	dir = t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return dir, paths
}

// starProject writes files (slash paths) under a temporary directory and parses them all.
func starProject(t *testing.T, files map[string]string) (*project, map[string]*pyparse.File) {
	t.Helper()
	return starProjectMatching(t, files, []string{""})
}

// starProjectMatching is starProject parsing only the files that mention one of needles.
func starProjectMatching(t *testing.T, files map[string]string, needles []string) (*project, map[string]*pyparse.File) {
	t.Helper()
	dir, paths := writeFiles(t, files)
	res := pyparse.NewResult(paths, os.ReadFile, token.NewFileSet(), 1)
	if err := res.ParseMatching(context.Background(), needles); err != nil {
		t.Fatal(err)
	}
	proj := newProject(dir, paths, res)
	proj.reindex()
	byName := map[string]*pyparse.File{}
	for _, f := range res.Files {
		rel, _ := filepath.Rel(dir, f.Path)
		byName[filepath.ToSlash(rel)] = f
	}
	return proj, byName
}

// TestClassLookupThroughStarImports: a class lookup through packages that star-import each
// other searches each module for a name once, unless it comes to it with more depth left.
// The package reaches mid.py first through a chain of seven re-exports, where the depth runs
// out before mid.py's own star import is followed, then directly: the class below mid.py is
// found (fails when a module searched in vain is never searched again). A missing name in a
// package whose modules star-import the four modules of the next level, seven levels deep,
// is looked for in each module once (fails, with some twenty thousand searches, when
// every path is followed), and a lookup is kept for the round.
func TestClassLookupThroughStarImports(t *testing.T) {
	files := map[string]string{
		"train.py":        "from pkg import *\n\ntrainer = Target()\n",
		"pkg/__init__.py": "from .long1 import *\nfrom .mid import *\n",
		"pkg/mid.py":      "from .deep import *\n",
		"pkg/deep.py":     "class Target:\n    pass\n",
		"pkg/long7.py":    "from .mid import *\n",
	}
	for i := 1; i < 7; i++ {
		files[fmt.Sprintf("pkg/long%d.py", i)] = fmt.Sprintf("from .long%d import *\n", i+1)
	}
	proj, byName := starProject(t, files)
	cr := proj.lookupClass(byName["train.py"], "Target")
	if cr == nil || cr.file != byName["pkg/deep.py"] || cr.cls.Name != "Target" {
		t.Fatalf("Target found as %+v, want pkg/deep.py's", cr)
	}

	files = map[string]string{"train.py": "from pkg import *\n\nobj.step()\n"}
	const levels, width = 7, 4
	for w := range width {
		files["pkg/__init__.py"] += fmt.Sprintf("from .l0m%d import *\n", w)
	}
	for l := range levels {
		for w := range width {
			text := ""
			for next := range width {
				if l+1 < levels {
					text += fmt.Sprintf("from .l%dm%d import *\n", l+1, next)
				}
			}
			files[fmt.Sprintf("pkg/l%dm%d.py", l, w)] = text + fmt.Sprintf("\n\nclass C%d%d:\n    pass\n", l, w)
		}
	}
	proj, byName = starProject(t, files)
	reads := 0
	testHookParsedFile = func(string) { reads++ }
	defer func() { testHookParsedFile = nil }()
	var cr2 *classRef
	proj.record(func() { cr2 = proj.lookupClass(byName["train.py"], "Missing") })
	if cr2 != nil {
		t.Fatalf("Missing found as %+v", cr2)
	}
	// 29 modules, each searched once (a module may be reached once more with more depth
	// left).
	if reads > 4*(levels*width+1) {
		t.Errorf("the lookup read %d modules, want each of the %d once or twice", reads, levels*width+1)
	}
	// Within a round a lookup is kept: the second of two is the first's answer, and reads
	// no module again.
	var first, second *classRef
	proj.record(func() {
		first = proj.lookupClass(byName["train.py"], "C52")
		reads = 0
		second = proj.lookupClass(byName["train.py"], "C52")
	})
	if first == nil || first != second || reads != 0 {
		t.Errorf("C52 looked up twice: %p, then %p reading %d modules; want one answer, kept", first, second, reads)
	}
	// So is a lookup made while nothing records, for the next that does not record.
	third := proj.lookupClass(byName["train.py"], "C41")
	reads = 0
	if fourth := proj.lookupClass(byName["train.py"], "C41"); third == nil || fourth != third || reads != 0 {
		t.Errorf("C41 looked up twice unrecorded: %p, then %p reading %d modules", third, fourth, reads)
	}
	// A class of the last level is found: the memo keeps what was searched in vain only.
	if cr := proj.lookupClass(byName["train.py"], "C63"); cr == nil || cr.file != byName["pkg/l6m3.py"] {
		t.Errorf("C63 (last level) found as %+v", cr)
	}
}

// TestModuleSearchesKept: the round keeps each search of a module for a name at a depth
// left, across lookups: a second file whose lookup reaches the same modules reads only its
// own way in (fails when searches are not kept: it looks up pkg/u.py and pkg/gone.py again), and a search
// served from what was kept brings the probes it read, also those of a module that the
// first lookup had already searched in vain by another way (fails, the unparsed module's
// probe missing, when a kept search starts from the lookup's modules known missed).
func TestModuleSearchesKept(t *testing.T) {
	files := map[string]string{
		"train.py":         "from pkg import *\nmarker = 1\n",
		"other.py":         "from pkg2 import *\nmarker = 1\n",
		"pkg/__init__.py":  "from .u import *\nfrom .t import *\nmarker = 1\n",
		"pkg/u.py":         "from .gone import *\nmarker = 1\n",
		"pkg/t.py":         "from .u import *\nmarker = 1\n",
		"pkg/gone.py":      "class Missing:\n    pass\n",
		"pkg2/__init__.py": "from pkg.t import *\nmarker = 1\n",
	}
	// gone.py names no needle: it stays unparsed, and a search reaching it reads that.
	proj, byName := starProjectMatching(t, files, []string{"marker"})
	if byName["pkg/gone.py"] != nil || byName["pkg/t.py"] == nil {
		t.Fatalf("parsed %d files; want all but pkg/gone.py", len(byName))
	}
	const gone = "pkg/gone.py"
	readsGone := func(probes []probe) bool {
		for _, pr := range probes {
			if pr.kind == probeParsed && !pr.found && strings.HasSuffix(pr.name, gone) {
				return true
			}
		}
		return false
	}
	proj.recording, proj.probes = true, nil
	if cr := proj.lookupClass(byName["train.py"], "Missing"); cr != nil || !readsGone(proj.probes) {
		t.Fatalf("train.py's lookup: found %+v, read %s %v", cr, gone, readsGone(proj.probes))
	}
	reads := 0
	testHookParsedFile = func(string) { reads++ }
	defer func() { testHookParsedFile = nil }()
	proj.probes = nil
	if cr := proj.lookupClass(byName["other.py"], "Missing"); cr != nil {
		t.Fatalf("other.py's lookup found %+v", cr)
	}
	proj.recording = false
	if reads != 2 {
		t.Errorf("other.py's lookup read %d modules, want 2 (pkg2 and pkg/t.py, whose search is kept)", reads)
	}
	if !readsGone(proj.probes) {
		t.Errorf("other.py's lookup, served pkg/t.py's kept search, did not read %s: its probes %v", gone, proj.probes)
	}
}

// TestClassLookupWantsWhatMayBind: a class lookup that wants the unparsed modules it walks
// through (a `Class.method()` call, a base class) wants only those that may bind the name:
// a module star-imported by the package that neither names the class nor imports `*` cannot
// define or re-export it (pyparse.Result.MayBind), and is left unparsed.
func TestClassLookupWantsWhatMayBind(t *testing.T) {
	proj, byName := starProjectMatching(t, map[string]string{
		"train.py":        "from pkg import Trainer\nMARKER = 1\n",
		"pkg/__init__.py": "MARKER = 1\nfrom .a import *\nfrom .b import *\nfrom .c import *\nfrom .e import *\n",
		"pkg/a.py":        "class Other:\n    \"\"\"Not a Trainer.\"\"\"\n",
		"pkg/b.py":        "class Trainer:\n    pass\n",
		"pkg/c.py":        "from .d import *\n",
		"pkg/d.py":        "class Trainer:\n    pass\n",
		"pkg/e.py":        "# a Trainer, in a comment\nclass Loader:\n    pass\n",
	}, []string{"MARKER"})
	if byName["pkg/__init__.py"] == nil || byName["pkg/b.py"] != nil {
		t.Fatalf("parsed %v", slices.Sorted(maps.Keys(byName)))
	}
	proj.wantClasses = true
	proj.lookupClass(byName["train.py"], "Trainer")
	var wanted []string
	for file := range proj.want {
		wanted = append(wanted, filepath.ToSlash(file)[strings.LastIndex(filepath.ToSlash(file), "pkg/"):])
	}
	slices.Sort(wanted)
	// a.py names Trainer in a docstring only, e.py in a comment only; c.py imports `*`.
	if want := []string{"pkg/b.py", "pkg/c.py"}; !slices.Equal(wanted, want) {
		t.Errorf("wanted %v, want %v", wanted, want)
	}
}
