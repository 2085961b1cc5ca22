//go:build profile

package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
)

// Built only with -tags profile, for scripts/bench -profile: when
// PROFILE_DIR is set, the process records a CPU profile from its start and,
// on SIGUSR1, writes cpu.pprof and allocs.pprof there. Release builds carry
// none of this.
func init() {
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
