package engine

import (
	"bytes"
	"testing"
)

// TestGraphDigest: a store's digest is a function of its bytes alone, whatever the number of
// goroutines that read its blocks and however it is cut into pieces, and any one bit
// flipped, in any block, or a byte cut or added, changes it.
func TestGraphDigest(t *testing.T) {
	data := make([]byte, 3*digestBlock+12345)
	for i := range data {
		data[i] = byte(i*31 + i>>9)
	}
	digest := func(b []byte, jobs int) []byte { return graphDigest([][]byte{b}, jobs) }
	want := digest(data, 1)
	for _, jobs := range []int{2, 3, 16} {
		if got := digest(data, jobs); !bytes.Equal(got, want) {
			t.Fatalf("%d goroutines: digest %x, one goroutine %x", jobs, got, want)
		}
	}
	for _, cuts := range [][]int{{1}, {digestBlock}, {7, 8, digestBlock - 1, digestBlock + 1, 2*digestBlock + 3}, {len(data) - 1}} {
		var pieces [][]byte
		from := 0
		for _, c := range cuts {
			pieces = append(pieces, data[from:c], nil)
			from = c
		}
		pieces = append(pieces, data[from:])
		if got := graphDigest(pieces, 4); !bytes.Equal(got, want) {
			t.Errorf("cut at %v: digest %x, whole %x", cuts, got, want)
		}
	}
	for _, at := range []int{0, digestBlock - 1, digestBlock, 2*digestBlock + 7, len(data) - 1} {
		data[at] ^= 0x10
		if bytes.Equal(digest(data, 4), want) {
			t.Errorf("a bit flipped at %d left the digest as it was", at)
		}
		data[at] ^= 0x10
	}
	for _, other := range [][]byte{data[:len(data)-1], append(data[:len(data):len(data)], 0), data[:digestBlock], nil} {
		if bytes.Equal(digest(other, 4), want) {
			t.Errorf("%d bytes have the digest of %d", len(other), len(data))
		}
	}
}
