//go:build profile

package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"syscall"
)

// Built only with -tags profile, for scripts/bench. When PROFILE_DIR is
// set, the process records a CPU profile from its start and, on SIGUSR1,
// writes cpu.pprof and allocs.pprof there. When BENCH_ALLOCS names a file,
// each SIGUSR2 writes into it the bytes the process has allocated so far, so that the bench can tell the allocations of each
// call. Release builds carry none of this.
func init() {
	if path := os.Getenv("BENCH_ALLOCS"); path != "" {
		countAllocs(path)
	}
	dir := os.Getenv("PROFILE_DIR")
	if dir == "" {
		return
	}
	runtime.MemProfileRate = 4096
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		return
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		<-sig
		pprof.StopCPUProfile()
		cpu.Close()
		f, err := os.Create(filepath.Join(dir, "allocs.pprof"))
		if err == nil {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
		f, _ = os.Create(filepath.Join(dir, "done"))
		f.Close()
	}()
}

// countAllocs writes the bytes allocated so far to path on every
// SIGUSR2, replacing the file in one rename so that a reader never sees
// half of it.
func countAllocs(path string) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR2)
	go func() {
		samples := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
		for range sig {
			metrics.Read(samples)
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, fmt.Appendf(nil, "%d\n", samples[0].Value.Uint64()), 0o600); err == nil {
				os.Rename(tmp, path)
			}
		}
	}()
}
