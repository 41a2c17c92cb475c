package runtimecheck

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// fakeFreeBaseEnv sets the simulated cuMemFree base latency (µs) of fresh replay
// processes, so a test can make them differ from the parent.
const fakeFreeBaseEnv = "CACHELINT_TEST_FAKE_FREE_BASE_US"

// TestMain doubles as the fresh replay process: the probe starts this test binary again
// with replayEnv set, and it then replays on a simulated GPU of its own.
func TestMain(m *testing.M) {
	if payload := os.Getenv(replayEnv); payload != "" {
		f := newFakeGPU()
		if us, err := strconv.Atoi(os.Getenv(fakeFreeBaseEnv)); err == nil {
			f.freeBase = time.Duration(us) * time.Microsecond
		}
		openDriver = func() (Driver, error) { return f, nil }
		clock = f.clock
		evictCPUCaches = func([]byte, int) { f.cold = true }
		os.Exit(runReplayChild(context.Background(), payload, os.Stdout, os.Stderr))
	}
	replayCommand = func() (string, []string, error) { return os.Args[0], []string{"-test.run=^$"}, nil }
	os.Exit(m.Run())
}
