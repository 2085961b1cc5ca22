package events

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"time"
)

// A resource is one subscription: its filter and the bounded buffer of the
// events that passed it. Its fields are guarded by the Hub's mutex.
type resource struct {
	id     [8]byte
	filter Filter
	conn   *conn // the connection it was created on
	// notify, when set, receives the resource's updates instead of the
	// Hub's OnUpdate function.
	notify func()

	// The buffer is a ring of at most MaxEvents entries holding at most
	// MaxBytes of event data; the oldest entries go first.
	ring    []entry
	head    int   // index of the oldest entry
	n       int   // entries held
	bytes   int   // event bytes held
	lastSeq int64 // sequence number of the newest entry ever buffered; 0 before the first
	dropped int64 // entries evicted

	notificationFailed bool

	// Update coalescing: at most one OnUpdate call per UpdateInterval.
	lastUpdate time.Time
	pending    bool
	released   bool
}

// An entry is one buffered event and its sequence number in its resource.
type entry struct {
	seq int64
	raw []byte
}

func (r *resource) name() string { return hex.EncodeToString(r.id[:]) }

// add buffers one event, evicting the oldest ones past the caps.
func (r *resource) add(raw []byte) {
	if r.ring == nil {
		r.ring = make([]entry, MaxEvents)
	}
	for r.n > 0 && (r.n == MaxEvents || r.bytes+len(raw) > MaxBytes) {
		old := &r.ring[r.head]
		r.bytes -= len(old.raw)
		*old = entry{}
		r.head = (r.head + 1) % MaxEvents
		r.n--
		r.dropped++
	}
	r.lastSeq++
	r.ring[(r.head+r.n)%MaxEvents] = entry{seq: r.lastSeq, raw: raw}
	r.n++
	r.bytes += len(raw)
}

// oldestSeq is the sequence number of the oldest held entry, or lastSeq+1
// when none is held.
func (r *resource) oldestSeq() int64 {
	if r.n == 0 {
		return r.lastSeq + 1
	}
	return r.ring[r.head].seq
}

// cursorLen is the length of a decoded cursor: the resource id, then the
// sequence number.
const cursorLen = 16

// cursor encodes seq as an opaque string that only this resource accepts.
func (r *resource) cursor(seq int64) string {
	var b [cursorLen]byte
	copy(b[:8], r.id[:])
	binary.BigEndian.PutUint64(b[8:], uint64(seq))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// parseCursor decodes a cursor of this resource.
func (r *resource) parseCursor(s string) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != cursorLen {
		return 0, cursorError("the after cursor is not a cursor of this server; pass a next_cursor or oldest_cursor value exactly as returned")
	}
	if [8]byte(b[:8]) != r.id {
		return 0, cursorError("the after cursor belongs to another event resource; cursors are only valid on the resource that returned them")
	}
	seq := int64(binary.BigEndian.Uint64(b[8:]))
	if seq < 0 || seq > r.lastSeq {
		return 0, cursorError("the after cursor is ahead of this resource's newest event; pass a next_cursor value exactly as returned")
	}
	return seq, nil
}

// Entry is one buffered event: its cursor and the event exactly as
// SnowLuma sent it.
type Entry struct {
	Cursor string          `json:"cursor"`
	Event  json.RawMessage `json:"event"`
}

// Snapshot is what a read of a resource returns. Reads never consume.
type Snapshot struct {
	Events []Entry `json:"events"`
	Status Status  `json:"status"`
	// StatusReason says in words why the connection is in its status.
	StatusReason string `json:"status_reason"`
	// NextCursor, passed as after, returns only entries newer than these.
	NextCursor string `json:"next_cursor"`
	// OldestCursor is the oldest entry still held; nil when none is.
	OldestCursor *string `json:"oldest_cursor"`
	// DroppedEvents counts the entries evicted by the caps since creation.
	DroppedEvents int64 `json:"dropped_events"`
	// Gap is true when entries after the cursor read from (or since the
	// resource's creation, without one) were evicted before this read.
	Gap bool `json:"gap"`
	// NotificationFailed is true once an update notification for this
	// resource could not be delivered.
	NotificationFailed bool   `json:"notification_failed"`
	Filter             Filter `json:"filter"`
}

// snapshot returns the entries after seq.
func (r *resource) snapshot(after int64) Snapshot {
	st := r.conn.state()
	s := Snapshot{
		Events:             []Entry{},
		Status:             st.Status,
		StatusReason:       st.Reason,
		NextCursor:         r.cursor(r.lastSeq),
		DroppedEvents:      r.dropped,
		Gap:                r.oldestSeq() > after+1,
		NotificationFailed: r.notificationFailed,
		Filter:             r.filter,
	}
	if r.n > 0 {
		c := r.cursor(r.ring[r.head].seq)
		s.OldestCursor = &c
	}
	for i := 0; i < r.n; i++ {
		e := r.ring[(r.head+i)%MaxEvents]
		if e.seq > after {
			s.Events = append(s.Events, Entry{Cursor: r.cursor(e.seq), Event: e.raw})
		}
	}
	return s
}
