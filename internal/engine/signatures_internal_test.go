package engine

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// FuzzDecodeSignatures: a store of any bytes is read without a panic, each record inside
// it, and a store written of the records read is read back the same.
//
//	go test ./internal/engine -run '^$' -fuzz FuzzDecodeSignatures -fuzztime 1m
func FuzzDecodeSignatures(f *testing.F) {
	var records []byte
	records = appendKept(records, "a.py", keptSignature{Size: 10, ModNs: 1 << 40, Sig: []byte{1, 0, 64}})
	records = appendKept(records, "pkg/b.py", keptSignature{ModNs: 1})
	f.Add(records)
	f.Add(records[:len(records)-1])
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, records []byte) {
		// The fuzzer's bytes are the records: a store of them with a right sum, as one
		// written by a run, and a store whose sum is wrong.
		data := store(records)
		data[len(data)-1]++
		if decodeSignatures(data, func(string, keptSignature) { t.Fatal("a record read from a damaged store") }) == nil {
			t.Fatal("a damaged store read")
		}
		data = store(records)
		var again []byte
		err := decodeSignatures(data, func(path string, k keptSignature) {
			if k.Size < 0 || k.ModNs < 0 || !bytes.Contains(data, []byte(path)) || !bytes.Contains(data, k.Sig) {
				t.Fatalf("record %q %+v not from the store", path, k)
			}
			again = appendKept(again, path, k)
		})
		if err != nil {
			return
		}
		var back []byte
		if err := decodeSignatures(store(again), func(path string, k keptSignature) { back = appendKept(back, path, k) }); err != nil {
			t.Fatalf("a store written of what was read does not read back: %v", err)
		}
		if !bytes.Equal(back, again) {
			t.Fatalf("written %q, read back %q", again, back)
		}
	})
}

// store makes a signature store of records, with their sum.
func store(records []byte) []byte {
	out := append([]byte(sigFormat), records...)
	return binary.BigEndian.AppendUint32(out, crc32.Checksum(records, sigTable))
}
