package analyzers_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
)

func TestAllocConf(t *testing.T) {
	analyzertest.Run(t, filepath.Join("..", "testdata", "src", "allocconf"), []*analysis.Analyzer{analyzers.AllocConf}, nil)
}

// TestAllocConfPrefiltered runs with the CLI's byte prefilter: program/train.py and
// program/gpu.py mention no needle, so the analyzer must pull in the files that set a
// memory fraction itself or it would get program/config.py and program/eval.py wrong.
func TestAllocConfPrefiltered(t *testing.T) {
	flags := map[string]map[string]string{"pyparse": {"needles": strings.Join(analyzers.Needles(), ",")}}
	analyzertest.Run(t, filepath.Join("..", "testdata", "src", "allocconf"), []*analysis.Analyzer{analyzers.AllocConf}, flags)
}

// TestAllocConfRanges checks what the code frame underlines: the key or value inside the
// literal where the source maps byte for byte, the whole literal across an escape, and
// the dict entry for CL010 in os.environ.update.
func TestAllocConfRanges(t *testing.T) {
	dir := filepath.Join("..", "testdata", "src", "allocconf")
	res := analyzertest.Run(t, dir, []*analysis.Analyzer{analyzers.AllocConf}, nil)
	notes := res.Results[analyzers.AllocConf].(*analyzers.Notes)
	got := map[string][]string{} // "file:line code" -> underlined texts
	for _, d := range res.Diagnostics {
		if d.Analyzer != analyzers.AllocConf {
			continue
		}
		if note, ok := notes.NoteFor(d.Pos, d.Category); !ok || note.Label == "" || note.Help == "" {
			t.Errorf("%s %s: note = %+v, %v", res.Fset.Position(d.Pos), d.Category, note, ok)
		}
		s, e := res.Fset.Position(d.Pos), res.Fset.Position(d.End)
		src, err := os.ReadFile(s.Filename)
		if err != nil {
			t.Fatal(err)
		}
		key := filepath.ToSlash(strings.TrimPrefix(s.Filename, dir+string(filepath.Separator))) + ":" + itoa(s.Line) + " " + d.Category
		got[key] = append(got[key], string(src[s.Offset:e.Offset]))
	}
	want := map[string]string{
		"cl011_invalid.py:5 CL011":     "expandable_segment",
		"cl011_invalid.py:13 CL011":    "yes",
		"cl011_forms.py:7 CL011":       "10",
		"cl011_forms.py:10 CL011":      `"expandable_segments:True,\tmax_split_size_mb:128"`,
		"cl011_forms.py:15 CL011":      "expandable_segment",
		"cl010_after_init.py:15 CL010": `"PYTORCH_ALLOC_CONF": "max_split_size_mb:256"`,
		"article_tuning.py:9 CL012":    "garbage_collection_threshold:0.8",
	}
	for k, w := range want {
		texts := got[k]
		if len(texts) != 1 || texts[0] != w {
			t.Errorf("%s underlines %q, want %q", k, texts, w)
		}
	}
}
