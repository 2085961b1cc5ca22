package simulator

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// SandboxTrickle is the sandbox's pace of life: a group message about
// every fifteen seconds, enough to watch events arrive without a flood.
const SandboxTrickle = 15 * time.Second

// A Sandbox is the simulated SnowLuma of `snowluma-mcp sandbox`: the living
// world of one seed, served as SnowLuma's default configuration serves a
// bot (HTTP on path /, a WebSocket server of its own on path /), with two
// different random access tokens for HTTP and WebSocket as SnowLuma
// generates them, so that the whole authenticated path is exercised.
type Sandbox struct {
	*Server
	Seed        uint64
	Token       string // the HTTP server's access token
	EventsToken string // the WebSocket server's access token
}

// SandboxOptions configures NewSandbox.
type SandboxOptions struct {
	// Seed builds the world: the same seed, the same world.
	Seed uint64
	// Actions are the names of every action SnowLuma has (the catalog's),
	// so that one the world does not simulate says so.
	Actions []string
	// Trickle is the pace of the world's own events; zero means
	// SandboxTrickle, a negative value silence.
	Trickle time.Duration
	// ReportSelf pushes the bot's own sends as message_sent, as SnowLuma
	// does with reportSelfMessage on (its default is off).
	ReportSelf bool
	// Account, when not zero, is the simulated QQ account's number in
	// place of SelfID, and Nickname its nickname (WithSelfID).
	Account  int64
	Nickname string
}

// NewSandbox starts a sandbox on loopback. The caller calls Close.
func NewSandbox(o SandboxOptions) (*Sandbox, error) {
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	eventsToken, err := randomToken()
	if err != nil {
		return nil, err
	}
	trickle := o.Trickle
	if trickle == 0 {
		trickle = SandboxTrickle
	}
	opts := []Option{WithWorld(o.Seed), WithActions(o.Actions), WithToken(token), WithEventsToken(eventsToken),
		WithoutRecording()}
	if trickle > 0 {
		opts = append(opts, WithTrickle(trickle))
	}
	if o.ReportSelf {
		opts = append(opts, WithSelfMessages())
	}
	if o.Account != 0 {
		opts = append(opts, WithSelfID(o.Account, o.Nickname))
	}
	s, err := New(opts...)
	if err != nil {
		return nil, err
	}
	return &Sandbox{Server: s, Seed: o.Seed, Token: token, EventsToken: eventsToken}, nil
}

// randomToken is an access token as SnowLuma generates one: random hex.
func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("simulator: making a sandbox token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
