package pipeline

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// Over stdio a notification that cannot be written breaks the connection
// (the go-sdk then cancels every call), so the report of a lost progress
// notification is checked here, where the adapter builds it.
func TestFinishReportsLostProgress(t *testing.T) {
	var sent []int64
	failing := func() *transfer.Throttle {
		return transfer.NewThrottle(time.Hour, func(done, _ int64) error {
			if done > 1 {
				return errors.New("broken pipe")
			}
			sent = append(sent, done)
			return nil
		})
	}

	p := failing()
	p.Update(1, 0)
	p.Update(2, 0) // within the hour: pending
	r := finish(outcome.OK("x"), p)
	if r.Diag.Outcome != outcome.OutcomeSuccess || !strings.Contains(r.Diag.Message, "progress notifications stopped") ||
		!strings.Contains(r.Diag.Message, "broken pipe") || r.Diag.NextStep == "" || r.Result != "x" {
		t.Errorf("success with a lost notification: %+v", r)
	}

	// After a failure the pending update is dropped, not sent.
	sent = nil
	p = failing()
	p.Update(1, 0)
	p.Update(2, 0)
	r = finish(outcome.Fail(outcome.KindTimeout, "stalled", "wait"), p)
	if len(sent) != 1 || r.Diag.Message != "stalled" || !r.IsError {
		t.Errorf("failure: sent %v, reply %+v", sent, r)
	}

	// No token: nothing to report.
	r = finish(outcome.OK("x"), nil)
	if r.Diag.Message != "" {
		t.Errorf("without a token: %+v", r.Diag)
	}
}
