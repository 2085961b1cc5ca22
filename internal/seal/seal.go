// Package seal protects the opaque state of "input required" continuations.
//
// A tool that needs more input from the user (invoke_action_with_input, for
// example) returns a continuation whose requestState the client echoes back
// with the answer. Whatever comes back is untrusted: it may be malformed,
// replayed, altered, forged, or issued for another call. A Sealer turns the
// facts a continuation binds (Claims) into a state string that only the same
// process can open, and Open checks that string against the call it arrives
// with and consumes it, so a continuation runs an action at most once.
//
// States are encrypted and authenticated with AES-256-GCM under a key drawn
// at random when the Sealer is created and never stored, so a restart of the
// server invalidates every outstanding state instead of replaying work.
package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Limits of a Sealer. They are the product's documented values; New accepts
// others only so tests can exercise the boundaries quickly.
const (
	// DefaultTTL is how long a continuation stays usable after Seal.
	DefaultTTL = 10 * time.Minute
	// DefaultMaxPending is how many unexpired continuations may wait for an
	// answer at once.
	DefaultMaxPending = 256
	// MaxStateLen bounds the length of a state string. Open rejects longer
	// input before decoding it, and Seal refuses claims that would not fit.
	MaxStateLen = 4096
	// KeySize is the length of the AES-256 key.
	KeySize = 32
)

// Errors reported by Seal and Open. Each is returned as is, not wrapped, so
// its message can be shown to the user unchanged; none of them repeats the
// state. Compare with errors.Is.
var (
	// ErrMalformed: the state is not base64url, has the wrong length, or
	// carries an unknown version.
	ErrMalformed = errors.New("the continuation state is malformed")
	// ErrTampered: the state fails authentication. It was modified, forged,
	// or sealed by another process, such as an earlier run of the server.
	ErrTampered = errors.New("the continuation state was altered or comes from an earlier run of the server")
	// ErrExpired: the state is authentic but its lifetime has passed.
	ErrExpired = errors.New("the continuation expired (continuations last 10 minutes)")
	// ErrOtherTool: the state is authentic but was issued by another tool.
	ErrOtherTool = errors.New("the continuation belongs to another tool")
	// ErrOtherArguments: the state is authentic but was issued for a call
	// with other arguments.
	ErrOtherArguments = errors.New("the continuation was issued for other arguments")
	// ErrReplayed: the state is authentic, unexpired and bound to this call,
	// but has already been opened once.
	ErrReplayed = errors.New("the continuation was already used")
	// ErrTooManyPending: Seal refused a new continuation because the pending
	// set is full of live ones.
	ErrTooManyPending = errors.New("too many continuations are pending (at most 256); answer or abandon some first")
)

const (
	// version is the first byte of every state. A change to the encoding or
	// the cipher gets a new version, and states of other versions are
	// rejected as malformed.
	version byte = 1
	// adContext separates these ciphertexts from any other use of the key. It
	// and the version byte form the associated data.
	adContext = "snowluma-mcp/continuation/v1"
	// idSize is the number of random bytes in a continuation id.
	idSize = 16
	// overhead is what AES-GCM with a random nonce adds to the plaintext:
	// the 12-byte nonce in front and the 16-byte tag behind.
	overhead = 12 + 16
)

// Claims is what a continuation binds.
type Claims struct {
	Tool     string    // the tool that issued it, e.g. "invoke_action_with_input"
	ArgsHash string    // CanonicalHash of the original arguments (64 lowercase hex digits)
	Missing  []string  // the missing required fields asked for, sorted
	Confirm  bool      // the form also asked a person to confirm the action
	ID       string    // single-use id (random, 128 bits, hex), set by Seal
	Expires  time.Time // set by Seal: now + TTL
}

// wireClaims is the sealed encoding of Claims: short keys keep states small,
// and the expiry is whole nanoseconds so it survives the round trip exactly.
type wireClaims struct {
	Tool     string   `json:"t"`
	ArgsHash string   `json:"a"`
	Missing  []string `json:"m"`
	Confirm  bool     `json:"c,omitempty"`
	ID       string   `json:"i"`
	Expires  int64    `json:"e"` // Unix nanoseconds
}

// Options configures a Sealer. The zero value gives the product's defaults.
type Options struct {
	// TTL is how long a continuation lasts; 0 means DefaultTTL.
	TTL time.Duration
	// MaxPending caps unexpired pending continuations; 0 means
	// DefaultMaxPending.
	MaxPending int
	// Now is the clock, injected by tests; nil means time.Now. It may be
	// called with the Sealer's lock held, so it must not call back into the
	// Sealer. Expiry is compared in wall-clock time, because it travels
	// inside the state.
	Now func() time.Time
	// Key fixes the sealing key, for tests only; nil means KeySize random
	// bytes from crypto/rand. When set it must be KeySize bytes long.
	Key []byte
}

// A Sealer seals and opens continuation states and remembers which of them
// are still pending. It is safe for concurrent use.
type Sealer struct {
	aead       cipher.AEAD
	ad         []byte
	ttl        time.Duration
	maxPending int
	now        func() time.Time

	mu      sync.Mutex
	pending map[string]time.Time // id → expiry
}

// New returns a Sealer configured by opts, with a fresh random key unless
// opts.Key is set.
func New(opts Options) (*Sealer, error) {
	if opts.TTL < 0 {
		return nil, fmt.Errorf("seal: negative TTL %v", opts.TTL)
	}
	if opts.MaxPending < 0 {
		return nil, fmt.Errorf("seal: negative MaxPending %d", opts.MaxPending)
	}
	s := &Sealer{
		ad:         append([]byte(adContext), version),
		ttl:        opts.TTL,
		maxPending: opts.MaxPending,
		now:        opts.Now,
		pending:    make(map[string]time.Time),
	}
	if s.ttl == 0 {
		s.ttl = DefaultTTL
	}
	if s.maxPending == 0 {
		s.maxPending = DefaultMaxPending
	}
	if s.now == nil {
		s.now = time.Now
	}

	key := make([]byte, KeySize)
	if opts.Key != nil {
		if len(opts.Key) != KeySize {
			return nil, fmt.Errorf("seal: key is %d bytes, want %d", len(opts.Key), KeySize)
		}
		copy(key, opts.Key)
	} else if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("seal: generating key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	// The nonce is drawn from crypto/rand for every Seal and prepended to
	// the ciphertext, so a state is version || nonce || ciphertext || tag.
	s.aead, err = cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return s, nil
}

// Seal registers a new pending continuation binding c.Tool, c.ArgsHash and
// c.Missing and returns its state. It sets the ID and Expires fields itself,
// ignoring any values in c, and sorts and deduplicates a copy of Missing.
//
// Expired continuations are forgotten first; if MaxPending live ones remain,
// Seal returns ErrTooManyPending rather than evicting one, since a person may
// still be answering it. Other errors mean the caller passed invalid claims
// or the system's random source failed.
func (s *Sealer) Seal(c Claims) (state string, err error) {
	if c.Tool == "" {
		return "", errors.New("seal: claims have no tool")
	}
	if !isHex(c.ArgsHash, 2*32) {
		return "", errors.New("seal: claims' ArgsHash is not a CanonicalHash (64 lowercase hex digits)")
	}
	missing := slices.Compact(slices.Sorted(slices.Values(c.Missing)))
	if slices.Contains(missing, "") {
		return "", errors.New("seal: claims name an empty missing field")
	}

	var id [idSize]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", fmt.Errorf("seal: generating id: %w", err)
	}
	w := wireClaims{
		Tool:     c.Tool,
		ArgsHash: c.ArgsHash,
		Missing:  missing,
		Confirm:  c.Confirm,
		ID:       hex.EncodeToString(id[:]),
		Expires:  s.now().Add(s.ttl).UnixNano(),
	}
	plain, err := json.Marshal(w)
	if err != nil {
		return "", fmt.Errorf("seal: encoding claims: %w", err)
	}
	raw := s.aead.Seal([]byte{version}, nil, plain, s.ad)
	state = base64.RawURLEncoding.EncodeToString(raw)
	if len(state) > MaxStateLen {
		return "", fmt.Errorf("seal: claims too large: state would be %d bytes, limit %d", len(state), MaxStateLen)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(s.now())
	if len(s.pending) >= s.maxPending {
		return "", ErrTooManyPending
	}
	if _, dup := s.pending[w.ID]; dup {
		// 128 random bits do not collide; if they did, the random source
		// is broken and no state it produces should be trusted.
		return "", errors.New("seal: random id collided with a pending one")
	}
	s.pending[w.ID] = time.Unix(0, w.Expires)
	return state, nil
}

// Open authenticates and decodes state and checks it against the call it
// arrived with: the tool handling the call and the CanonicalHash of that
// call's arguments. If every check passes it consumes the continuation
// before returning, so repeated or concurrent Opens of one state succeed at
// most once and the caller may act on the claims without a further check.
//
// The checks run in this order, and the first failure is returned:
// length and format (ErrMalformed), authenticity (ErrTampered), tool
// (ErrOtherTool), arguments (ErrOtherArguments), expiry (ErrExpired), and
// whether the continuation is still pending (ErrReplayed). Expiry is judged
// from the authenticated claims, so a continuation that expired and was
// forgotten still reports ErrExpired. A failed Open consumes nothing.
func (s *Sealer) Open(state string, tool string, argsHash string) (Claims, error) {
	// The longest input is bounded before any decoding work; the shortest
	// possible state is the version, nonce and tag around an empty text.
	if len(state) > MaxStateLen || len(state) < base64.RawURLEncoding.EncodedLen(1+overhead) {
		return Claims{}, ErrMalformed
	}
	raw, err := base64.RawURLEncoding.DecodeString(state)
	// The decoder skips CR and LF and, even in strict mode, many strings
	// decode to the same bytes. Only the canonical encoding is a state, so
	// that exactly the strings Seal produced can open.
	if err != nil || base64.RawURLEncoding.EncodeToString(raw) != state {
		return Claims{}, ErrMalformed
	}
	if raw[0] != version {
		return Claims{}, ErrMalformed
	}
	plain, err := s.aead.Open(nil, nil, raw[1:], s.ad)
	if err != nil {
		return Claims{}, ErrTampered
	}
	var w wireClaims
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil || !isHex(w.ID, 2*idSize) {
		// Only this process can produce an authentic state, so this
		// means the encoding changed without a new version.
		return Claims{}, ErrMalformed
	}

	if w.Tool != tool {
		return Claims{}, ErrOtherTool
	}
	if w.ArgsHash != argsHash {
		return Claims{}, ErrOtherArguments
	}
	expires := time.Unix(0, w.Expires)

	s.mu.Lock()
	defer s.mu.Unlock()
	// The clock is read under the lock so that the expiry check, the
	// pruning and the consumption agree on one instant.
	now := s.now()
	s.prune(now)
	if expired(expires, now) {
		return Claims{}, ErrExpired
	}
	if _, ok := s.pending[w.ID]; !ok {
		return Claims{}, ErrReplayed
	}
	delete(s.pending, w.ID)

	return Claims{
		Tool:     w.Tool,
		ArgsHash: w.ArgsHash,
		Missing:  w.Missing,
		Confirm:  w.Confirm,
		ID:       w.ID,
		Expires:  expires,
	}, nil
}

// Pending reports how many unexpired continuations wait for an answer.
func (s *Sealer) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(s.now())
	return len(s.pending)
}

// prune forgets the pending continuations that have expired at now.
// The caller holds s.mu.
func (s *Sealer) prune(now time.Time) {
	for id, exp := range s.pending {
		if expired(exp, now) {
			delete(s.pending, id)
		}
	}
}

// expired reports whether a continuation expiring at exp is unusable at now.
// A continuation is usable strictly before its expiry.
func expired(exp, now time.Time) bool {
	return !now.Before(exp)
}

// isHex reports whether s is n lowercase hexadecimal digits, the form
// encoding/hex produces.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
