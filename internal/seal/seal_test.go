package seal

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const testTool = "invoke_action_with_input"

// A clock is a settable time source for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newSealer(t testing.TB, c *clock, opts Options) *Sealer {
	t.Helper()
	opts.Now = c.Now
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func mustHash(t testing.TB, raw string) string {
	t.Helper()
	h, err := CanonicalHash(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("CanonicalHash: %v", err)
	}
	return h
}

func argsHash(t testing.TB, n int) string {
	t.Helper()
	return mustHash(t, fmt.Sprintf(`{"action":"send_group_msg","params":{"group_id":%d}}`, n))
}

func mustSeal(t testing.TB, s *Sealer, hash string) string {
	t.Helper()
	state, err := s.Seal(Claims{Tool: testTool, ArgsHash: hash, Missing: []string{"message"}})
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return state
}

func TestRoundTrip(t *testing.T) {
	c := newClock()
	s := newSealer(t, c, Options{})
	hash := argsHash(t, 20001)
	missing := []string{"message", "auto_escape", "message"}
	state, err := s.Seal(Claims{
		Tool:     testTool,
		ArgsHash: hash,
		Missing:  missing,
		ID:       "ignored",
		Expires:  time.Unix(1, 0),
	})
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	if len(state) > MaxStateLen {
		t.Errorf("state is %d bytes, over MaxStateLen", len(state))
	}
	if strings.ContainsAny(state, "=+/") {
		t.Errorf("state %q is not unpadded base64url", state)
	}
	if !slices.Equal(missing, []string{"message", "auto_escape", "message"}) {
		t.Errorf("Seal modified the caller's Missing: %q", missing)
	}
	if got := s.Pending(); got != 1 {
		t.Errorf("Pending after Seal = %d, want 1", got)
	}

	got, err := s.Open(state, testTool, hash)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if got.Tool != testTool || got.ArgsHash != hash {
		t.Errorf("Open bound %q %q, want %q %q", got.Tool, got.ArgsHash, testTool, hash)
	}
	if want := []string{"auto_escape", "message"}; !slices.Equal(got.Missing, want) {
		t.Errorf("Missing = %q, want %q", got.Missing, want)
	}
	if !isHex(got.ID, 32) {
		t.Errorf("ID = %q, want 32 lowercase hex digits", got.ID)
	}
	if want := c.Now().Add(DefaultTTL); !got.Expires.Equal(want) {
		t.Errorf("Expires = %v, want %v", got.Expires, want)
	}
	if got := s.Pending(); got != 0 {
		t.Errorf("Pending after Open = %d, want 0", got)
	}
	if got.Confirm {
		t.Error("Confirm set without being sealed")
	}

	// A confirmation round's flag survives the round trip.
	state, err = s.Seal(Claims{Tool: testTool, ArgsHash: hash, Confirm: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Open(state, testTool, hash); err != nil || !got.Confirm || len(got.Missing) != 0 {
		t.Errorf("confirm round trip: %+v %v", got, err)
	}
}

func TestSealsDiffer(t *testing.T) {
	s := newSealer(t, newClock(), Options{})
	hash := argsHash(t, 1)
	a, b := mustSeal(t, s, hash), mustSeal(t, s, hash)
	if a == b {
		t.Fatal("two Seals of the same claims gave the same state")
	}
	ca, err := s.Open(a, testTool, hash)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := s.Open(b, testTool, hash)
	if err != nil {
		t.Fatal(err)
	}
	if ca.ID == cb.ID {
		t.Fatal("two Seals got the same id")
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, opts := range []Options{
		{TTL: -time.Second},
		{MaxPending: -1},
		{Key: make([]byte, 16)},
		{Key: []byte{}},
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("New(%+v) succeeded", opts)
		}
	}
}

func TestSealRejectsBadClaims(t *testing.T) {
	s := newSealer(t, newClock(), Options{})
	hash := argsHash(t, 1)
	for name, c := range map[string]Claims{
		"no tool":         {ArgsHash: hash},
		"no hash":         {Tool: testTool},
		"short hash":      {Tool: testTool, ArgsHash: hash[:63]},
		"upper hash":      {Tool: testTool, ArgsHash: strings.ToUpper(hash)},
		"empty field":     {Tool: testTool, ArgsHash: hash, Missing: []string{"a", ""}},
		"too large state": {Tool: testTool, ArgsHash: hash, Missing: []string{strings.Repeat("x", MaxStateLen)}},
	} {
		state, err := s.Seal(c)
		if err == nil {
			t.Errorf("%s: Seal succeeded with %q", name, state)
		}
		for _, sentinel := range sentinels {
			if errors.Is(err, sentinel) {
				t.Errorf("%s: Seal error %v is a sentinel", name, err)
			}
		}
	}
	if got := s.Pending(); got != 0 {
		t.Errorf("Pending after failed Seals = %d, want 0", got)
	}
}

// TestTamper changes a real state in every way near it and checks that none
// of the changes opens, and that none consumes the real state.
func TestTamper(t *testing.T) {
	s := newSealer(t, newClock(), Options{})
	hash := argsHash(t, 1)
	state := mustSeal(t, s, hash)

	check := func(what, forged string) {
		t.Helper()
		if forged == state {
			return
		}
		_, err := s.Open(forged, testTool, hash)
		if !errors.Is(err, ErrTampered) && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Open = %v, want ErrTampered or ErrMalformed", what, err)
		}
	}

	// Every character position, replaced by every base64url character and
	// by characters outside the alphabet.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range len(state) {
		for _, r := range alphabet + "=+/ \n\r.%\x00é" {
			check(fmt.Sprintf("char %d = %q", i, r), state[:i]+string(r)+state[i+1:])
		}
		check(fmt.Sprintf("delete char %d", i), state[:i]+state[i+1:])
		check(fmt.Sprintf("insert at %d", i), state[:i]+"A"+state[i:])
		check(fmt.Sprintf("newline at %d", i), state[:i]+"\n"+state[i:])
		check(fmt.Sprintf("prefix %d", i), state[:i])
	}
	check("padded", state+"=")
	check("padded twice", state+"==")
	check("trailing newline", state+"\n")
	check("doubled", state+state)

	// Every bit of the decoded bytes.
	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		for bit := range 8 {
			forged := slices.Clone(raw)
			forged[i] ^= 1 << bit
			_, err := s.Open(base64.RawURLEncoding.EncodeToString(forged), testTool, hash)
			want := ErrTampered
			if i == 0 {
				want = ErrMalformed // the version byte
			}
			if !errors.Is(err, want) {
				t.Errorf("byte %d bit %d: Open = %v, want %v", i, bit, err, want)
			}
		}
	}

	if _, err := s.Open(state, testTool, hash); err != nil {
		t.Fatalf("the real state after the forgeries: %v", err)
	}
}

func TestMalformed(t *testing.T) {
	s := newSealer(t, newClock(), Options{})
	hash := argsHash(t, 1)
	state := mustSeal(t, s, hash)
	raw, _ := base64.RawURLEncoding.DecodeString(state)
	otherVersion := slices.Clone(raw)
	otherVersion[0] = 2

	for name, in := range map[string]string{
		"empty":         "",
		"not base64":    "this is not a continuation!",
		"std alphabet":  strings.NewReplacer("-", "+", "_", "/").Replace(state) + "+/",
		"too short":     base64.RawURLEncoding.EncodeToString(raw[:1+overhead-1]),
		"too long":      strings.Repeat("A", MaxStateLen+1),
		"far too long":  strings.Repeat(state, 1000),
		"other version": base64.RawURLEncoding.EncodeToString(otherVersion),
		"padded":        base64.URLEncoding.EncodeToString(raw),
	} {
		if _, err := s.Open(in, testTool, hash); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Open = %v, want ErrMalformed", name, err)
		}
	}
}

func TestOtherKey(t *testing.T) {
	c := newClock()
	before := newSealer(t, c, Options{}) // an earlier run of the server
	after := newSealer(t, c, Options{})
	hash := argsHash(t, 1)
	state := mustSeal(t, before, hash)
	if _, err := after.Open(state, testTool, hash); !errors.Is(err, ErrTampered) {
		t.Fatalf("Open of another Sealer's state = %v, want ErrTampered", err)
	}
	if _, err := before.Open(state, testTool, hash); err != nil {
		t.Fatalf("Open by its own Sealer: %v", err)
	}
}

// TestSameKeyOtherSealer shows that authenticity is not enough: only the
// Sealer that issued a state holds it as pending.
func TestSameKeyOtherSealer(t *testing.T) {
	c := newClock()
	key := make([]byte, KeySize)
	a := newSealer(t, c, Options{Key: key})
	b := newSealer(t, c, Options{Key: key})
	hash := argsHash(t, 1)
	state := mustSeal(t, a, hash)
	if _, err := b.Open(state, testTool, hash); !errors.Is(err, ErrReplayed) {
		t.Fatalf("Open by a Sealer that did not issue it = %v, want ErrReplayed", err)
	}
}

func TestExpiry(t *testing.T) {
	c := newClock()
	s := newSealer(t, c, Options{})
	hash := argsHash(t, 1)
	early, atTTL, pruned := mustSeal(t, s, hash), mustSeal(t, s, hash), mustSeal(t, s, hash)

	c.Advance(DefaultTTL - time.Nanosecond)
	if _, err := s.Open(early, testTool, hash); err != nil {
		t.Fatalf("Open just before expiry: %v", err)
	}
	c.Advance(time.Nanosecond)
	if _, err := s.Open(atTTL, testTool, hash); !errors.Is(err, ErrExpired) {
		t.Fatalf("Open at exactly TTL = %v, want ErrExpired", err)
	}
	if got := s.Pending(); got != 0 {
		t.Fatalf("Pending after expiry = %d, want 0", got)
	}
	// Already forgotten by the pending set, yet reported as expired.
	if _, err := s.Open(pruned, testTool, hash); !errors.Is(err, ErrExpired) {
		t.Fatalf("Open of a pruned state = %v, want ErrExpired", err)
	}
	// A used state that has since expired reports the expiry.
	if _, err := s.Open(early, testTool, hash); !errors.Is(err, ErrExpired) {
		t.Fatalf("Open of a used, expired state = %v, want ErrExpired", err)
	}
}

func TestCustomTTL(t *testing.T) {
	c := newClock()
	s := newSealer(t, c, Options{TTL: time.Second})
	hash := argsHash(t, 1)
	state := mustSeal(t, s, hash)
	c.Advance(time.Second)
	if _, err := s.Open(state, testTool, hash); !errors.Is(err, ErrExpired) {
		t.Fatalf("Open after a custom TTL = %v, want ErrExpired", err)
	}
}

func TestBinding(t *testing.T) {
	s := newSealer(t, newClock(), Options{})
	hash := argsHash(t, 1)
	state := mustSeal(t, s, hash)

	for _, tool := range []string{"", "query_action_with_input", testTool + " ", strings.ToUpper(testTool)} {
		if _, err := s.Open(state, tool, hash); !errors.Is(err, ErrOtherTool) {
			t.Errorf("Open with tool %q = %v, want ErrOtherTool", tool, err)
		}
	}
	for _, h := range []string{"", argsHash(t, 2), strings.ToUpper(hash), hash + "0"} {
		if _, err := s.Open(state, testTool, h); !errors.Is(err, ErrOtherArguments) {
			t.Errorf("Open with args hash %q = %v, want ErrOtherArguments", h, err)
		}
	}
	// Failed Opens consume nothing.
	if _, err := s.Open(state, testTool, hash); err != nil {
		t.Fatalf("Open with the right binding after wrong ones: %v", err)
	}
}

func TestReplay(t *testing.T) {
	s := newSealer(t, newClock(), Options{})
	hash := argsHash(t, 1)
	state := mustSeal(t, s, hash)
	if _, err := s.Open(state, testTool, hash); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.Open(state, testTool, hash); !errors.Is(err, ErrReplayed) {
			t.Fatalf("second Open = %v, want ErrReplayed", err)
		}
	}
}

// TestCheckOrder pins the order of Open's checks where several fail.
func TestCheckOrder(t *testing.T) {
	c := newClock()
	s := newSealer(t, c, Options{})
	hash := argsHash(t, 1)
	used := mustSeal(t, s, hash)
	if _, err := s.Open(used, testTool, hash); err != nil {
		t.Fatal(err)
	}
	fresh := mustSeal(t, s, hash)
	c.Advance(DefaultTTL)
	// Swap one character in the middle for another valid one, so that the
	// state still decodes but no longer authenticates. (A fixed suffix can
	// leave the state intact, or change only padding bits.)
	b := []byte(fresh)
	if mid := len(b) / 2; b[mid] == 'A' {
		b[mid] = 'B'
	} else {
		b[mid] = 'A'
	}
	tampered := string(b)

	for _, tc := range []struct {
		name        string
		state, tool string
		hash        string
		want        error
	}{
		{"tampered beats tool", tampered, "other", "", ErrTampered},
		{"tool beats args", fresh, "other", "", ErrOtherTool},
		{"tool beats expiry", fresh, "other", hash, ErrOtherTool},
		{"args beat expiry", fresh, testTool, "", ErrOtherArguments},
		{"args beat replay", used, testTool, "", ErrOtherArguments},
		{"expiry beats replay", used, testTool, hash, ErrExpired},
	} {
		if _, err := s.Open(tc.state, tc.tool, tc.hash); !errors.Is(err, tc.want) {
			t.Errorf("%s: Open = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestConcurrentOpen(t *testing.T) {
	s := newSealer(t, newClock(), Options{})
	hash := argsHash(t, 1)
	state := mustSeal(t, s, hash)

	const n = 100
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = s.Open(state, testTool, hash)
		})
	}
	close(start)
	wg.Wait()

	succeeded := 0
	for _, err := range errs {
		switch {
		case err == nil:
			succeeded++
		case !errors.Is(err, ErrReplayed):
			t.Errorf("concurrent Open = %v, want nil or ErrReplayed", err)
		}
	}
	if succeeded != 1 {
		t.Fatalf("%d concurrent Opens succeeded, want exactly 1", succeeded)
	}
}

func TestMaxPending(t *testing.T) {
	c := newClock()
	s := newSealer(t, c, Options{})
	hash := argsHash(t, 1)
	states := make([]string, DefaultMaxPending)
	for i := range states {
		states[i] = mustSeal(t, s, hash)
	}
	if _, err := s.Seal(Claims{Tool: testTool, ArgsHash: hash}); !errors.Is(err, ErrTooManyPending) {
		t.Fatalf("Seal number %d = %v, want ErrTooManyPending", DefaultMaxPending+1, err)
	}
	if got := s.Pending(); got != DefaultMaxPending {
		t.Fatalf("Pending = %d, want %d", got, DefaultMaxPending)
	}
	// The refusal evicted nothing: every live state still opens, and each
	// Open makes room for exactly one more.
	if _, err := s.Open(states[0], testTool, hash); err != nil {
		t.Fatal(err)
	}
	mustSeal(t, s, hash)
	if _, err := s.Seal(Claims{Tool: testTool, ArgsHash: hash}); !errors.Is(err, ErrTooManyPending) {
		t.Fatalf("Seal after refilling = %v, want ErrTooManyPending", err)
	}
	if _, err := s.Open(states[len(states)-1], testTool, hash); err != nil {
		t.Fatalf("the newest live state after a refusal: %v", err)
	}

	// Once the clock passes the TTL the expired ones no longer count.
	c.Advance(DefaultTTL)
	for range DefaultMaxPending {
		mustSeal(t, s, hash)
	}
	if got := s.Pending(); got != DefaultMaxPending {
		t.Fatalf("Pending after refilling = %d, want %d", got, DefaultMaxPending)
	}
}

func TestConcurrentSealRespectsMaxPending(t *testing.T) {
	const limit = 16
	s := newSealer(t, newClock(), Options{MaxPending: limit})
	hash := argsHash(t, 1)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ok, bad int
	)
	for range 4 * limit {
		wg.Go(func() {
			_, err := s.Seal(Claims{Tool: testTool, ArgsHash: hash})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrTooManyPending):
				bad++
			default:
				t.Errorf("Seal: %v", err)
			}
		})
	}
	wg.Wait()
	if ok != limit || s.Pending() != limit {
		t.Fatalf("%d Seals succeeded with %d pending, want %d", ok, s.Pending(), limit)
	}
}

// sentinels are all the errors Seal and Open report by identity.
var sentinels = []error{
	ErrMalformed, ErrTampered, ErrExpired, ErrOtherTool,
	ErrOtherArguments, ErrReplayed, ErrTooManyPending,
}

func TestErrorMessages(t *testing.T) {
	want := map[error]string{
		ErrMalformed:      "the continuation state is malformed",
		ErrTampered:       "the continuation state was altered or comes from an earlier run of the server",
		ErrExpired:        "the continuation expired (continuations last 10 minutes)",
		ErrOtherTool:      "the continuation belongs to another tool",
		ErrOtherArguments: "the continuation was issued for other arguments",
		ErrReplayed:       "the continuation was already used",
		ErrTooManyPending: "too many continuations are pending (at most 256); answer or abandon some first",
	}
	seen := map[string]bool{}
	for _, err := range sentinels {
		if got := err.Error(); got != want[err] {
			t.Errorf("message %q, want %q", got, want[err])
		}
		if seen[err.Error()] {
			t.Errorf("message %q is not distinct", err)
		}
		seen[err.Error()] = true
	}
	// The messages state the limits; keep them in step with the constants.
	if !strings.Contains(ErrExpired.Error(), fmt.Sprintf("%d minutes", int(DefaultTTL.Minutes()))) {
		t.Errorf("ErrExpired does not state DefaultTTL %v", DefaultTTL)
	}
	if !strings.Contains(ErrTooManyPending.Error(), fmt.Sprintf("at most %d", DefaultMaxPending)) {
		t.Errorf("ErrTooManyPending does not state DefaultMaxPending %d", DefaultMaxPending)
	}
}

// FuzzOpen feeds arbitrary strings, and real states with arbitrary changes,
// to Open. Nothing may panic, every failure must be one of the sentinels,
// and the only string that ever opens is the exact state Seal produced,
// once.
func FuzzOpen(f *testing.F) {
	key := []byte("0123456789abcdef0123456789abcdef")
	c := newClock()
	seeder := newSealer(f, c, Options{Key: key})
	hash := argsHash(f, 1)
	for range 4 {
		// Authentic under the fuzz key, but not pending in the Sealer
		// each run creates.
		f.Add(mustSeal(f, seeder, hash), 0, byte(0))
	}
	f.Add("", 3, byte('A'))
	f.Add("AQ", 1, byte('_'))
	f.Add(strings.Repeat("A", MaxStateLen+1), 100, byte('\n'))

	f.Fuzz(func(t *testing.T, in string, pos int, b byte) {
		s := newSealer(t, c, Options{Key: key})
		state := mustSeal(t, s, hash)

		mutated := []byte(state)
		if pos < 0 {
			pos = -pos
		}
		mutated[pos%len(mutated)] = b
		cut := pos % (len(state) + 1)

		opened := false
		for _, candidate := range []string{
			in,
			string(mutated),
			state[:cut] + in,
			in + state[cut:],
			state + in,
		} {
			_, err := s.Open(candidate, testTool, hash)
			if err == nil {
				if candidate != state {
					t.Fatalf("Open succeeded for %q, which Seal did not produce (it produced %q)", candidate, state)
				}
				if opened {
					t.Fatalf("Open succeeded twice for %q", state)
				}
				opened = true
				continue
			}
			if !slices.ContainsFunc(sentinels, func(e error) bool { return err == e }) {
				t.Fatalf("Open(%q) = %v, not a sentinel", candidate, err)
			}
		}
		_, err := s.Open(state, testTool, hash)
		if opened != (err != nil) || (err != nil && !errors.Is(err, ErrReplayed)) {
			t.Fatalf("the real state after the candidates (opened=%v): %v", opened, err)
		}
	})
}
