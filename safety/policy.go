// Package safety holds the account-safety policy applied before and after
// an action reaches SnowLuma: fencing credential actions (and redacting
// their answers), when a person must confirm an action, pacing message
// sends, allowlists of groups and users, and the audit log of writes.
//
// It knows actions only by the catalog's flags and their params as JSON; it
// imports no MCP types. The server's execution path consults it.
package safety

import (
	"fmt"

	"github.com/snowluma/snowluma-mcp/internal/enum"
)

// Sensitive is what happens to an action flagged sensitive (its answer is a
// credential or key of the account).
type Sensitive string

const (
	// SensitiveDeny refuses the action before anything is sent.
	SensitiveDeny Sensitive = "deny"
	// SensitiveRedact runs it and replaces every string and number of the
	// answer's data with Redacted.
	SensitiveRedact Sensitive = "redact"
	// SensitiveAllow returns the answer unchanged.
	SensitiveAllow Sensitive = "allow"
)

// ParseSensitive reads a Sensitive setting; empty means SensitiveDeny.
func ParseSensitive(s string) (Sensitive, error) {
	if v, ok := enum.Parse(s, SensitiveDeny, SensitiveDeny, SensitiveRedact, SensitiveAllow); ok {
		return v, nil
	}
	return "", fmt.Errorf("%q is not a sensitive-action policy", s)
}

// Confirm says which actions a person must confirm before they run.
type Confirm string

const (
	// ConfirmNone runs every action without asking.
	ConfirmNone Confirm = "none"
	// ConfirmDestructive asks before every action flagged destructive.
	ConfirmDestructive Confirm = "destructive"
	// ConfirmWrites asks before every write action.
	ConfirmWrites Confirm = "writes"
)

// ParseConfirm reads a Confirm setting; empty means ConfirmNone.
func ParseConfirm(s string) (Confirm, error) {
	if v, ok := enum.Parse(s, ConfirmNone, ConfirmNone, ConfirmDestructive, ConfirmWrites); ok {
		return v, nil
	}
	return "", fmt.Errorf("%q is not a confirmation policy", s)
}

// Needs reports whether an action with these catalog flags must be
// confirmed under c.
func (c Confirm) Needs(destructive, readOnly bool) bool {
	switch c {
	case ConfirmDestructive:
		return destructive
	case ConfirmWrites:
		return !readOnly
	}
	return false
}

// Policy is the whole safety configuration of one server process. The zero
// value is not useful: build it with the defaults spelled out (see
// docs/safety.md).
type Policy struct {
	Sensitive Sensitive
	Confirm   Confirm
	// Groups and Users restrict the targets actions may name; a nil set
	// means no restriction.
	Groups, Users IDSet
	// Pacer paces sends; it is never nil in a running server.
	Pacer *Pacer
	// Audit records write actions; nil disables the audit log.
	Audit *AuditLog
}
