package pipeline

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// TestRateLimitedRoundsUp checks that retry_after_ms never undershoots:
// retrying after exactly that long must be admitted.
func TestRateLimitedRoundsUp(t *testing.T) {
	a := &catalog.Action{Brief: catalog.Brief{Name: "send_group_msg"}}
	for d, want := range map[time.Duration]int64{
		time.Microsecond:                  1,
		1500 * time.Microsecond:           2,
		time.Second:                       1000,
		time.Second + time.Nanosecond:     1001,
		59*time.Second + time.Millisecond: 59001,
	} {
		r := rateLimited(a, d)
		if r.Diag.Kind != outcome.KindRateLimited || r.Diag.RetryAfterMS != want || !r.IsError {
			t.Errorf("%v: %+v", d, r.Diag)
		}
	}
}

// TestRedactWithholds checks that an answer the redactor cannot read is
// withheld, never shown as received.
func TestRedactWithholds(t *testing.T) {
	r := redact(outcome.Reply{Result: json.RawMessage(`{"data":"k"`)})
	if r.Result != nil || r.Diag.Kind != outcome.KindInternal {
		t.Errorf("unreadable answer: %+v", r)
	}
	r = redact(outcome.Reply{Result: json.RawMessage(`{"status":"ok","retcode":0,"data":{"k":"v"}}`)})
	if string(r.Result.(json.RawMessage)) != `{"status":"ok","retcode":0,"data":{"k":"[redacted]"}}` {
		t.Errorf("redacted %s", r.Result)
	}
}
