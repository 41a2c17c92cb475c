package score

import (
	"bytes"
	"strings"
	"testing"
)

const labelsText = `{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"t.py","line":7,"code":"torch.cuda.empty_cache()","kind":"direct","frequency":"per_step","period":null,"pattern":"none","rule":"CL001","reason":"every batch"}
{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"t.py","line":20,"code":"torch.cuda.empty_cache()","kind":"direct","frequency":"periodic","period":100,"pattern":"none","rule":"CL002","reason":"every 100 steps"}
{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"t.py","line":30,"code":"torch.cuda.empty_cache()","kind":"direct","frequency":"once","period":null,"pattern":"oom_retry","rule":"CL005","reason":"retry in except"}
{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"u.py","line":3,"code":"gc()","kind":"helper_call","frequency":"once","period":null,"pattern":"model_switch","rule":"none","reason":"after del model"}
`

func TestComputeCountsEachOutcome(t *testing.T) {
	labels, err := ReadLabels(strings.NewReader(labelsText))
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]RepoResult{"o/r": {
		Findings: []Finding{
			{Code: "CL001", File: "t.py", Line: 7},
			{Code: "CL001", File: "t.py", Line: 20}, // should have been CL002
			{Code: "CL005", File: "t.py", Line: 28, Related: []Location{{File: "t.py", Line: 30}}},
			{Code: "CL004", File: "t.py", Line: 99}, // nobody labelled line 99
		},
		Calls: []Call{
			{File: "t.py", Line: 7, Role: "call", Frequency: "per_iteration", Pattern: "none"},
			{File: "t.py", Line: 30, Role: "call", Frequency: "once", Pattern: "oom_retry"},
			{File: "u.py", Line: 3, Role: "call", Frequency: "once", Pattern: "none"},
		},
	}}
	s, err := Compute(labels, res)
	if err != nil {
		t.Fatal(err)
	}
	if s.Sites != 4 || s.Correct != 3 {
		t.Errorf("sites %d correct %d, want 4 and 3", s.Sites, s.Correct)
	}
	if got := *s.PerRule["CL001"]; got != (Count{TP: 1, FP: 1}) {
		t.Errorf("CL001 %+v, want TP 1 FP 1", got)
	}
	if got := *s.PerRule["CL002"]; got != (Count{FN: 1}) {
		t.Errorf("CL002 %+v, want FN 1", got)
	}
	if got := *s.PerRule["CL005"]; got != (Count{TP: 1}) {
		t.Errorf("CL005 %+v, want TP 1 (found through related)", got)
	}
	if s.DefaultOn != (Count{TP: 2, FP: 1}) {
		t.Errorf("default-on %+v, want TP 2 FP 1", s.DefaultOn)
	}
	if s.StepSites != 2 || s.StepReported != 2 {
		t.Errorf("step sites %d reported %d, want 2 and 2", s.StepSites, s.StepReported)
	}
	if s.Unlabelled["CL004"] != 1 {
		t.Errorf("unlabelled %v, want one CL004", s.Unlabelled)
	}
	if got := *s.PerPattern["model_switch"]; got != (Count{FN: 1}) {
		t.Errorf("model_switch %+v, want FN 1", got)
	}
	if s.Frequency["periodic"]["unseen"] != 1 || s.Frequency["per_step"]["per_step"] != 1 {
		t.Errorf("frequency %v", s.Frequency)
	}
	var out bytes.Buffer
	s.Print(&out, true)
	for _, want := range []string{"rule right at  75% (3/4)", "CL002 -> CL001", "model_switch -> none"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// A label on an `except` line stands for the call in its handler (as CL005/CL006 findings on
// that line name it in related); one whose call has a label of its own is left out of the
// pattern score rather than judging the same call twice.
func TestHandlerLabelsJudgeTheCallInTheHandler(t *testing.T) {
	const src = "try:\n    run()\nexcept Exception:  # broad\n    del model\n\n    # free it\n    free_gpu()\nload()\n"
	if got := HandlerEnd([]byte(src), 3); got != 7 {
		t.Fatalf("HandlerEnd = %d, want 7 (comment and blank lines inside, `load()` outside)", got)
	}
	labels, err := ReadLabels(strings.NewReader(`{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"t.py","line":3,"code":"except Exception:  # broad","kind":"helper_call","frequency":"once","period":null,"pattern":"model_switch","rule":"none","reason":"del model, clear"}
{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"u.py","line":3,"code":"except Exception:","kind":"helper_call","frequency":"once","period":null,"pattern":"model_switch","rule":"none","reason":"same, but labelled at the call too"}
{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"u.py","line":7,"code":"free_gpu()","kind":"helper_call","frequency":"once","period":null,"pattern":"model_switch","rule":"none","reason":"del model, clear"}
`))
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]RepoResult{"o/r": {
		Calls: []Call{
			{File: "t.py", Line: 8, Role: "call", Frequency: "once", Pattern: "none"}, // after the handler
			{File: "t.py", Line: 7, Role: "call", Frequency: "once", Pattern: "model_switch"},
			{File: "u.py", Line: 7, Role: "call", Frequency: "once", Pattern: "oom_retry"},
		},
		HandlerEnd: map[string]int{"t.py:3": 7, "u.py:3": 7},
	}}
	s, err := Compute(labels, res)
	if err != nil {
		t.Fatal(err)
	}
	if got := *s.PerPattern["model_switch"]; got != (Count{TP: 1, FN: 1}) {
		t.Errorf("model_switch %+v, want TP 1 (t.py's handler) and FN 1 (u.py's call, judged once)", got)
	}
	if got := *s.PerPattern["oom_retry"]; got != (Count{FP: 1}) || s.HandlerDuplicates != 1 {
		t.Errorf("oom_retry %+v, duplicates %d; want FP 1 and 1", got, s.HandlerDuplicates)
	}
}

func TestComputeRefusesAMissingRepository(t *testing.T) {
	labels, err := ReadLabels(strings.NewReader(labelsText))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compute(labels, map[string]RepoResult{}); err == nil {
		t.Fatal("no error for a repository without results")
	}
}

func TestReadLabelsRejectsBadLines(t *testing.T) {
	for name, text := range map[string]string{
		"unknown field": `{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"a.py","line":1,"rule":"none","extra":1}`,
		"bad rule":      `{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"a.py","line":1,"rule":"CL009"}`,
		"short commit":  `{"repo":"o/r","commit":"abc","path":"a.py","line":1,"rule":"none"}`,
		"twice":         strings.Repeat(`{"repo":"o/r","commit":"0123456789012345678901234567890123456789","path":"a.py","line":1,"rule":"none"}`+"\n", 2),
	} {
		if _, err := ReadLabels(strings.NewReader(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestLineHoldsTheLabelledCode(t *testing.T) {
	src := []byte("x = 1\n    flux_train_utils.sample_images(\n    except RuntimeError:\n    process_batch(False)\n")
	for _, c := range []struct {
		line int
		code string
		want bool
	}{
		{2, "sample_images(...)", true},
		{3, "torch.cuda.empty_cache()", false},
		{4, "process_batch(bucket)", true},
		{9, "x", false},
	} {
		if got := LineHolds(src, c.line, c.code); got != c.want {
			t.Errorf("LineHolds(%d, %q) = %v, want %v", c.line, c.code, got, c.want)
		}
	}
}
