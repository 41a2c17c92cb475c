package sidebyside

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestCompare(t *testing.T) {
	read := func(s string) []Record {
		t.Helper()
		var recs []Record
		if err := json.Unmarshal([]byte(s), &recs); err != nil {
			t.Fatal(err)
		}
		return recs
	}
	single := map[string][]Record{
		"a": read(`[{"file":"train.py","line":7,"column":9,"frequency":"per_step","pattern":"none","role":"call","rule":"CL001"},
			{"file":"train.py","line":9,"column":5,"frequency":"once","pattern":"model_switch","role":"call","rule":null}]`),
		"b": read(`[{"file":"run.py","line":3,"column":1,"frequency":"once","pattern":"none","role":"call","rule":null}]`),
	}
	combined := read(`[{"file":"a/train.py","line":7,"column":9,"frequency":"per_step","pattern":"none","role":"call","rule":"CL001"},
		{"file":"a/train.py","line":9,"column":5,"frequency":"once","pattern":"none","role":"call","rule":null},
		{"file":"b/run.py","line":3,"column":1,"frequency":"once","pattern":"none","role":"call","rule":null},
		{"file":"b/run.py","line":4,"column":1,"frequency":"once","pattern":"none","role":"call","rule":null}]`)
	d := Compare(single, combined)
	wantMissing := []string{"a/train.py:9:5 call once model_switch -"}
	wantExtra := []string{"a/train.py:9:5 call once none -", "b/run.py:4:1 call once none -"}
	if !slices.Equal(d.Missing, wantMissing) || !slices.Equal(d.Extra, wantExtra) {
		t.Errorf("Compare = missing %q, extra %q; want %q, %q", d.Missing, d.Extra, wantMissing, wantExtra)
	}
	if got, want := PerProject(d.Extra), "a 1, b 1"; got != want {
		t.Errorf("PerProject = %q, want %q", got, want)
	}
}
