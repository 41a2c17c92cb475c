package analyzers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/analyzertest"
	"github.com/cachelint/cachelint/internal/report"
)

func TestStepLoop(t *testing.T) {
	for _, dir := range []string{"direct", "frequency", "hooks", "patterns", "helpers", "helpers2", "precision", "overrides"} {
		t.Run(dir, func(t *testing.T) {
			analyzertest.Run(t, filepath.Join("..", "testdata", "src", dir), analyzers.StepLoop)
		})
	}
}

// TestStepLoopFixes compares CL001's fix (remove the call, or `pass` when it is alone in
// its block) with the golden files.
func TestStepLoopFixes(t *testing.T) {
	analyzertest.RunWithFixes(t, filepath.Join("..", "testdata", "src", "fixes"), analyzers.StepLoop)
}

// TestHelperRecords checks the records `cachelint calls` prints for a helper: its own call
// is a helper_body that runs once per call, and each call site carries the chain.
func TestHelperRecords(t *testing.T) {
	res := analyzertest.Run(t, filepath.Join("..", "testdata", "src", "helpers"), analyzers.StepLoop)
	var body, viaCleanup *report.CallRecord
	for i, r := range res.Calls {
		if filepath.Base(r.File) == "memory.py" && r.Line == 8 {
			body = &res.Calls[i]
		}
		if len(r.Via) == 3 && strings.HasSuffix(r.Via[0], "._cleanup") {
			viaCleanup = &res.Calls[i]
		}
	}
	if body == nil || body.Role != "helper_body" || body.Frequency != string(analyzers.Once) || body.Rule != nil {
		t.Fatalf("helper body record = %+v", body)
	}
	if viaCleanup == nil || viaCleanup.Frequency != string(analyzers.PerIteration) || viaCleanup.Rule == nil || *viaCleanup.Rule != "CL001" ||
		viaCleanup.Loop == nil || viaCleanup.Loop.Line != 27 {
		t.Fatalf("_cleanup() record = %+v", viaCleanup)
	}
	if got := strings.Join(viaCleanup.Via, " -> ") + " -> " + viaCleanup.Callee; !strings.HasSuffix(got, "free_gpu_memory -> torch.cuda.empty_cache") ||
		!strings.Contains(got, "._cleanup -> ") || !strings.Contains(got, ".cleanup -> ") {
		t.Errorf("chain = %q", got)
	}
	// The finding names the whole chain, down to the line that empties the cache.
	found := false
	for _, f := range res.Report.Findings {
		if strings.Contains(f.Message, "via _cleanup() -> cleanup() -> free_gpu_memory() -> torch.cuda.empty_cache() at ") &&
			strings.HasSuffix(f.Message, "memory.py:8") {
			found = true
		}
	}
	if !found {
		t.Error("no finding carries the _cleanup() chain")
	}
	// setup() calls the helper once at start-up: a record with frequency once and no rule.
	found = false
	for _, r := range res.Calls {
		if filepath.Base(r.File) == "train.py" && r.Line == 44 {
			found = true
			if r.Frequency != string(analyzers.Once) || r.Rule != nil {
				t.Errorf("setup() record = %s/%v", r.Frequency, r.Rule)
			}
		}
	}
	if !found {
		t.Error("no record for the start-up call of the helper")
	}
}

// TestUserHints: `step-loop-names` and `extra-helpers` from [tool.cachelint] reach the
// analyzers through the run's settings.
func TestUserHints(t *testing.T) {
	analyzertest.Run(t, filepath.Join("..", "testdata", "src", "hints"), analyzers.StepLoop)
}

// TestPatternRecords checks the legitimate use each patterns fixture call is matched
// with: handlers are matched by the exception they name, resolved through imports
// (`requests.RequestException` is not an OOM, an aliased OutOfMemoryError is), a
// batch-size search that clears after its OOM handler is a retry, and a notebook's
// top-level cleanup cell is interactive cleanup.
func TestPatternRecords(t *testing.T) {
	res := analyzertest.Run(t, filepath.Join("..", "testdata", "src", "patterns"), analyzers.StepLoop)
	if res == nil {
		return
	}
	want := map[string]string{
		"oom_types.py:16":          "none",
		"oom_types.py:24":          "oom_retry",
		"oom_types.py:46":          "none", // clears and re-raises: no retry
		"batch_search.py:14":       "oom_retry",
		"microbatch_oom.py:16":     "none", // an accumulated size is no batch-size search
		"microbatch_oom.py:37":     "oom_retry",
		"switch_tokenizer.py:6":    "none", // a tokenizer is no model
		"switch_tokenizer.py:14":   "model_switch",
		"switch_receiver.py:6":     "none", // the receiver's name says nothing of the call
		"switch_receiver.py:13":    "model_switch",
		"interactive.ipynb:cell 2": "interactive_cleanup",
		"service.py:19":            "service_guard",
		"service.py:32":            "none",
		"leak.py:10":               "leak_diagnosis",
		"leak.py:16":               "none",
		"leak.py:27":               "none",
		"leak.py:33":               "leak_diagnosis",
		"leak.py:41":               "leak_diagnosis",
		"leak.py:55":               "model_switch",
		"leak.py:67":               "none",
		"leak.py:76":               "leak_diagnosis", // its callers do not inherit it
		"leak.py:92":               "none",
		// Issue 13, class 5: retries behind managers that swallow the OOM, and a flag only
		// an OOM handler sets; the look-alikes stay none.
		"oom_context.py:71":  "oom_retry",
		"oom_context.py:72":  "oom_retry",
		"oom_context.py:73":  "oom_retry",
		"oom_context.py:79":  "none",
		"oom_context.py:80":  "none",
		"oom_context.py:94":  "oom_retry",
		"oom_context.py:108": "none",
		// Classes 1 and 2: switches by binding, and names that hold outputs.
		"switch_binding.py:15": "model_switch",
		"switch_binding.py:26": "model_switch",
		"switch_binding.py:34": "model_switch",
		"switch_binding.py:48": "model_switch",
		"switch_binding.py:56": "model_switch",
		"switch_binding.py:69": "none",
		"switch_binding.py:85": "none",
		// Class 1 by effects: a name bound to a module, a callee that loads, a load inside an
		// assignment, a callee that frees; a dict is no model.
		"switch_effects.py:20": "model_switch",
		"switch_effects.py:24": "none",
		"switch_effects.py:32": "model_switch",
		"switch_effects.py:38": "model_switch",
		"switch_effects.py:45": "model_switch",
		"switch_effects.py:64": "none",
		// Inside a manager that loads the model; a clean-up repeated thrice beside a `del`;
		// n passes of work are no repeat.
		"switch_effects.py:70":  "model_switch",
		"switch_effects.py:78":  "model_switch",
		"switch_effects.py:86":  "none",
		"switch_effects.py:92":  "model_switch",
		"switch_effects.py:97":  "model_switch",
		"switch_effects.py:105": "model_switch",
		"switch_effects.py:112": "model_switch",
		// A model moved weight by weight beside a once-run call; a batch moved, a name
		// rebound, weights cast or aliased, and blocks offloaded on every step are no switch.
		"switch_tensors.py:12": "model_switch",
		"switch_tensors.py:19": "model_switch",
		"switch_tensors.py:25": "model_switch",
		"switch_tensors.py:32": "model_switch",
		"switch_tensors.py:38": "none",
		"switch_tensors.py:44": "none",
		"switch_tensors.py:50": "none",
		"switch_tensors.py:56": "none",
		"switch_tensors.py:67": "none",
		"switch_tensors.py:76": "model_switch",
		"switch_tensors.py:86": "none",
		"switch_tensors.py:93": "none",
		// A model class's alternative constructor builds a model; another class's factory and
		// a plain method do not.
		"switch_factory.py:23": "model_switch",
		"switch_factory.py:29": "none",
		"switch_factory.py:35": "none",
		// An attempt that failed by its return value, retried after the clear; a failure
		// followed by a report or by another call is no retry.
		"oom_value.py:16": "oom_retry",
		"oom_value.py:24": "none",
		"oom_value.py:30": "none",
		// A name bound to a function the callee returns frees no model; to a network, it does.
		"switch_returned.py:27": "none",
		"switch_returned.py:34": "model_switch",
		// Class 5: once per attempt of find_executable_batch_size; its step loop is not.
		"oom_decorator.py:10": "oom_retry",
		"oom_decorator.py:15": "none",
		"oom_decorator.py:21": "none",
		// Module-level clean-up after `del`: a script's is interactive, a package module's
		// runs at import.
		"session.py:8": "interactive_cleanup",
		"probe.py:7":   "none",
		// A name bound in branches or by a factory runs each candidate; a chat loop reading
		// through its I/O object's method is interactive.
		"chat_dispatch.py:36": "interactive_cleanup",
		// A route calls a method on a global the worker binds to itself.
		"service_global.py:27": "service_guard",
		// A REPL's turn waits for a person; a queue worker's turn serves a request.
		"repl.py:19": "interactive_cleanup",
		"repl.py:30": "service_guard",
		"repl.py:41": "none",
		// Class 4: a queue worker, Gradio handlers registered through `fn=`; a handler
		// switching models is a switch; a batch queue in a step loop and a lookup are not.
		"service_queue.py:19": "service_guard",
		"service_queue.py:27": "none",
		"service_queue.py:34": "none",
		"service_queue.py:39": "service_guard",
		"service_queue.py:46": "model_switch",
		"service_queue.py:67": "service_guard",
		// A helper serving a route and a chat loop whose turns are read through an abstract
		// I/O class implemented in another module: once per request or turn.
		"inference.py:19": "service_guard",
		"inference.py:28": "interactive_cleanup",
		"inference.py:33": "service_guard",
	}
	got := map[string]string{}
	for _, c := range res.Calls {
		key := fmt.Sprintf("%s:%d", filepath.Base(c.File), c.Line)
		if c.Cell != nil {
			key = fmt.Sprintf("%s:cell %d", filepath.Base(c.File), *c.Cell)
		}
		got[key] = c.Pattern
	}
	for k, p := range want {
		if got[k] != p {
			t.Errorf("%s: pattern %q, want %q", k, got[k], p)
		}
	}
	// A legitimate record names the statement that makes it so.
	for _, c := range res.Calls {
		if c.Pattern != "none" && !strings.Contains(c.Reason, "legitimate use ("+c.Pattern+"): ") {
			t.Errorf("%s:%d: %s record without its evidence: %q", filepath.Base(c.File), c.Line, c.Pattern, c.Reason)
		}
	}
}

// TestTransparentLoopReason: a call in a loop over modules is not governed by it, and its
// record says which loop it sits in rather than "not inside any loop".
func TestTransparentLoopReason(t *testing.T) {
	res := analyzertest.Run(t, filepath.Join("..", "testdata", "src", "precision"), analyzers.StepLoop)
	if res == nil {
		return
	}
	for _, c := range res.Calls {
		if filepath.Base(c.File) == "roles.py" && c.Line == 171 {
			if c.Frequency != "once" || !strings.Contains(c.Reason, "inside the loop at line 169 (`for layer in layers`), over items of one pass") {
				t.Errorf("frequency %s, reason %q", c.Frequency, c.Reason)
			}
			return
		}
	}
	t.Error("no record for roles.py:171")
}

// TestUnrelatedFilesChangeNothing runs the precision fixtures with files beside them that
// define functions and classes named like what the fixtures call or import (`generate`,
// `run`, `segment`, a `Trainer`): every expectation must still hold and nothing new be
// reported.
func TestUnrelatedFilesChangeNothing(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "testdata", "src", "precision")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		copyFile(t, filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
	}
	// One copy: a class name that is unique in the project must still not stand in for the
	// imported one (`class MyTrainer(Trainer)` with Trainer from transformers).
	copyFile(t, filepath.Join("..", "testdata", "unrelated", "unrelated.py"), filepath.Join(dir, "vendor_like", "unrelated.py"))
	analyzertest.Run(t, dir, analyzers.StepLoop)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHelperCalledFromManyFiles: a helper called from many files keeps every call site (the
// prefilter once stopped searching for a name more than 50 files mention), and files that
// use the same name for something else are not linked to it.
func TestHelperCalledFromManyFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proj/__init__.py", "")
	write("proj/memory.py", "import torch\n\n\ndef cleanup():\n    torch.cuda.empty_cache()\n")
	const callers, others = 60, 60
	for i := range callers {
		write(fmt.Sprintf("proj/train_%02d.py", i), "from proj.memory import cleanup\n\n\n"+
			"def train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n"+
			"        cleanup()  # want \"CL001 cleanup.. runs on every iteration\"\n")
	}
	for i := range others {
		write(fmt.Sprintf("other/job_%02d.py", i), "def cleanup():\n    return None\n\n\n"+
			"def train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        cleanup()\n")
	}
	res := analyzertest.Run(t, dir, analyzers.StepLoop)
	if n := len(res.Report.Findings); n != callers {
		t.Errorf("%d findings, want one per calling file (%d)", n, callers)
	}
}

// TestSameNameHelpersInTwoModules: two helpers of one name in different modules each have
// their callers found, whichever the prefilter meets first (the search once went by name, so
// the second module's importers were never parsed on some runs).
func TestSameNameHelpersInTwoModules(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"alpha/__init__.py": "",
		"alpha/memory.py":   "import torch\n\n\ndef cleanup():\n    torch.cuda.empty_cache()\n",
		"beta/__init__.py":  "",
		"beta/tools.py":     "import torch\n\n\ndef cleanup():\n    torch.cuda.empty_cache()\n",
		"train_a.py": "from alpha.memory import cleanup\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n" +
			"        model(batch).backward()\n        opt.step()\n        cleanup()  # want \"CL001 cleanup.. runs on every iteration\"\n",
		"train_b.py": "from beta.tools import cleanup\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n" +
			"        model(batch).backward()\n        opt.step()\n        cleanup()  # want \"CL001 cleanup.. runs on every iteration\"\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 { // map order varies from run to run
		analyzertest.Run(t, dir, analyzers.StepLoop)
	}
}

// TestLaterRounds holds calls resolved in the first prefilter round to what they resolve
// to once a later round has parsed more files (probes.go).
func TestLaterRounds(t *testing.T) {
	analyzertest.Run(t, filepath.Join("..", "testdata", "src", "rounds"), analyzers.StepLoop)
}

// TestReexports: a helper or base class reached through a package that re-exports it (`from
// .memory_utils import *`, `from .api import release_all`) or defined in a module that
// mentions no needle is still followed: the modules a binding leads to are parsed when
// they may bind the name, whatever else they mention. So are the modules of the classes a
// parameter's annotation or a construction names (annotated/: their methods' callers are
// not searched for).
// TestSideBySide: an absolute import that names a module two projects of the tree define
// resolves to the one nearer the importing file.
func TestSideBySide(t *testing.T) {
	analyzertest.Run(t, filepath.Join("..", "testdata", "src", "sidebyside"), analyzers.StepLoop)
}

func TestReexports(t *testing.T) {
	for _, dir := range []string{"star", "explicit", "bases", "annotated", "defined", "inherited", "qualified"} {
		t.Run(dir, func(t *testing.T) {
			res := analyzertest.Run(t, filepath.Join("..", "testdata", "src", "reexports", dir), analyzers.StepLoop)
			if dir == "annotated" && res != nil && res.Stats.Parsed != 4 {
				t.Errorf("%d files parsed, want 4: logs.py holds a function, not a class", res.Stats.Parsed)
			}
			if dir == "defined" && res != nil && res.Stats.Parsed != 1 {
				t.Errorf("%d files parsed, want 1: tools/io.py defines save() and re-exports nothing", res.Stats.Parsed)
			}
		})
	}
}
