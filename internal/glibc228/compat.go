//go:build linux && cgo && (amd64 || arm64)

package glibc228

// A glibc before 2.34 defines the old pthread and dl versions in these two libraries; from
// 2.34 on they are empty stubs. -l: names the runtime file: 2.34 and later ship no
// libpthread.so or libdl.so to link against by the short name.

// #cgo LDFLAGS: -Wl,--push-state -Wl,--no-as-needed -l:libpthread.so.0 -l:libdl.so.2 -Wl,--pop-state
import "C"
