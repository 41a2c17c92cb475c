package runtimecheck

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// libcudaName is the soname the NVIDIA driver installs; a variable so tests can point it at
// a library that does not exist.
var libcudaName = "libcuda.so.1"

// ErrNoLibrary means the CUDA driver library could not be opened.
var ErrNoLibrary = errors.New("not found")

// libcuda calls the real driver through purego. CUresult is a C enum, CUdevice an int,
// CUdeviceptr an unsigned long long, and the other handles pointers; size_t is 64-bit on
// every platform purego supports without cgo.
type libcuda struct {
	handle uintptr

	cuInit                    func(flags uint32) int32
	cuDriverGetVersion        func(v *int32) int32
	cuDeviceGetCount          func(n *int32) int32
	cuDeviceGet               func(d *int32, ordinal int32) int32
	cuDeviceGetName           func(name *byte, n int32, dev int32) int32
	cuDeviceTotalMem          func(b *uint64, dev int32) int32
	cuDeviceGetAttribute      func(v *int32, attr int32, dev int32) int32
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) int32
	cuDevicePrimaryCtxRelease func(dev int32) int32
	cuCtxSetCurrent           func(ctx uintptr) int32
	cuCtxSynchronize          func() int32
	cuMemAlloc                func(p *uint64, size uint64) int32
	cuMemFree                 func(p uint64) int32
	cuMemGetInfo              func(free, total *uint64) int32
	cuMemsetD32Async          func(p uint64, v uint32, n uint64, s uintptr) int32
	cuStreamCreate            func(s *uintptr, flags uint32) int32
	cuStreamDestroy           func(s uintptr) int32
	cuStreamSynchronize       func(s uintptr) int32
	cuEventCreate             func(e *uintptr, flags uint32) int32
	cuEventRecord             func(e, s uintptr) int32
	cuEventSynchronize        func(e uintptr) int32
	cuEventElapsedTime        func(ms *float32, start, end uintptr) int32
	cuEventDestroy            func(e uintptr) int32
	cuModuleLoadData          func(m *uintptr, image *byte) int32
	cuModuleGetFunction       func(f *uintptr, m uintptr, name *byte) int32
	cuModuleUnload            func(m uintptr) int32
	cuLaunchKernel            func(f uintptr, gx, gy, gz, bx, by, bz, shmem uint32, s uintptr, params *unsafe.Pointer, extra *unsafe.Pointer) int32
	cuGetErrorName            func(r int32, s **byte) int32
	cuGetErrorString          func(r int32, s **byte) int32
}

// OpenLibcuda opens the CUDA driver library and resolves every entry point the probe uses.
// A missing library wraps ErrNoLibrary; a missing symbol names it (an older driver).
func OpenLibcuda() (Driver, error) {
	h, err := purego.Dlopen(libcudaName, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("%s %w (is the NVIDIA driver installed?): %w", libcudaName, ErrNoLibrary, err)
	}
	l := &libcuda{handle: h}
	// Versioned names are the ones cuda.h maps the plain names to; the plain symbols keep
	// the 32-bit-size ABI of CUDA 3.x.
	syms := []struct {
		name string
		fn   any
	}{
		{"cuInit", &l.cuInit},
		{"cuDriverGetVersion", &l.cuDriverGetVersion},
		{"cuDeviceGetCount", &l.cuDeviceGetCount},
		{"cuDeviceGet", &l.cuDeviceGet},
		{"cuDeviceGetName", &l.cuDeviceGetName},
		{"cuDeviceTotalMem_v2", &l.cuDeviceTotalMem},
		{"cuDeviceGetAttribute", &l.cuDeviceGetAttribute},
		{"cuDevicePrimaryCtxRetain", &l.cuDevicePrimaryCtxRetain},
		{"cuDevicePrimaryCtxRelease_v2", &l.cuDevicePrimaryCtxRelease},
		{"cuCtxSetCurrent", &l.cuCtxSetCurrent},
		{"cuCtxSynchronize", &l.cuCtxSynchronize},
		{"cuMemAlloc_v2", &l.cuMemAlloc},
		{"cuMemFree_v2", &l.cuMemFree},
		{"cuMemGetInfo_v2", &l.cuMemGetInfo},
		{"cuMemsetD32Async", &l.cuMemsetD32Async},
		{"cuStreamCreate", &l.cuStreamCreate},
		{"cuStreamDestroy_v2", &l.cuStreamDestroy},
		{"cuStreamSynchronize", &l.cuStreamSynchronize},
		{"cuEventCreate", &l.cuEventCreate},
		{"cuEventRecord", &l.cuEventRecord},
		{"cuEventSynchronize", &l.cuEventSynchronize},
		{"cuEventElapsedTime", &l.cuEventElapsedTime},
		{"cuEventDestroy_v2", &l.cuEventDestroy},
		{"cuModuleLoadData", &l.cuModuleLoadData},
		{"cuModuleGetFunction", &l.cuModuleGetFunction},
		{"cuModuleUnload", &l.cuModuleUnload},
		{"cuLaunchKernel", &l.cuLaunchKernel},
		{"cuGetErrorName", &l.cuGetErrorName},
		{"cuGetErrorString", &l.cuGetErrorString},
	}
	for _, s := range syms {
		addr, err := purego.Dlsym(h, s.name)
		if err != nil || addr == 0 {
			_ = purego.Dlclose(h)
			return nil, fmt.Errorf("%s has no %s (driver too old?)", libcudaName, s.name)
		}
		purego.RegisterFunc(s.fn, addr)
	}
	return l, nil
}

// cString copies a NUL-terminated string the driver owns; the bound keeps a corrupt pointer
// from walking memory forever.
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := 0; i < 1024; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

func (l *libcuda) check(call string, r int32) error {
	if r == 0 {
		return nil
	}
	res := &Result{Code: int(r)}
	var s *byte
	if l.cuGetErrorName(r, &s) == 0 {
		res.Name = cString(s)
	}
	s = nil
	if l.cuGetErrorString(r, &s) == 0 {
		res.Description = cString(s)
	}
	return &CallError{Call: call, Err: res}
}

func (l *libcuda) Init() error { return l.check("cuInit", l.cuInit(0)) }

func (l *libcuda) DriverVersion() (int, error) {
	var v int32
	err := l.check("cuDriverGetVersion", l.cuDriverGetVersion(&v))
	return int(v), err
}

func (l *libcuda) DeviceCount() (int, error) {
	var n int32
	err := l.check("cuDeviceGetCount", l.cuDeviceGetCount(&n))
	return int(n), err
}

func (l *libcuda) DeviceGet(ordinal int) (Device, error) {
	var d int32
	err := l.check(fmt.Sprintf("cuDeviceGet(%d)", ordinal), l.cuDeviceGet(&d, int32(ordinal)))
	return Device(d), err
}

func (l *libcuda) DeviceName(dev Device) (string, error) {
	var buf [256]byte
	if err := l.check("cuDeviceGetName", l.cuDeviceGetName(&buf[0], int32(len(buf)), int32(dev))); err != nil {
		return "", err
	}
	return cString(&buf[0]), nil
}

func (l *libcuda) DeviceTotalMem(dev Device) (uint64, error) {
	var b uint64
	err := l.check("cuDeviceTotalMem_v2", l.cuDeviceTotalMem(&b, int32(dev)))
	return b, err
}

func (l *libcuda) DeviceAttribute(dev Device, attr DeviceAttribute) (int, error) {
	var v int32
	err := l.check(fmt.Sprintf("cuDeviceGetAttribute(%d)", attr), l.cuDeviceGetAttribute(&v, int32(attr), int32(dev)))
	return int(v), err
}

func (l *libcuda) PrimaryCtxRetain(dev Device) (Context, error) {
	var c uintptr
	err := l.check("cuDevicePrimaryCtxRetain", l.cuDevicePrimaryCtxRetain(&c, int32(dev)))
	return Context(c), err
}

func (l *libcuda) PrimaryCtxRelease(dev Device) error {
	return l.check("cuDevicePrimaryCtxRelease_v2", l.cuDevicePrimaryCtxRelease(int32(dev)))
}

func (l *libcuda) CtxSetCurrent(ctx Context) error {
	return l.check("cuCtxSetCurrent", l.cuCtxSetCurrent(uintptr(ctx)))
}

func (l *libcuda) CtxSynchronize() error { return l.check("cuCtxSynchronize", l.cuCtxSynchronize()) }

func (l *libcuda) MemAlloc(size uint64) (DevicePtr, error) {
	var p uint64
	err := l.check(fmt.Sprintf("cuMemAlloc_v2(%d bytes)", size), l.cuMemAlloc(&p, size))
	return DevicePtr(p), err
}

func (l *libcuda) MemFree(p DevicePtr) error {
	return l.check("cuMemFree_v2", l.cuMemFree(uint64(p)))
}

func (l *libcuda) MemGetInfo() (free, total uint64, err error) {
	err = l.check("cuMemGetInfo_v2", l.cuMemGetInfo(&free, &total))
	return free, total, err
}

func (l *libcuda) MemsetD32Async(p DevicePtr, value uint32, n uint64, s Stream) error {
	return l.check("cuMemsetD32Async", l.cuMemsetD32Async(uint64(p), value, n, uintptr(s)))
}

func (l *libcuda) StreamCreate(flags uint32) (Stream, error) {
	var s uintptr
	err := l.check("cuStreamCreate", l.cuStreamCreate(&s, flags))
	return Stream(s), err
}

func (l *libcuda) StreamDestroy(s Stream) error {
	return l.check("cuStreamDestroy_v2", l.cuStreamDestroy(uintptr(s)))
}

func (l *libcuda) StreamSynchronize(s Stream) error {
	return l.check("cuStreamSynchronize", l.cuStreamSynchronize(uintptr(s)))
}

func (l *libcuda) EventCreate(flags uint32) (Event, error) {
	var e uintptr
	err := l.check("cuEventCreate", l.cuEventCreate(&e, flags))
	return Event(e), err
}

func (l *libcuda) EventRecord(e Event, s Stream) error {
	return l.check("cuEventRecord", l.cuEventRecord(uintptr(e), uintptr(s)))
}

func (l *libcuda) EventSynchronize(e Event) error {
	return l.check("cuEventSynchronize", l.cuEventSynchronize(uintptr(e)))
}

func (l *libcuda) EventElapsedMs(start, end Event) (float32, error) {
	var ms float32
	err := l.check("cuEventElapsedTime", l.cuEventElapsedTime(&ms, uintptr(start), uintptr(end)))
	return ms, err
}

func (l *libcuda) EventDestroy(e Event) error {
	return l.check("cuEventDestroy_v2", l.cuEventDestroy(uintptr(e)))
}

func (l *libcuda) ModuleLoadData(image []byte) (Module, error) {
	// The driver reads PTX as a C string.
	img := append(append([]byte(nil), image...), 0)
	var m uintptr
	err := l.check("cuModuleLoadData", l.cuModuleLoadData(&m, &img[0]))
	runtime.KeepAlive(img)
	return Module(m), err
}

func (l *libcuda) ModuleGetFunction(m Module, name string) (Function, error) {
	cname := append([]byte(name), 0)
	var f uintptr
	err := l.check("cuModuleGetFunction("+name+")", l.cuModuleGetFunction(&f, uintptr(m), &cname[0]))
	runtime.KeepAlive(cname)
	return Function(f), err
}

func (l *libcuda) ModuleUnload(m Module) error {
	return l.check("cuModuleUnload", l.cuModuleUnload(uintptr(m)))
}

func (l *libcuda) LaunchKernel(f Function, grid, block Dim3, sharedMem uint32, s Stream, args ...uint64) error {
	// kernelParams is an array of pointers to the argument values. It lives in Go memory
	// and holds Go pointers, which the cgo rules allow only for pinned objects; the driver
	// copies the values before cuLaunchKernel returns.
	vals := make([]uint64, len(args))
	copy(vals, args)
	var params []unsafe.Pointer
	var pin runtime.Pinner
	defer pin.Unpin()
	for i := range vals {
		pin.Pin(&vals[i])
		params = append(params, unsafe.Pointer(&vals[i]))
	}
	var pp *unsafe.Pointer
	if len(params) > 0 {
		pin.Pin(&params[0])
		pp = &params[0]
	}
	r := l.cuLaunchKernel(uintptr(f), grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, sharedMem, uintptr(s), pp, nil)
	runtime.KeepAlive(params)
	runtime.KeepAlive(vals)
	return l.check("cuLaunchKernel", r)
}
