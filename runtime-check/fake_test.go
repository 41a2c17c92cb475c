package runtimecheck

import (
	"fmt"
	"time"
)

// fakeGPU simulates the driver on a virtual clock: host calls advance the host clock by
// configured latencies, kernels occupy their stream's timeline, and synchronising waits for
// it. Timings the probe reports are therefore exact functions of the configuration, which
// lets tests check the arithmetic and not just that something was printed.
type fakeGPU struct {
	// configuration
	devices     int
	name        string
	totalMem    uint64
	freeMem     uint64
	syncLat     time.Duration // host cost of a sync call on an idle device
	launchLat   time.Duration // host cost of a launch
	startLat    time.Duration // launch to kernel start on an idle stream
	allocBase   time.Duration
	allocPerGiB time.Duration
	freeBase    time.Duration
	freePerGiB  time.Duration
	// coldPerGiB is what each cuMemFree costs more per GiB after evictCPUCaches ran and
	// before the next allocation: the real driver's free loop runs slower with its state
	// out of the CPU caches.
	coldPerGiB time.Duration
	freeWaits  bool // cuMemFree waits for all queued work, as the real driver does
	allocWaits bool
	initErr    int            // CUresult cuInit returns
	failAt     map[string]int // method -> CUresult to return on its first call
	failOnCall map[string]int // method -> 1-based call number that fails
	spinScale  float64        // kernel duration / asked duration (1 when 0)

	// state
	now      time.Duration
	busy     map[Stream]time.Duration
	events   map[Event]time.Duration
	live     map[DevicePtr]uint64
	streams  map[Stream]bool
	modules  map[Module]bool
	ctxRefs  int
	current  bool
	calls    map[string]int
	nextID   uintptr
	kernels  []time.Duration
	maxAsked time.Duration
	cold     bool // evictCPUCaches ran since the last allocation
}

func newFakeGPU() *fakeGPU {
	return &fakeGPU{
		devices:     1,
		name:        "Fake H200",
		totalMem:    140 * gib,
		freeMem:     139 * gib,
		syncLat:     4 * time.Microsecond,
		launchLat:   3 * time.Microsecond,
		startLat:    5 * time.Microsecond,
		allocBase:   20 * time.Microsecond,
		allocPerGiB: 400 * time.Microsecond,
		freeBase:    30 * time.Microsecond,
		freePerGiB:  100 * time.Microsecond,
		coldPerGiB:  100 * time.Microsecond,
		freeWaits:   true,
		failAt:      map[string]int{},
		failOnCall:  map[string]int{},
		busy:        map[Stream]time.Duration{},
		events:      map[Event]time.Duration{},
		live:        map[DevicePtr]uint64{},
		streams:     map[Stream]bool{},
		modules:     map[Module]bool{},
		calls:       map[string]int{},
	}
}

var fakeEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (f *fakeGPU) clock() time.Time { return fakeEpoch.Add(f.now) }

var fakeNames = map[int][2]string{
	1:   {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	2:   {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	100: {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	999: {"CUDA_ERROR_UNKNOWN", "unknown error"},
}

func fakeErr(call string, code int) error {
	n := fakeNames[code]
	return &CallError{Call: call, Err: &Result{Code: code, Name: n[0], Description: n[1]}}
}

// enter counts a call and returns the injected failure, if any.
func (f *fakeGPU) enter(method string) error {
	f.calls[method]++
	if code, ok := f.failAt[method]; ok {
		if n, ok := f.failOnCall[method]; !ok || n == f.calls[method] {
			return fakeErr(method, code)
		}
	}
	return nil
}

func (f *fakeGPU) id() uintptr { f.nextID++; return f.nextID }

func (f *fakeGPU) deviceIdle() time.Duration {
	t := f.now
	for _, b := range f.busy {
		if b > t {
			t = b
		}
	}
	return t
}

func (f *fakeGPU) Init() error {
	if err := f.enter("Init"); err != nil {
		return err
	}
	if f.initErr != 0 {
		return fakeErr("cuInit", f.initErr)
	}
	return nil
}

func (f *fakeGPU) DriverVersion() (int, error) { return 13000, f.enter("DriverVersion") }
func (f *fakeGPU) DeviceCount() (int, error)   { return f.devices, f.enter("DeviceCount") }

func (f *fakeGPU) DeviceGet(o int) (Device, error) {
	if o >= f.devices {
		return 0, fakeErr("cuDeviceGet", 101)
	}
	return Device(o), f.enter("DeviceGet")
}

func (f *fakeGPU) DeviceName(Device) (string, error) { return f.name, f.enter("DeviceName") }
func (f *fakeGPU) DeviceTotalMem(Device) (uint64, error) {
	return f.totalMem, f.enter("DeviceTotalMem")
}

func (f *fakeGPU) DeviceAttribute(_ Device, a DeviceAttribute) (int, error) {
	v := map[DeviceAttribute]int{AttrComputeCapabilityMajor: 9, AttrComputeCapabilityMinor: 0, AttrMultiprocessorCount: 132}[a]
	return v, f.enter("DeviceAttribute")
}

func (f *fakeGPU) PrimaryCtxRetain(Device) (Context, error) {
	if err := f.enter("PrimaryCtxRetain"); err != nil {
		return 0, err
	}
	f.ctxRefs++
	return Context(0xc0), nil
}

func (f *fakeGPU) PrimaryCtxRelease(Device) error {
	if err := f.enter("PrimaryCtxRelease"); err != nil {
		return err
	}
	f.ctxRefs--
	return nil
}

func (f *fakeGPU) CtxSetCurrent(Context) error {
	if err := f.enter("CtxSetCurrent"); err != nil {
		return err
	}
	f.current = true
	return nil
}

func (f *fakeGPU) needCtx(call string) error {
	if !f.current {
		return fakeErr(call+" without a current context", 1)
	}
	return nil
}

func (f *fakeGPU) CtxSynchronize() error {
	if err := f.enter("CtxSynchronize"); err != nil {
		return err
	}
	f.now = f.deviceIdle() + f.syncLat
	return nil
}

func cost(base, perGiB time.Duration, size uint64) time.Duration {
	return base + time.Duration(float64(perGiB)*float64(size)/gib)
}

func (f *fakeGPU) MemAlloc(size uint64) (DevicePtr, error) {
	if err := f.enter("MemAlloc"); err != nil {
		return 0, err
	}
	if err := f.needCtx("MemAlloc"); err != nil {
		return 0, err
	}
	if f.allocWaits {
		f.now = f.deviceIdle()
	}
	f.now += cost(f.allocBase, f.allocPerGiB, size)
	f.cold = false
	if size > f.freeMem {
		return 0, fakeErr(fmt.Sprintf("cuMemAlloc_v2(%d bytes)", size), 2)
	}
	f.freeMem -= size
	p := DevicePtr(f.id() << 32)
	f.live[p] = size
	return p, nil
}

func (f *fakeGPU) MemFree(p DevicePtr) error {
	if err := f.enter("MemFree"); err != nil {
		return err
	}
	size, ok := f.live[p]
	if !ok {
		return fakeErr("cuMemFree_v2 of an unknown pointer", 1)
	}
	if f.freeWaits {
		f.now = f.deviceIdle()
	}
	f.now += cost(f.freeBase, f.freePerGiB, size)
	if f.cold {
		f.now += cost(0, f.coldPerGiB, size)
	}
	delete(f.live, p)
	f.freeMem += size
	return nil
}

func (f *fakeGPU) MemGetInfo() (uint64, uint64, error) {
	return f.freeMem, f.totalMem, f.enter("MemGetInfo")
}

func (f *fakeGPU) MemsetD32Async(p DevicePtr, v uint32, n uint64, s Stream) error {
	if err := f.enter("MemsetD32Async"); err != nil {
		return err
	}
	if size, ok := f.live[p]; !ok || n*4 > size || !f.streams[s] {
		return fakeErr("cuMemsetD32Async out of bounds", 1)
	}
	f.now += f.launchLat
	start := f.now + f.startLat
	if f.busy[s] > start {
		start = f.busy[s]
	}
	// 3 TB/s
	f.busy[s] = start + time.Duration(float64(n*4)/3e12*float64(time.Second))
	return nil
}

func (f *fakeGPU) StreamCreate(flags uint32) (Stream, error) {
	if err := f.enter("StreamCreate"); err != nil {
		return 0, err
	}
	if flags != StreamNonBlocking {
		return 0, fakeErr("cuStreamCreate: the probe's streams must not block on the default stream", 1)
	}
	s := Stream(f.id())
	f.streams[s] = true
	return s, nil
}

func (f *fakeGPU) StreamDestroy(s Stream) error {
	if err := f.enter("StreamDestroy"); err != nil {
		return err
	}
	delete(f.streams, s)
	delete(f.busy, s)
	return nil
}

func (f *fakeGPU) StreamSynchronize(s Stream) error {
	if err := f.enter("StreamSynchronize"); err != nil {
		return err
	}
	if b := f.busy[s]; b > f.now {
		f.now = b
	}
	f.now += f.syncLat
	return nil
}

func (f *fakeGPU) EventCreate(uint32) (Event, error) {
	if err := f.enter("EventCreate"); err != nil {
		return 0, err
	}
	e := Event(f.id())
	f.events[e] = -1
	return e, nil
}

func (f *fakeGPU) EventRecord(e Event, s Stream) error {
	if err := f.enter("EventRecord"); err != nil {
		return err
	}
	t := f.now
	if f.busy[s] > t {
		t = f.busy[s]
	}
	f.events[e] = t
	return nil
}

func (f *fakeGPU) EventSynchronize(e Event) error {
	if err := f.enter("EventSynchronize"); err != nil {
		return err
	}
	if f.events[e] > f.now {
		f.now = f.events[e]
	}
	return nil
}

func (f *fakeGPU) EventElapsedMs(a, b Event) (float32, error) {
	if err := f.enter("EventElapsedMs"); err != nil {
		return 0, err
	}
	return float32(float64(f.events[b]-f.events[a]) / float64(time.Millisecond)), nil
}

func (f *fakeGPU) EventDestroy(e Event) error {
	if err := f.enter("EventDestroy"); err != nil {
		return err
	}
	delete(f.events, e)
	return nil
}

func (f *fakeGPU) ModuleLoadData(img []byte) (Module, error) {
	if err := f.enter("ModuleLoadData"); err != nil {
		return 0, err
	}
	if len(img) == 0 {
		return 0, fakeErr("cuModuleLoadData", 1)
	}
	m := Module(f.id())
	f.modules[m] = true
	return m, nil
}

func (f *fakeGPU) ModuleGetFunction(m Module, name string) (Function, error) {
	if err := f.enter("ModuleGetFunction"); err != nil {
		return 0, err
	}
	if !f.modules[m] || name != spinKernelName {
		return 0, fakeErr("cuModuleGetFunction", 1)
	}
	return Function(0xf0), nil
}

func (f *fakeGPU) ModuleUnload(m Module) error {
	if err := f.enter("ModuleUnload"); err != nil {
		return err
	}
	delete(f.modules, m)
	return nil
}

func (f *fakeGPU) LaunchKernel(fn Function, grid, block Dim3, shared uint32, s Stream, args ...uint64) error {
	if err := f.enter("LaunchKernel"); err != nil {
		return err
	}
	if fn != 0xf0 || len(args) != 1 || !f.streams[s] {
		return fakeErr("cuLaunchKernel", 1)
	}
	asked := time.Duration(args[0])
	if asked > f.maxAsked {
		f.maxAsked = asked
	}
	d := asked
	if d > maxSpin { // the PTX clamps
		d = maxSpin
	}
	if f.spinScale != 0 {
		d = time.Duration(float64(d) * f.spinScale)
	}
	f.now += f.launchLat
	start := f.now + f.startLat
	if f.busy[s] > start {
		start = f.busy[s]
	}
	f.busy[s] = start + d
	f.kernels = append(f.kernels, d)
	return nil
}

// leaks lists whatever the probe left behind.
func (f *fakeGPU) leaks() []string {
	var out []string
	if len(f.live) > 0 {
		out = append(out, fmt.Sprintf("%d allocations", len(f.live)))
	}
	if len(f.streams) > 0 {
		out = append(out, fmt.Sprintf("%d streams", len(f.streams)))
	}
	if len(f.events) > 0 {
		out = append(out, fmt.Sprintf("%d events", len(f.events)))
	}
	if len(f.modules) > 0 {
		out = append(out, fmt.Sprintf("%d modules", len(f.modules)))
	}
	if f.ctxRefs != 0 {
		out = append(out, fmt.Sprintf("%d context references", f.ctxRefs))
	}
	return out
}
