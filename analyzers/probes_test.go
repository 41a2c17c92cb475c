package analyzers

import (
	"context"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/pyparse"
)

// TestProbesHoldWhenNothingChanged: a round that parses nothing new re-resolves no call.
// Each fixture project is parsed whole and its graph built, then the project is re-indexed
// as a later round does; every call's probes must still hold. A table rebuilt in another
// order (subclasses listed in a map's order) or an answer that is not a function of the
// parsed files fails it.
func TestProbesHoldWhenNothingChanged(t *testing.T) {
	projects := map[string][]string{}
	root := filepath.Join("..", "testdata", "src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		dir := filepath.Join(root, strings.SplitN(filepath.ToSlash(rel), "/", 2)[0])
		projects[dir] = append(projects[dir], p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(projects) < 10 {
		t.Fatalf("found %d fixture projects under %s", len(projects), root)
	}
	for dir, files := range projects {
		res := pyparse.NewResult(files, os.ReadFile, token.NewFileSet(), 1)
		if err := res.ParseMatching(context.Background(), []string{""}); err != nil {
			t.Fatal(err)
		}
		proj := newProject(dir, files, res)
		memo := &graphMemo{calls: callMemo{}, entered: callMemo{}}
		buildGraph(proj, res, nil, memo)
		for range 5 {
			proj.reindex()
			for _, m := range []callMemo{memo.calls, memo.entered} {
				for f, slots := range m {
					for i, r := range slots {
						if !proj.holds(r.probes) {
							t.Errorf("%s: call %d of %s re-resolved although no file was parsed", dir, i, f.Path)
						}
					}
				}
			}
		}
	}
}
