package runtimecheck

import (
	"errors"
	"fmt"
)

// Handles are the driver's opaque pointers, kept as integers so no Go pointer ever points
// into driver memory.
type (
	Device    int32
	Context   uintptr
	Stream    uintptr
	Event     uintptr
	Module    uintptr
	Function  uintptr
	DevicePtr uint64
)

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int32

// The attributes the probe reports (values from cuda.h).
const (
	AttrMultiprocessorCount    DeviceAttribute = 16
	AttrComputeCapabilityMajor DeviceAttribute = 75
	AttrComputeCapabilityMinor DeviceAttribute = 76
)

// StreamNonBlocking is CU_STREAM_NON_BLOCKING: the probe's streams must not serialise with
// the legacy default stream, or "another stream is busy" would measure nothing.
const StreamNonBlocking uint32 = 0x1

// Dim3 is a grid or block shape.
type Dim3 struct{ X, Y, Z uint32 }

// Driver is the part of the CUDA driver API the probe uses. Every method maps to one entry
// point and returns a *CallError wrapping a *Result when the driver reports failure.
type Driver interface {
	Init() error
	DriverVersion() (int, error)
	DeviceCount() (int, error)
	DeviceGet(ordinal int) (Device, error)
	DeviceName(dev Device) (string, error)
	DeviceTotalMem(dev Device) (uint64, error)
	DeviceAttribute(dev Device, attr DeviceAttribute) (int, error)
	PrimaryCtxRetain(dev Device) (Context, error)
	PrimaryCtxRelease(dev Device) error
	CtxSetCurrent(ctx Context) error
	CtxSynchronize() error
	MemAlloc(size uint64) (DevicePtr, error)
	MemFree(p DevicePtr) error
	MemGetInfo() (free, total uint64, err error)
	// MemsetD32Async writes n 32-bit words at p on stream s.
	MemsetD32Async(p DevicePtr, value uint32, n uint64, s Stream) error
	StreamCreate(flags uint32) (Stream, error)
	StreamDestroy(s Stream) error
	StreamSynchronize(s Stream) error
	EventCreate(flags uint32) (Event, error)
	EventRecord(e Event, s Stream) error
	EventSynchronize(e Event) error
	EventElapsedMs(start, end Event) (float32, error)
	EventDestroy(e Event) error
	ModuleLoadData(image []byte) (Module, error)
	ModuleGetFunction(m Module, name string) (Function, error)
	ModuleUnload(m Module) error
	// LaunchKernel launches f with 64-bit scalar arguments, the only kind the probe's
	// kernels take.
	LaunchKernel(f Function, grid, block Dim3, sharedMem uint32, s Stream, args ...uint64) error
}

// Result is a CUresult other than CUDA_SUCCESS, with the driver's own name and text for it
// (cuGetErrorName, cuGetErrorString).
type Result struct {
	Code        int
	Name        string
	Description string
}

// CUresult values the probe reacts to.
const (
	ResultNotInitialized = 3
	ResultNoDevice       = 100
	ResultInvalidDevice  = 101
	ResultOutOfMemory    = 2
)

func (r *Result) Error() string {
	name := r.Name
	if name == "" {
		name = fmt.Sprintf("CUresult %d", r.Code)
	}
	if r.Description == "" {
		return name
	}
	return name + " (" + r.Description + ")"
}

// CallError says which driver call failed and with what.
type CallError struct {
	Call string // entry point and, where it helps, its argument: "cuMemAlloc_v2(2097152)"
	Err  error
}

func (e *CallError) Error() string { return e.Call + ": " + e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// resultCode returns the CUresult inside err, or 0 when err carries none.
func resultCode(err error) int {
	var r *Result
	if errors.As(err, &r) {
		return r.Code
	}
	return 0
}
