package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/report"
)

// TestCallsInChunks: call records written in several messages read back whole, and an entry
// cut where one message ends is refused (the head's count), as is a longer list.
func TestCallsInChunks(t *testing.T) {
	calls := make([]report.CallRecord, 2*callsPerChunk+10)
	for i := range calls {
		calls[i] = report.CallRecord{File: fmt.Sprintf("f%d.py", i%7), Line: i, Callee: "torch.cuda.empty_cache", Reason: strings.Repeat("x", i%50)}
	}
	var whole, first bytes.Buffer
	if err := encodeCalls(&whole, calls); err != nil {
		t.Fatal(err)
	}
	if err := encodeCalls(&first, calls[:callsPerChunk]); err != nil {
		t.Fatal(err)
	}
	back, err := decodeCalls(bytes.NewReader(whole.Bytes()), len(calls))
	if err != nil || !reflect.DeepEqual(back, calls) {
		t.Fatalf("read back %d records (%v), want the %d written", len(back), err, len(calls))
	}
	if !bytes.HasPrefix(whole.Bytes(), first.Bytes()) {
		t.Fatal("the first message is not where the test cuts")
	}
	if _, err := decodeCalls(bytes.NewReader(first.Bytes()), len(calls)); err == nil {
		t.Error("an entry cut after its first message of records was read")
	}
	if _, err := decodeCalls(bytes.NewReader(whole.Bytes()), callsPerChunk); err == nil {
		t.Error("more records than the head says were read")
	}
	if back, err := decodeCalls(bytes.NewReader(nil), 0); err != nil || back == nil {
		t.Errorf("no records: %v, %v; want an empty list", back, err)
	}
}

// TestStampsTable: the stamps read back as written (a time before 1970 too), and a table cut
// short, with bytes left over, with a flag other than 0 or 1, or of another length is refused.
func TestStampsTable(t *testing.T) {
	stamps := []fileStamp{
		{Size: 12, ModNs: 1_700_000_000_000_000_000},
		{Size: 0, ModNs: 0, Parsed: true, Hash: [32]byte{1, 2, 3, 31: 9}},
		{Size: 1 << 40, ModNs: -5_000_000_000},
	}
	table := appendStamps(nil, stamps)
	back, err := decodeStamps(table, len(stamps))
	if err != nil || !reflect.DeepEqual(back, stamps) {
		t.Fatalf("read back %v (%v), want %v", back, err, stamps)
	}
	flag := len(binary.AppendUvarint(nil, 12)) + len(binary.AppendVarint(nil, stamps[0].ModNs))
	badFlag := bytes.Clone(table)
	badFlag[flag] = 2
	for what, data := range map[string][]byte{
		"cut short":    table[:len(table)-1],
		"bytes over":   append(bytes.Clone(table), 0),
		"another flag": badFlag,
	} {
		if _, err := decodeStamps(data, len(stamps)); err == nil {
			t.Errorf("a table %s was read", what)
		}
	}
	if _, err := decodeStamps(table, len(stamps)+1); err == nil {
		t.Error("a table of fewer stamps than files was read")
	}
}

// TestPathLists: a front-coded list reads back as written (paths sharing prefixes, an empty
// string, a path shorter than the one before), followed by what came after it; every cut of
// it, and a prefix longer than the string before, is refused, never a panic.
func TestPathLists(t *testing.T) {
	lists := [][]string{
		nil,
		{""},
		{"a.py", "a/b.py", "a/b/c.py", "a/b/d.py", "a/c.py", "b.py", "b.py", "z/" + strings.Repeat("y", 300) + ".py"},
		{"pkg/deep/module.py", "p.py", ""},
	}
	for _, list := range lists {
		data := append(appendList(nil, list), "rest"...)
		back, rest, err := decodeList(data)
		if err != nil || string(rest) != "rest" || len(back) != len(list) || len(list) > 0 && !reflect.DeepEqual(back, list) {
			t.Fatalf("%q read back as %q, rest %q (%v)", list, back, rest, err)
		}
		whole := appendList(nil, list)
		for cut := range len(whole) {
			if back, _, err := decodeList(whole[:cut]); err == nil {
				t.Errorf("%q cut to %d bytes read as %q", list, cut, back)
			}
		}
	}
	// Two strings, the second claiming 5 bytes of a first of 1.
	bad := []byte{2, 0, 1, 'a', 5, 0}
	if back, _, err := decodeList(bad); err == nil {
		t.Errorf("a prefix longer than the string before read as %q", back)
	}
	l := Lookups{Paths: []string{"/p/a/__init__.py", "/p/b.py"}, Suffixes: []string{"/m.py", "/m/__init__.py"}}
	back, err := decodeLookups(appendLookups(nil, l))
	if err != nil || !reflect.DeepEqual(back, l) {
		t.Fatalf("lookups read back as %v (%v)", back, err)
	}
	if _, err := decodeLookups(append(appendLookups(nil, l), 0)); err == nil {
		t.Error("lookups followed by a byte were read")
	}
	set := newLookupSet(l.Paths, l.Suffixes)
	for p, want := range map[string]bool{
		"/p/a/__init__.py": true, "/p/b.py": true, "/q/m.py": true, "/q/r/m/__init__.py": true,
		"/p/c.py": false, "/q/xm.py": false, "/m.pyc": false, "/p/a/x.py": false,
	} {
		if set.has(p) != want {
			t.Errorf("%s looked up: %v, want %v", p, set.has(p), want)
		}
	}
}
