//go:build unix

package engine

import (
	"os"
	"syscall"
)

// mapPack maps a pack's size bytes read-only. The mapping is never undone: the trees read
// from it are taken in place (pyparse.DecodeTree) and live as long as the process does. A
// pack is never changed once in place (a run writes a new one and renames it there, and
// removing one leaves a mapping whole), as git's packs, which git maps the same way.
func mapPack(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}
