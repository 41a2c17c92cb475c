package engine

import (
	"bytes"
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
