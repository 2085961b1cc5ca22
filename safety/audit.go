package safety

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// auditPerm is the audit file's mode: the operator's account only.
const auditPerm = 0o600

// A Record is one audit line: a write action that was attempted, whether
// it ran or was refused. It holds ids and names only: never message text,
// other params, results, tokens or file contents.
type Record struct {
	Time        time.Time `json:"time"`
	Tool        string    `json:"tool"`
	Action      string    `json:"action"`
	Groups      []int64   `json:"groups"`
	Users       []int64   `json:"users"`
	Outcome     string    `json:"outcome"`
	Kind        string    `json:"kind,omitempty"`
	Traceparent string    `json:"traceparent"`
	// Bot is the label of the bot that acted, when the server drives
	// several (SNOWLUMA_MCP_BOTS); absent with one.
	Bot string `json:"bot,omitempty"`
	// DryRun marks a line written under SNOWLUMA_MCP_DRY_RUN: whatever
	// its outcome, nothing was sent to SnowLuma.
	DryRun bool `json:"dry_run,omitempty"`
	// Untrusted is the send gate's decision on a write made after QQ
	// users' text was read on the connection (SNOWLUMA_MCP_UNTRUSTED_SENDS):
	// free (it stayed in the chats read), confirmed (a person allowed it),
	// declined (a person did not) or refused; UntrustedRead lists those chats (group:1, private:2, unknown).
	Untrusted     string   `json:"untrusted,omitempty"`
	UntrustedRead []string `json:"untrusted_read,omitempty"`
}

// An AuditLog appends one JSON line per Record to a file. The file is
// opened for each record and closed after it, so a file that becomes
// unwritable is noticed before the next write action runs, and every line
// is synced to disk before the call goes on. It is safe for concurrent use.
type AuditLog struct {
	path string
	mu   *sync.Mutex // shared by every bot's view of the file
	bot  string      // set on the records of a bot's view (ForBot)
}

// OpenAudit checks that path is absolute and that the file can be created
// or appended to, and sets its mode to 0600. A missing directory is
// created (0700), as the archive's is: a path the operator names in a new
// folder works at the first start.
func OpenAudit(path string) (*AuditLog, error) {
	if !filepath.IsAbs(path) {
		return nil, errors.New("the path is not absolute")
	}
	l := &AuditLog{path: filepath.Clean(path), mu: &sync.Mutex{}}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return nil, fmt.Errorf("audit file: its directory cannot be created: %w", err)
	}
	f, err := l.open()
	if err != nil {
		return nil, err
	}
	return l, f.Close()
}

// ForBot is l as the bot labelled bot writes it: the same file, each of
// its records naming the bot.
func (l *AuditLog) ForBot(bot string) *AuditLog {
	return &AuditLog{path: l.path, mu: l.mu, bot: bot}
}

// Path is the file written.
func (l *AuditLog) Path() string { return l.path }

func (l *AuditLog) open() (*os.File, error) {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, auditPerm)
	if err != nil {
		return nil, fmt.Errorf("audit file: %w", err)
	}
	// A file the operator created with wider permissions is narrowed.
	if err := f.Chmod(auditPerm); err != nil {
		f.Close()
		return nil, fmt.Errorf("audit file: %w", err)
	}
	return f, nil
}

// An Entry is an audit line reserved before an action is sent: the file is
// open, so only the final write can still fail.
type Entry struct {
	log *AuditLog
	f   *os.File
}

// Begin opens the file for one record. Its error means the action must not
// run, since it could not be recorded.
func (l *AuditLog) Begin() (*Entry, error) {
	f, err := l.open()
	if err != nil {
		return nil, err
	}
	return &Entry{log: l, f: f}, nil
}

// Write appends r as one line, syncs it and closes the file. It is called
// once per Entry.
func (e *Entry) Write(r Record) error {
	if r.Groups == nil {
		r.Groups = []int64{}
	}
	if r.Users == nil {
		r.Users = []int64{}
	}
	if r.Bot == "" {
		r.Bot = e.log.bot
	}
	b, err := json.Marshal(r)
	if err != nil {
		e.f.Close()
		return fmt.Errorf("audit record: %w", err)
	}
	b = append(b, '\n')
	e.log.mu.Lock()
	_, werr := e.f.Write(b)
	serr := e.f.Sync()
	e.log.mu.Unlock()
	cerr := e.f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("audit file: %w", err)
	}
	return nil
}

// Append writes one record at once: Begin then Write.
func (l *AuditLog) Append(r Record) error {
	e, err := l.Begin()
	if err != nil {
		return err
	}
	return e.Write(r)
}
