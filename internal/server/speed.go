package server

import "github.com/snowluma/snowluma-mcp/internal/mcpseam"

// Speed is the server's one switch for the speed tricks, which live behind
// the SDK seam (internal/mcpseam) and are measured side by side with
// scripts/bench (see docs/performance.md). The zero Speed, which every
// in-process server of the tests that does not run on internal/stdio
// wants, answers everything through the SDK's encoder and checks every
// output schema in New.
type Speed struct {
	// PassEncoded, when set, hands every answer the server encodes itself
	// to the transport in place of the SDK's second pass over it: tool
	// results (mcpseam.PlainToolResult), the tool list encoded once per
	// client (mcpseam.EncodedList) and the catalog resource's answer,
	// about 340 KB encoded once (mcpseam.EncodedRead). Each returns the
	// stand-in the SDK encodes instead (mcpseam.Handoff), and is encoded
	// into a buffer it lends. The binary sets it to its stdio.Transport,
	// which the server's one session runs on.
	PassEncoded mcpseam.Passer
	// CheckOutputsLater, when set, takes the check of the tools' output
	// schemas instead of New running it (see toolkit.Config): the binary
	// runs it after its first answer and stops on its error, so that a
	// cold start does not wait for it (about 0.65 ms of New's 1.3–1.9).
	CheckOutputsLater func(check func() error)
	// GrowStacks gives the goroutine the SDK starts for each request its
	// stack at once (mcpseam.Dispatch.GrowStack), sparing the two or three
	// copies of a growing stack a call made.
	GrowStacks bool
}
