package engine

import (
	"bytes"
	"testing"
)

// TestGraphDigest: a store's digest is a function of its bytes alone, whatever the number of
// goroutines that read its blocks, and any one bit flipped, in any block, or a byte cut or
// added, changes it.
func TestGraphDigest(t *testing.T) {
	data := make([]byte, 3*digestBlock+12345)
	for i := range data {
		data[i] = byte(i*31 + i>>9)
	}
	want := graphDigest(data, 1)
	for _, jobs := range []int{2, 3, 16} {
		if got := graphDigest(data, jobs); !bytes.Equal(got, want) {
			t.Fatalf("%d goroutines: digest %x, one goroutine %x", jobs, got, want)
		}
	}
	for _, at := range []int{0, digestBlock - 1, digestBlock, 2*digestBlock + 7, len(data) - 1} {
		data[at] ^= 0x10
		if bytes.Equal(graphDigest(data, 4), want) {
			t.Errorf("a bit flipped at %d left the digest as it was", at)
		}
		data[at] ^= 0x10
	}
	for _, other := range [][]byte{data[:len(data)-1], append(data[:len(data):len(data)], 0), data[:digestBlock], nil} {
		if bytes.Equal(graphDigest(other, 4), want) {
			t.Errorf("%d bytes have the digest of %d", len(other), len(data))
		}
	}
}
