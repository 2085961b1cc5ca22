package server

// Speed is the server's one seam for speed: the two tricks whose gain a
// user can notice, measured side by side with scripts/bench (see
// docs/performance.md). The zero Speed, which every test and any
// other transport wants, answers everything through the SDK's encoder and
// checks every output schema in New.
//
// Other shortcuts (tools/list and tool results handed past the SDK, a
// pre-encoded tools/list) were measured too and removed: they saved about
// 0.1–0.3 ms a call, which no one notices.
type Speed struct {
	// PassEncoded, when set, hands the bytes of the catalog resource's
	// answer (about 340 KB, encoded once) to the transport in place of the
	// SDK's second pass over them: it returns the stand-in the SDK encodes
	// instead. The binary sets it to its stdio.Transport's Pass, which the
	// server's one session runs on; a read costs about 0.5 ms of the
	// server's CPU instead of 2.5.
	PassEncoded func(encoded []byte) []byte
	// CheckOutputsLater, when set, takes the check of the tools' output
	// schemas instead of New running it (see toolkit.Config): the binary
	// runs it after its first answer and stops on its error, so that a
	// cold start does not wait for it (about 0.65 ms of New's 1.3–1.9).
	CheckOutputsLater func(check func() error)
}
