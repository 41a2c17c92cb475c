package runtimecheck

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ebitengine/purego"
)

// utilSource reads GPU utilisation; NVML on a real machine, a table in tests.
type utilSource interface {
	// UUIDs lists the devices, as NVML names them ("GPU-…").
	UUIDs() []string
	// Util is device i's utilisation in percent over NVML's last sample period.
	Util(i int) (uint32, error)
	Close()
}

// openUtil is how the trace gets a utilisation source; tests replace it.
var openUtil = openNVML

// gpuSample is one reading of one device.
type gpuSample struct {
	UUID string
	Wall float64 // Unix seconds, as the shim's window bounds
	Util float64
}

// nvml calls libnvidia-ml through purego, as libcuda is called: no cgo, nothing linked.
type nvml struct {
	handle   uintptr
	devices  []uintptr
	uuids    []string
	shutdown func() int32
	utilRate func(dev uintptr, u *[2]uint32) int32
}

func openNVML() (utilSource, error) {
	h, err := purego.Dlopen("libnvidia-ml.so.1", purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("libnvidia-ml.so.1 not found: %w", err)
	}
	n := &nvml{handle: h}
	var (
		initFn   func() int32
		count    func(c *uint32) int32
		byIndex  func(i uint32, dev *uintptr) int32
		uuidFn   func(dev uintptr, buf *byte, size uint32) int32
		register = func(name string, fn any) error {
			addr, err := purego.Dlsym(h, name)
			if err != nil || addr == 0 {
				return fmt.Errorf("libnvidia-ml.so.1 has no %s", name)
			}
			purego.RegisterFunc(fn, addr)
			return nil
		}
	)
	for name, fn := range map[string]any{"nvmlInit_v2": &initFn, "nvmlShutdown": &n.shutdown, "nvmlDeviceGetCount_v2": &count,
		"nvmlDeviceGetHandleByIndex_v2": &byIndex, "nvmlDeviceGetUUID": &uuidFn, "nvmlDeviceGetUtilizationRates": &n.utilRate} {
		if err := register(name, fn); err != nil {
			_ = purego.Dlclose(h)
			return nil, err
		}
	}
	if r := initFn(); r != 0 {
		_ = purego.Dlclose(h)
		return nil, fmt.Errorf("nvmlInit_v2: error %d", r)
	}
	var c uint32
	if r := count(&c); r != 0 {
		n.Close()
		return nil, fmt.Errorf("nvmlDeviceGetCount_v2: error %d", r)
	}
	for i := uint32(0); i < c; i++ {
		var dev uintptr
		if byIndex(i, &dev) != 0 {
			continue
		}
		buf := make([]byte, 96)
		if uuidFn(dev, &buf[0], uint32(len(buf))) != 0 {
			continue
		}
		n.devices = append(n.devices, dev)
		n.uuids = append(n.uuids, cString(&buf[0]))
	}
	return n, nil
}

func (n *nvml) UUIDs() []string { return n.uuids }

func (n *nvml) Util(i int) (uint32, error) {
	var u [2]uint32 // nvmlUtilization_t: gpu, memory
	if r := n.utilRate(n.devices[i], &u); r != 0 {
		return 0, fmt.Errorf("nvmlDeviceGetUtilizationRates: error %d", r)
	}
	return u[0], nil
}

func (n *nvml) Close() {
	n.shutdown()
	_ = purego.Dlclose(n.handle)
}

// utilSampler reads every device's utilisation every period until stopped.
type utilSampler struct {
	src     utilSource
	stop    chan struct{}
	done    sync.WaitGroup
	mu      sync.Mutex
	samples []gpuSample
}

func startUtilSampler(src utilSource, period time.Duration) *utilSampler {
	s := &utilSampler{src: src, stop: make(chan struct{})}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case now := <-t.C:
				for i, id := range src.UUIDs() {
					if u, err := src.Util(i); err == nil {
						s.mu.Lock()
						s.samples = append(s.samples, gpuSample{UUID: id, Wall: float64(now.UnixNano()) / 1e9, Util: float64(u)})
						s.mu.Unlock()
					}
				}
			}
		}
	}()
	return s
}

// Stop ends sampling and returns the samples.
func (s *utilSampler) Stop() []gpuSample {
	close(s.stop)
	s.done.Wait()
	s.src.Close()
	return s.samples
}

// windowUtil is the mean utilisation of the device a process ran on over one window;
// ok is false when no sample fell inside it. uuid is torch's device UUID (with or without
// NVML's "GPU-" prefix); empty, it matches only a machine's single device.
func windowUtil(samples []gpuSample, uuid string, w *traceWindow) (float64, bool) {
	uuid = strings.TrimPrefix(uuid, "GPU-")
	var sum float64
	n, only := 0, ""
	for _, s := range samples {
		if s.Wall < w.WallStart || s.Wall > w.WallEnd {
			continue
		}
		id := strings.TrimPrefix(s.UUID, "GPU-")
		if uuid == "" {
			if only == "" {
				only = id
			} else if id != only {
				return 0, false // several devices and no way to tell which one the process used
			}
		} else if id != uuid {
			continue
		}
		sum += s.Util
		n++
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}
