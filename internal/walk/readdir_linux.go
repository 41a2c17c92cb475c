package walk

import (
	"encoding/binary"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// readDir lists dir as os.ReadDir does (sorted by name; what was read before an error is
// returned with it) but with one getdents64 buffer per walking goroutine and no DirEntry
// per name: os.ReadDir was four fifths of a walk's CPU, and bare getdents64 listings of a
// tree's directories took 62-76% of its time (bench/README.md, eleventh session). A type the file system
// does not report (DT_UNKNOWN) is asked of lstat, as os.ReadDir does. A regular file whose
// name stat accepts (nil: none) gets its size and modification time from fstatat against
// the open directory, which resolves one name instead of the whole path.
func readDir(dir string, buf []byte, stat func(name string) bool) ([]dirent, error) {
	fd, err := openDir(dir)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	var out []dirent
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			sortDirents(out)
			return out, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		out = appendDirents(out, dir, buf[:n])
	}
	if stat != nil {
		var st unix.Stat_t
		for i := range out {
			e := &out[i]
			if e.typ == 0 && stat(e.name) && fstatat(fd, e.name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				e.stated, e.size, e.modNs = true, st.Size, st.Mtim.Nano()
			}
		}
	}
	sortDirents(out)
	return out, nil
}

func fstatat(fd int, name string, st *unix.Stat_t) error {
	for {
		if err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW); err != unix.EINTR {
			return err
		}
	}
}

func openDir(dir string) (int, error) {
	for {
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// direntName is where the name starts in a linux_dirent64: inode (8 bytes), offset (8),
// record length (2), type (1).
const direntName = 19

// appendDirents adds the records of one getdents64 answer, without "." and "..".
func appendDirents(out []dirent, dir string, b []byte) []dirent {
	for len(b) >= direntName {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < direntName || reclen > len(b) {
			break // not a record: the kernel never answers so
		}
		ino := binary.NativeEndian.Uint64(b[0:8])
		typ := b[18]
		name := b[direntName:reclen]
		b = b[reclen:]
		if i := slices.Index(name, 0); i >= 0 {
			name = name[:i]
		}
		if ino == 0 || len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue // a deleted file's record, or the directory itself and its parent
		}
		e := dirent{name: string(name)}
		switch typ {
		case syscall.DT_DIR:
			e.typ = fs.ModeDir
		case syscall.DT_REG:
		case syscall.DT_LNK:
			e.typ = fs.ModeSymlink
		case syscall.DT_UNKNOWN:
			fi, err := os.Lstat(joinName(dir, e.name))
			if err != nil {
				// Gone since it was listed (os.ReadDir leaves it out too), or unreadable:
				// not walked either way.
				continue
			}
			e.typ = fi.Mode().Type()
		default:
			e.typ = fs.ModeIrregular // a device, pipe or socket: never walked
		}
		out = append(out, e)
	}
	return out
}

func sortDirents(d []dirent) {
	slices.SortFunc(d, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
}

// dirBufSize is each walking goroutine's getdents64 buffer (os.ReadDir reads 8 KB at a time).
const dirBufSize = 32 << 10
