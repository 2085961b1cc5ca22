package mcpseam

// The one speed trick of this package that is not a workaround of a gap
// in the SDK: a request's goroutine is given its stack at once.

// stackReserve is the goroutine stack a request is given at once
// (reserveStack, with Dispatch.GrowStack): the runtime rounds the stack up
// to 32 KiB, which holds most of a docs call's depth.
const stackReserve = 24 << 10

// reserveStack grows the calling goroutine's stack to hold stackReserve
// bytes more, while the stack is still shallow: a frame that large makes
// the runtime grow it once, copying the few frames of the SDK's request
// path, and the call beneath then runs without growing it again.
//
// It relies on the SDK (v1.8.0) running each request on a goroutine it
// starts for that request (TestSeamSDKRunsEachRequestOnItsOwnGoroutine),
// which begins with a small stack. A call needs tens of kilobytes (JSON
// decoding, schema checks, the search, the encoders), so the runtime grew
// and copied the stack two or three times for every call, walking every
// frame each time: 8 % of a keyword search's CPU in a profile. Measured
// again for issue 53 (BenchmarkCall's process, its client included), a
// keyword search took 91–133 µs of CPU with it against 125–148 without,
// get_action 90 against 113 (docs/performance.md). On a goroutine that is
// reused, the stack is already grown, and this costs the zeroing of the
// frame.
//
//go:noinline
func reserveStack(i int) byte {
	var frame [stackReserve]byte
	return frame[i]
}
