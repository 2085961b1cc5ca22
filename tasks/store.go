// Package tasks keeps durable background tasks: one record per task on
// disk, written before the work starts and rewritten atomically as it ends,
// an exclusive runtime lease per directory, and a directory bound to the
// configuration that made it. A task that was working when its process
// ended is marked failed with an unknown remote outcome and never run
// again. The package knows nothing of MCP; internal/server wires it.
package tasks

import (
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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

// recordsDir is the subdirectory of a task directory holding the records,
// one <id>.json each.
const recordsDir = "tasks"

// ErrNotFound reports a task id no record exists for.
var ErrNotFound = errors.New("no such task")

// A CorruptError reports a record that exists but cannot be trusted.
type CorruptError struct {
	ID  string
	Err error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("task %s: its record is unreadable (%v); inspect or delete %s.json in the task directory", e.ID, e.Err, e.ID)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// A Store is an open task directory. It is safe for concurrent use.
type Store struct {
	dir   string
	now   func() time.Time
	lease *lease

	mu      sync.Mutex
	index   map[string]*Record // metadata of every readable record
	corrupt map[string]error   // records that failed validation when read
}

// Options configure Open.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Open opens dir (absolute; created 0700 when missing), takes its lease,
// checks that it belongs to scope, reads every record and marks the ones
// still working as failed with UnknownOutcome.
func Open(dir string, scope Scope, opts Options) (*Store, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("task directory %q is not absolute", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the task directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("task directory: %w", err)
	}
	// POSIX permissions only where they mean something (not on Windows).
	if problem := dirperm.Problem(runtime.GOOS, fi.Mode()); problem != "" {
		return nil, fmt.Errorf("task directory %s %s", dir, problem)
	}
	l, err := takeLease(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, now: opts.Now, lease: l, index: map[string]*Record{}, corrupt: map[string]error{}}
	if s.now == nil {
		s.now = time.Now
	}
	if err := s.open(scope); err != nil {
		l.release()
		return nil, err
	}
	return s, nil
}

func (s *Store) open(scope Scope) error {
	if err := bindScope(s.dir, scope); err != nil {
		if errors.Is(err, ErrScopeMismatch) {
			return fmt.Errorf("%w; choose a new private SNOWLUMA_MCP_TASK_DIR for this configuration (the old directory keeps its history)", err)
		}
		return err
	}
	rdir := filepath.Join(s.dir, recordsDir)
	if err := os.Mkdir(rdir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", rdir, err)
	}
	entries, err := os.ReadDir(rdir)
	if err != nil {
		return fmt.Errorf("read the task records: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			// A temp file left by a crash mid-write: the record it was
			// replacing is still whole.
			os.Remove(filepath.Join(rdir, name))
			continue
		}
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !ValidID(id) {
			continue
		}
		r, err := s.read(id)
		if err != nil {
			var ce *CorruptError
			if errors.As(err, &ce) {
				s.corrupt[id] = ce.Err
				continue
			}
			return err
		}
		if r.Status == StatusWorking {
			r.Status, r.StatusMessage, r.Error, r.UpdatedAt = StatusFailed, UnknownOutcome, UnknownOutcome, s.now().UTC()
			if err := s.write(r); err != nil {
				return err
			}
		}
		m := r.Meta()
		s.index[id] = &m
	}
	return nil
}

// Close releases the lease. Running tasks are the Runner's to stop first.
func (s *Store) Close() error { return s.lease.release() }

// Dir is the task directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) path(id string) string { return filepath.Join(s.dir, recordsDir, id+".json") }

// read loads and validates one record from disk.
func (s *Store) read(id string) (*Record, error) {
	f, err := os.Open(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", id, err)
	}
	defer f.Close()
	b := make([]byte, 0, 4096)
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		b = append(b, buf[:n]...)
		if len(b) > MaxRecordBytes {
			return nil, &CorruptError{id, fmt.Errorf("over the %d MiB record limit", MaxRecordBytes>>20)}
		}
		if err != nil {
			break
		}
	}
	r, err := decodeRecord(id, b)
	if err != nil {
		return nil, &CorruptError{id, err}
	}
	return r, nil
}

// write stores r atomically. A record over the size limit is replaced by
// a failure that says so, so that an outcome is never lost silently.
func (s *Store) write(r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("task %s: encode: %w", r.ID, err)
	}
	if len(b) > MaxRecordBytes {
		small := r.Meta()
		small.Status = StatusFailed
		small.Error = fmt.Sprintf("the task's result is %d bytes, over the %d MiB a task record may hold; the transfer itself finished, but its result was not kept", len(b), MaxRecordBytes>>20)
		small.StatusMessage = small.Error
		*r = small
		if b, err = json.Marshal(r); err != nil {
			return fmt.Errorf("task %s: encode: %w", r.ID, err)
		}
	}
	return writeAtomic(filepath.Join(s.dir, recordsDir), r.ID+".json", b)
}

// create writes a new working record for tool and action.
func (s *Store) create(bot, tool, action string) (*Record, error) {
	raw := make([]byte, 16)
	rand.Read(raw)
	now := s.now().UTC()
	r := &Record{ID: hex.EncodeToString(raw), Status: StatusWorking, CreatedAt: now, UpdatedAt: now, Tool: tool, Action: action, Bot: bot}
	if err := s.write(r); err != nil {
		return nil, err
	}
	s.mu.Lock()
	m := r.Meta()
	s.index[r.ID] = &m
	s.mu.Unlock()
	return r, nil
}

// finish ends the working task id with status and, for a completed task,
// its result, for a failed one its error. The index changes with the
// record, under one lock: once Get has read the ended record from disk,
// a List (which waits for the lock) shows it ended too.
func (s *Store) finish(id string, status Status, result json.RawMessage, msg string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.index[id]
	if !ok {
		return nil, ErrNotFound
	}
	r := *m
	r.Status, r.UpdatedAt, r.StatusMessage = status, s.now().UTC(), msg
	r.Result = result
	if status == StatusFailed {
		r.Error = msg
	}
	if err := s.write(&r); err != nil {
		return nil, err
	}
	meta := r.Meta()
	s.index[id] = &meta
	return &r, nil
}

// Get returns task id's whole record, result included, read from disk.
func (s *Store) Get(id string) (*Record, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%w: %q is not a task id", ErrNotFound, id)
	}
	s.mu.Lock()
	cerr, bad := s.corrupt[id]
	s.mu.Unlock()
	if bad {
		return nil, &CorruptError{id, cerr}
	}
	r, err := s.read(id)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return r, err
}

// A Page is one page of a listing, newest task first.
type Page struct {
	Tasks []Record // metadata only, no results
	// Next is the cursor of the next page, empty at the end.
	Next string
	// Corrupt lists the records that could not be read, so that a listing
	// never hides them.
	Corrupt []*CorruptError
}

// List returns up to limit tasks after cursor (empty for the first page),
// newest first.
func (s *Store) List(cursor string, limit int) (Page, error) {
	var after *Record
	if cursor != "" {
		c, err := decodeCursor(cursor)
		if err != nil {
			return Page{}, err
		}
		after = c
	}
	s.mu.Lock()
	all := make([]Record, 0, len(s.index))
	for _, m := range s.index {
		all = append(all, *m)
	}
	var p Page
	for id, err := range s.corrupt {
		p.Corrupt = append(p.Corrupt, &CorruptError{id, err})
	}
	s.mu.Unlock()
	slices.SortFunc(p.Corrupt, func(a, b *CorruptError) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(all, newestFirst)
	start := 0
	if after != nil {
		start, _ = slices.BinarySearchFunc(all, *after, newestFirst)
		if start < len(all) && all[start].ID == after.ID {
			start++
		}
	}
	end := min(len(all), start+limit)
	p.Tasks = all[start:end]
	if end < len(all) && end > start {
		p.Next = encodeCursor(all[end-1])
	}
	return p, nil
}

func newestFirst(a, b Record) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

// A cursor is the position of the last task of a page: its creation time
// and id, base64url-encoded.
func encodeCursor(r Record) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(r.CreatedAt.UnixNano(), 10) + ":" + r.ID))
}

// ErrBadCursor reports a cursor this store did not make.
var ErrBadCursor = errors.New("the cursor is not one a listing returned; start again without a cursor")

func decodeCursor(c string) (*Record, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, ErrBadCursor
	}
	ns, id, ok := strings.Cut(string(b), ":")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || !ValidID(id) {
		return nil, ErrBadCursor
	}
	return &Record{ID: id, CreatedAt: time.Unix(0, n).UTC()}, nil
}
