package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Status is where a task is in its life. A task starts working and ends
// completed, failed or cancelled; an ended task never changes again.
type Status string

const (
	StatusWorking   Status = "working"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

// Ended reports whether s is final.
func (s Status) Ended() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// MaxRecordBytes caps one task record on disk. A result that would make the
// record larger is stored as a failure that says so.
const MaxRecordBytes = 16 << 20

// UnknownOutcome is the status message of a task that was still working
// when its process ended: the remote side may or may not have carried it
// out, and the task is never run again.
const UnknownOutcome = "unknown remote outcome: the server stopped while this task was working; it was not run again. Check SnowLuma before repeating the transfer."

// A Record is one task as stored: what was asked, where it stands, and its
// outcome. It holds no credentials; Result may hold private account data.
type Record struct {
	ID            string    `json:"taskId"`
	Status        Status    `json:"status"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"lastUpdatedAt"`
	// Tool and Action say what the task runs, for listings.
	Tool   string `json:"tool"`
	Action string `json:"action"`
	// Bot is the label of the QQ account the task acts as, when the
	// server drives several (empty with one, and in records written
	// before several bots: the first bot's).
	Bot string `json:"bot,omitempty"`
	// Result is the saved outcome of a completed task, as the caller gave
	// it to Finish.
	Result json.RawMessage `json:"result,omitempty"`
	// Error says why a failed task failed.
	Error string `json:"error,omitempty"`
}

// Meta is a record without its result: what listings show.
func (r *Record) Meta() Record {
	m := *r
	m.Result = nil
	return m
}

// idPattern is the shape of every task id this package makes: 32 lowercase
// hex digits. Anything else is refused before it reaches a path.
var idPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// ValidID reports whether id is a task id this package could have made.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// validate checks a record read from disk for the task named id.
func (r *Record) validate(id string) error {
	switch {
	case r.ID != id:
		return fmt.Errorf("record names task %q", r.ID)
	case r.Status != StatusWorking && !r.Status.Ended():
		return fmt.Errorf("unknown status %q", r.Status)
	case r.CreatedAt.IsZero() || r.UpdatedAt.IsZero() || r.UpdatedAt.Before(r.CreatedAt):
		return errors.New("missing or inconsistent timestamps")
	case r.Tool == "" || r.Action == "":
		return errors.New("missing tool or action")
	case r.Status == StatusCompleted && len(r.Result) == 0:
		return errors.New("completed without a result")
	case r.Status == StatusFailed && r.Error == "":
		return errors.New("failed without an error")
	case len(r.Result) > 0 && !json.Valid(r.Result):
		return errors.New("result is not JSON")
	}
	return nil
}

// decodeRecord reads one record strictly: unknown fields, trailing data
// and a wrong id are corruption.
func decodeRecord(id string, b []byte) (*Record, error) {
	if len(b) > MaxRecordBytes {
		return nil, fmt.Errorf("record is %d bytes, over the %d MiB limit", len(b), MaxRecordBytes>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("record is not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("record has trailing data")
	}
	if err := r.validate(id); err != nil {
		return nil, err
	}
	return &r, nil
}
