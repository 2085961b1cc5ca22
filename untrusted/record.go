package untrusted

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/dirperm"
)

// The record outlives the connection. A model that read group A still
// holds A's text after its client reconnects, after the server restarts
// under it, and after its connection was forgotten from a full table:
// each of those used to hand it an empty, unarmed ledger. A Registry
// keeps every chat noted on any connection, with when it was last read,
// for Window; a new ledger starts from the chats read within it. With a
// Path the record is also on disk, so that a restart starts from it too:
// by default a file in the user's cache directory, or beside the task
// store when there is one (internal/backend's RecordPath).

// DefaultWindow is how long a chat read stays in the record a new
// connection starts from: a working day, about as long as a host keeps a
// conversation open.
const DefaultWindow = 24 * time.Hour

// RecordFile is the record's name in the task directory.
const RecordFile = "untrusted-record.json"

// refreshEvery is how stale a chat's time may be before a new read of it
// rewrites the file: a chat read again and again is written once a
// minute, not on every read.
const refreshEvery = time.Minute

// MaxConnections is how many connections a Registry remembers; the
// least recently used is forgotten past it (its chats stay in the
// record). A stdio server has one.
const MaxConnections = 64

// A Registry holds the ledger of each client connection, by a key the
// server chooses (its session), and the record new ledgers start from.
// It is safe for concurrent use; the zero value keeps its record in
// memory for DefaultWindow.
type Registry struct {
	// Path, when set, is the file the record is kept in (0600, written
	// whole and renamed into place), in a directory made 0700 when
	// missing; a directory other users can write to is not used.
	Path string
	// Window is how long a chat read stays in the record; DefaultWindow
	// when 0.
	Window time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	mu         sync.Mutex
	byKey      map[any]*Ledger
	order      []any // least recently used first
	loaded     bool
	recent     []stamp // oldest first, at most MaxChats
	overflowAt time.Time
	// readProblem is why the file could not be read (it stays: every
	// connection of this process started armed because of it), and
	// writeProblem why it could not be written the last time.
	readProblem, writeProblem string
}

// A stamp is a chat and when it was last read.
type stamp struct {
	Chat Chat
	At   time.Time
}

// For returns the ledger of the connection key, made on first use from
// the chats read within the window on any connection (this process's, or
// the record on disk). A nil key (a call with no connection, such as the
// channel's own sends) gets a fresh ledger that nothing else shares.
func (r *Registry) For(key any) *Ledger {
	if key == nil {
		return &Ledger{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		r.byKey = map[any]*Ledger{}
	}
	if i := slices.Index(r.order, key); i >= 0 {
		r.order = append(slices.Delete(r.order, i, i+1), key)
		return r.byKey[key]
	}
	if len(r.order) >= MaxConnections {
		// The forgotten connection's chats stay in the record: if it
		// comes back, its new ledger starts from them.
		delete(r.byKey, r.order[0])
		r.order = slices.Delete(r.order, 0, 1)
	}
	l := &Ledger{reg: r}
	l.note(r.current())
	r.byKey[key] = l
	r.order = append(r.order, key)
	return l
}

// Note records that text of chats was handed to the model on the
// connection key: the one call a reader of QQ users' text makes (event
// and action reads, channel pushes, the archive, media). A nil key
// records nothing.
func (r *Registry) Note(key any, chats ...Chat) {
	if r == nil || key == nil {
		return
	}
	r.For(key).Note(chats...)
}

// NoteEvent records the chat of one OneBot event handed to the model on
// the connection key, and its message id when it is a message.
func (r *Registry) NoteEvent(key any, raw []byte) {
	if r == nil || key == nil {
		return
	}
	l := r.For(key)
	for _, m := range eventMessages(raw) {
		l.NoteMessage(m.id, m.chat)
	}
	l.Note(EventChats(raw)...)
}

// Problem says why the record could not be read or written; "" when it
// could (or has no file).
func (r *Registry) Problem() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.readProblem != "" && r.writeProblem != "" {
		return r.readProblem + "; " + r.writeProblem
	}
	return r.readProblem + r.writeProblem
}

// Recent lists the chats read within the window that a new connection
// starts from, reading the file first if it was not yet read; with the
// unknown chat when the record overflowed, or could not be read, within
// it. For doctor, which reports the record without serving.
func (r *Registry) Recent() []Chat {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current()
}

func (r *Registry) window() time.Duration {
	if r.Window > 0 {
		return r.Window
	}
	return DefaultWindow
}

func (r *Registry) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// current lists the chats read within the window, oldest first, and the
// unknown chat when the record overflowed within it. r.mu is held.
func (r *Registry) current() []Chat {
	r.load()
	since := r.now().Add(-r.window())
	var out []Chat
	for _, s := range r.recent {
		if s.At.After(since) {
			out = append(out, s.Chat)
		}
	}
	if r.overflowAt.After(since) {
		out = append(out, UnknownChat)
	}
	return out
}

// remember adds chats to the record, and writes it when it changed.
func (r *Registry) remember(chats []Chat) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.load()
	now, changed := r.now(), false
	for _, c := range chats {
		if c.Kind == 0 {
			continue
		}
		if i := slices.IndexFunc(r.recent, func(s stamp) bool { return s.Chat == c }); i >= 0 {
			if now.Sub(r.recent[i].At) < refreshEvery {
				continue
			}
			r.recent = slices.Delete(r.recent, i, i+1)
		} else if len(r.recent) >= MaxChats {
			r.recent = slices.Delete(r.recent, 0, 1)
			r.overflowAt = now
		}
		r.recent = append(r.recent, stamp{c, now})
		changed = true
	}
	if changed {
		r.save()
	}
}

// recordFile is the record on disk.
type recordFile struct {
	Chats []struct {
		Chat string `json:"chat"`
		At   int64  `json:"at"` // Unix seconds
	} `json:"chats"`
	OverflowAt int64 `json:"overflow_at,omitempty"`
}

// load reads the file once. r.mu is held. A missing file is an empty
// record; one that cannot be read arms every ledger (the unknown chat
// for the window), since what it held is not known.
func (r *Registry) load() {
	if r.loaded {
		return
	}
	r.loaded = true
	if r.Path == "" {
		return
	}
	b, err := os.ReadFile(r.Path)
	if os.IsNotExist(err) {
		return
	}
	var f recordFile
	if err == nil {
		err = sharedDir(r.Path)
	}
	if err == nil {
		err = json.Unmarshal(b, &f)
	}
	if err != nil {
		r.readProblem = fmt.Sprintf("untrusted record %s: %v; every connection starts armed", r.Path, err)
		r.overflowAt = r.now()
		return
	}
	for _, c := range f.Chats {
		if chat, ok := parseChat(c.Chat); ok {
			r.recent = append(r.recent, stamp{chat, time.Unix(c.At, 0)})
		}
	}
	slices.SortStableFunc(r.recent, func(a, b stamp) int { return a.At.Compare(b.At) })
	if len(r.recent) > MaxChats {
		r.recent = r.recent[len(r.recent)-MaxChats:]
	}
	if f.OverflowAt > 0 {
		r.overflowAt = time.Unix(f.OverflowAt, 0)
	}
}

// save writes the record within the window. r.mu is held.
func (r *Registry) save() {
	if r.Path == "" {
		return
	}
	var f recordFile
	since := r.now().Add(-r.window())
	for _, s := range r.recent {
		if s.At.After(since) {
			f.Chats = append(f.Chats, struct {
				Chat string `json:"chat"`
				At   int64  `json:"at"`
			}{s.Chat.String(), s.At.Unix()})
		}
	}
	if r.overflowAt.After(since) {
		f.OverflowAt = r.overflowAt.Unix()
	}
	b, _ := json.Marshal(f)
	tmp := r.Path + ".tmp"
	err := os.MkdirAll(filepath.Dir(r.Path), 0o700)
	if err == nil {
		err = sharedDir(r.Path)
	}
	if err == nil {
		err = os.WriteFile(tmp, b, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, r.Path)
	}
	if err != nil {
		r.writeProblem = fmt.Sprintf("untrusted record %s not written: %v; a restart starts from what it last held", r.Path, err)
		return
	}
	r.writeProblem = ""
}

// sharedDir refuses the directory of the record file path when other
// users can write to it: they could remove the record and so disarm the
// gate after a restart.
func sharedDir(path string) error {
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); dirperm.WritableByOthers(runtime.GOOS, perm) {
		return fmt.Errorf("its directory can be written by other users (mode %#o); run chmod 700 on it", perm)
	}
	return nil
}

// parseChat reads a Chat's String.
func parseChat(s string) (Chat, bool) {
	if s == "unknown" {
		return UnknownChat, true
	}
	kind, id, ok := strings.Cut(s, ":")
	n, err := strconv.ParseInt(id, 10, 64)
	if !ok || err != nil || n <= 0 {
		return Chat{}, false
	}
	switch kind {
	case "group":
		return GroupChat(n), true
	case "private":
		return PrivateChat(n), true
	}
	return Chat{}, false
}
