//go:build unix

package fix

import (
	"os"
	"syscall"
)

// linkCount is how many hard links the file has (1 when the system does not say).
func linkCount(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 1
}
