//go:build !linux

package walk

import "os"

// readDir lists dir with os.ReadDir (readdir_linux.go reads getdents64 itself), stating
// nothing: the caller stats each file by its path.
func readDir(dir string, _ []byte, _ func(name string) bool) ([]dirent, error) {
	entries, err := os.ReadDir(dir)
	out := make([]dirent, len(entries))
	for i, e := range entries {
		out[i] = dirent{name: e.Name(), typ: e.Type()}
	}
	return out, err
}

const dirBufSize = 0
