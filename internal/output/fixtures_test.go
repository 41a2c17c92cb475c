package output

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// Sources of the fixture files. train.py has a tab-indented line and non-ASCII text before
// a reported span; the notebook's concatenated program is what its frame shows.
var fixtureSources = map[string]string{
	"src/train.py": "import torch\n" +
		"for step, batch in enumerate(train_loader):\n" +
		"    loss = model(batch)  # «étape»\n" +
		"    optimizer.step()\n" +
		"    torch.cuda.empty_cache()\n" +
		"    if step % 100 == 0:\n" +
		"\tlabel = \"清理\"; torch.cuda.empty_cache()\n" +
		"    pass\n" +
		"    x = 1\n" +
		"    torch.cuda.empty_cache()\r\n",
	"nb.ipynb": "import torch\n" +
		"model = Net()\n" +
		"for batch in loader:\n" +
		"    step(batch)\n" +
		"    torch.cuda.empty_cache()\n",
	"utils.py": "def retry(fn):\n" +
		"    try:\n" +
		"        return fn()\n" +
		"    except RuntimeError:\n" +
		"        torch.cuda.empty_cache()\n" +
		"        return fn()\n",
}

func fixtureReport() *report.Report {
	fs := []report.Finding{
		{
			// No source available: no frame, but the help line still prints.
			Code: "CL010", Severity: rules.Error, File: "gen/missing.py", Line: 3, Column: 1, EndLine: 3, EndColumn: 40,
			Message:  "PYTORCH_CUDA_ALLOC_CONF is set after CUDA was initialised at line 2: the setting is ignored",
			Help:     "set it before the first CUDA call, or in the environment",
			Function: "main", Snippet: `os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"`,
		},
		{
			Code: "CL001", Severity: rules.Error, File: "nb.ipynb",
			Line: 40, Column: 6, EndLine: 40, EndColumn: 30,
			Cell: 3, CellLine: 2, CellColumn: 5, CellEndColumn: 29, FrameLine: 5,
			Message: "torch.cuda.empty_cache() runs on every iteration of the step loop in cell 3 (`for batch in loader`)",
			Label:   "every step: a CPU-GPU sync plus a cudaMalloc refill",
			Snippet: "torch.cuda.empty_cache()",
		},
		{
			Code: "CL001", Severity: rules.Error, File: "src/train.py", Line: 5, Column: 5, EndLine: 5, EndColumn: 29,
			Message: "torch.cuda.empty_cache() runs on every iteration of the step loop at line 2 (`for step, batch in enumerate(train_loader)`)",
			Label:   "every step: a CPU-GPU sync plus a cudaMalloc refill",
			Help:    "remove it; to fight fragmentation set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
			Cost:    "~25 ms per step on NVIDIA H200 (from probe profile)",
			Related: []report.Related{{File: "src/train.py", Line: 2, Message: "the step loop"}},
			Fix: &report.Fix{Message: "Remove the call", Applicability: "unsafe", Edits: []report.Edit{
				{Line: 5, Column: 1, EndLine: 6, EndColumn: 1, NewText: ""},
			}},
			Function: "", Snippet: "torch.cuda.empty_cache()",
		},
		{
			Code: "CL002", Severity: rules.Warning, File: "src/train.py", Line: 7, Column: 16, EndLine: 7, EndColumn: 40,
			Message: "torch.cuda.empty_cache() runs every 100 steps of the step loop at line 2",
			Label:   "every 100 steps",
			Snippet: "torch.cuda.empty_cache()",
		},
		{
			Code: "CL001", Severity: rules.Error, File: "src/train.py", Line: 10, Column: 5, EndLine: 10, EndColumn: 29,
			Message: "torch.cuda.empty_cache() runs on every iteration of the step loop at line 2",
			Snippet: "torch.cuda.empty_cache()",
		},
		{
			Code: "CL006", Severity: rules.Warning, File: "utils.py", Line: 4, Column: 5, EndLine: 4, EndColumn: 25,
			Message: "`except RuntimeError` clears the cache and retries without checking the error is an OOM",
			Label:   "catches every RuntimeError",
			Help:    "catch `torch.cuda.OutOfMemoryError` instead",
			Related: []report.Related{
				{File: "utils.py", Line: 5, Column: 9, Message: "the cache is cleared here"},
				{File: "utils.py", Line: 6, Column: 9, Message: "and the work is retried here"},
			},
			Fix: &report.Fix{Message: "Catch torch.cuda.OutOfMemoryError", Applicability: "safe", Edits: []report.Edit{
				{Line: 4, Column: 12, EndLine: 4, EndColumn: 24, NewText: "torch.cuda.OutOfMemoryError"},
			}},
			Function: "retry", Snippet: "except RuntimeError:",
		},
	}
	return &report.Report{
		Findings:     fs,
		Source:       sourceFunc(fixtureSources),
		FilesChecked: 4,
	}
}

func sourceFunc(m map[string]string) func(string) []byte {
	return func(file string) []byte {
		s, ok := m[file]
		if !ok {
			return nil
		}
		return []byte(s)
	}
}

func fixtureOptions() Options {
	return Options{Version: "0.1.0-test", Cwd: "/home/user/proj"}
}

func render(t *testing.T, format string, rep *report.Report, opts Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Print(&b, format, rep, opts); err != nil {
		t.Fatalf("Print(%s): %v", format, err)
	}
	return b.Bytes()
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run `go test ./internal/output -update` to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}
