package analyzers_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
)

// TestAllocConf runs with the production prefilter: program/train.py and program/gpu.py
// mention no needle, so the files that set a memory fraction must be pulled in before the
// reporters run, or program/config.py and program/eval.py would come out wrong.
func TestAllocConf(t *testing.T) {
	analyzertest.Run(t, filepath.Join("..", "testdata", "src", "allocconf"), analyzers.AllocConf)
}

// TestAllocConfRanges checks what the code frame underlines: the key or value inside the
// literal where the source maps byte for byte, the whole literal across an escape, and
// the dict entry for CL010 in os.environ.update.
func TestAllocConfRanges(t *testing.T) {
	res := analyzertest.Run(t, filepath.Join("..", "testdata", "src", "allocconf"), analyzers.AllocConf)
	got := map[string][]string{} // "file:line code" -> underlined texts
	for _, f := range res.Report.Findings {
		if f.Label == "" || f.Help == "" {
			t.Errorf("%s:%d %s: label %q, help %q", f.File, f.Line, f.Code, f.Label, f.Help)
		}
		lines := strings.Split(string(res.Report.Source(f.File)), "\n")
		if f.EndLine != f.Line {
			continue
		}
		line := []rune(lines[f.Line-1])
		key := filepath.Base(f.File) + ":" + strconv.Itoa(f.Line) + " " + f.Code
		got[key] = append(got[key], string(line[f.Column-1:f.EndColumn-1]))
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
