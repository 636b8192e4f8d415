//go:build !linux

package engine

import "testing"

// cpuTime is the Linux helper's stand-in (bench_cpu_linux_test.go): no
// thread clock here, wall time (ns/op) only.
func cpuTime(b *testing.B) func() { return func() {} }
