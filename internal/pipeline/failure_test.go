package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// TestTransportFailureReadOnly checks that a timed-out or cancelled read
// says it is safe to call again, and a write warns that it may have
// happened.
func TestTransportFailureReadOnly(t *testing.T) {
	for _, kind := range []outcome.Kind{outcome.KindTimeout, outcome.KindCancelled} {
		err := &transfer.Error{Kind: kind, Op: "get_status", Err: context.DeadlineExceeded}
		read := failure(err, true, false).Diag
		write := failure(err, false, false).Diag
		if !strings.Contains(read.NextStep, "only reads") || strings.Contains(read.NextStep, "may") {
			t.Errorf("%s of a read: %q", kind, read.NextStep)
		}
		if !strings.Contains(write.NextStep, "may") || strings.Contains(write.NextStep, "only reads") {
			t.Errorf("%s of a write: %q", kind, write.NextStep)
		}
		if read.Kind != write.Kind || read.Kind != kind {
			t.Errorf("%s: kinds %s and %s", kind, read.Kind, write.Kind)
		}
	}
	// Other kinds do not depend on the flag.
	err := &transfer.Error{Kind: outcome.KindProtocol, Op: "get_status"}
	if failure(err, true, false).Diag != failure(err, false, false).Diag {
		t.Error("a protocol failure's diagnostics depend on readOnly")
	}
}

// TestFailureStepsOfStreams: the one table gives a stream its own next
// step where the cause differs, a kind only streams report is reported as
// such only for a stream, and a body over the limit is told how to fit
// either way.
func TestFailureStepsOfStreams(t *testing.T) {
	timeout := &transfer.Error{Kind: outcome.KindTimeout, Op: "download_file_stream", Err: context.DeadlineExceeded}
	if d := failure(timeout, true, true).Diag; d.Kind != outcome.KindTimeout || !strings.Contains(d.NextStep, "STREAM_IDLE_TIMEOUT_MS") {
		t.Errorf("stream timeout: %+v", d)
	}
	busy := &transfer.Error{Kind: outcome.KindBusy, Op: "download_file_stream"}
	if d := failure(busy, false, true).Diag; d.Kind != outcome.KindBusy || !strings.Contains(d.NextStep, "MAX_STREAMS") {
		t.Errorf("stream busy: %+v", d)
	}
	if d := failure(busy, false, false).Diag; d.Kind != outcome.KindTransport {
		t.Errorf("busy outside a stream: %+v", d)
	}
}
