//go:build !linux

package walk

import "os"

// readDir lists dir with os.ReadDir (readdir_linux.go reads getdents64 itself).
func readDir(dir string, _ []byte) ([]dirent, error) {
	entries, err := os.ReadDir(dir)
	out := make([]dirent, len(entries))
	for i, e := range entries {
		out[i] = dirent{name: e.Name(), typ: e.Type()}
	}
	return out, err
}

const dirBufSize = 0
