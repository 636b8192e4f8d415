package engine

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// cpuTime reports, beside ns/op, the benchmark loop's CPU time per op on its
// own thread ("cpu-ns/op"): on this shared 2-core machine wall time counts
// the time other processes hold the core, thread CPU time does not. Call it
// right before the loop: defer cpuTime(b)(). The benchmarks it is used in
// allocate nothing, so no garbage collection runs on other threads for them.
func cpuTime(b *testing.B) func() {
	runtime.LockOSThread()
	start := threadCPU()
	b.ResetTimer()
	return func() {
		b.ReportMetric(float64(threadCPU()-start)/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}

func threadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
