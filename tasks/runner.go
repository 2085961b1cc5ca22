package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// MaxRunning is how many tasks run at once; a further Start is refused
// with ErrBusy rather than queued.
const MaxRunning = 4

// ErrBusy reports that MaxRunning tasks are already running.
var ErrBusy = fmt.Errorf("%d background tasks are already running; wait for one to end (poll it) or cancel one", MaxRunning)

// A Job is the work of one task. It returns the result to keep and, when
// the work failed, why (a failed task may keep a result too, such as the
// diagnostics of the failure). It must stop promptly when ctx is
// cancelled.
type Job func(ctx context.Context) (result json.RawMessage, failure error)

// A Runner starts jobs as tasks of a Store and records how they end.
type Runner struct {
	store *Store
	// notify, when set, hears every status change, in order per task.
	notify func(Record)

	mu      sync.Mutex
	running map[string]*run
	closed  bool
	wg      sync.WaitGroup
}

type run struct {
	cancel    context.CancelFunc
	cancelled bool // by Cancel, not by Close
}

// NewRunner runs tasks in store.
func NewRunner(store *Store) *Runner {
	return &Runner{store: store, running: map[string]*run{}}
}

// OnChange sets the function that hears each status change (a new working
// task included), in order per task. It must not block. Set it before the
// first Start.
func (r *Runner) OnChange(notify func(Record)) {
	r.mu.Lock()
	r.notify = notify
	r.mu.Unlock()
}

// Store is the store the runner records tasks in.
func (r *Runner) Store() *Store { return r.store }

// Running is how many tasks are running now.
func (r *Runner) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.running)
}

// Start records a new working task for tool and action, then runs job in
// the background. The record is on disk before job starts.
func (r *Runner) Start(tool, action string, job Job) (Record, error) {
	return r.StartFor("", tool, action, job)
}

// StartFor is Start for a task that acts as bot, the label of one of the
// QQ accounts a server drives: the record names it, so that a listing
// says which account a transfer went through. One runner serves every
// bot: one task directory, one lease, MaxRunning in all.
func (r *Runner) StartFor(bot, tool, action string, job Job) (Record, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return Record{}, errors.New("the task runner is shutting down")
	}
	if len(r.running) >= MaxRunning {
		r.mu.Unlock()
		return Record{}, ErrBusy
	}
	// Reserve the slot before writing, so that concurrent Starts cannot
	// pass the limit together.
	slot := &run{}
	key := fmt.Sprintf("pending-%p", slot)
	r.running[key] = slot
	r.mu.Unlock()

	rec, err := r.store.create(bot, tool, action)
	r.mu.Lock()
	delete(r.running, key)
	if err != nil {
		r.mu.Unlock()
		return Record{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	slot.cancel = cancel
	r.running[rec.ID] = slot
	r.wg.Add(1)
	r.mu.Unlock()
	r.tell(*rec)

	go func() {
		defer r.wg.Done()
		defer cancel()
		result, jobErr := job(ctx)
		r.mu.Lock()
		byCancel := slot.cancelled
		delete(r.running, rec.ID)
		r.mu.Unlock()
		var end *Record
		var err error
		switch {
		case jobErr == nil:
			// A completion wins over a cancellation that came too late.
			end, err = r.store.finish(rec.ID, StatusCompleted, result, "")
		case byCancel:
			end, err = r.store.finish(rec.ID, StatusCancelled, nil, "cancelled on request; the remote side may already have received part or all of the transfer")
		case ctx.Err() != nil:
			end, err = r.store.finish(rec.ID, StatusFailed, nil, "the server stopped during this task; "+UnknownOutcome)
		default:
			end, err = r.store.finish(rec.ID, StatusFailed, result, jobErr.Error())
		}
		if err == nil {
			r.tell(*end)
		}
	}()
	return rec.Meta(), nil
}

// Cancel asks task id to stop and returns its state now. Cancellation is
// cooperative: the task is still working until its job returns, and a
// completion already in flight wins. An ended task cannot be cancelled.
func (r *Runner) Cancel(id string) (Record, error) {
	r.mu.Lock()
	run, ok := r.running[id]
	if ok {
		run.cancelled = true
		run.cancel()
	}
	r.mu.Unlock()
	rec, err := r.store.Get(id)
	if err != nil {
		return Record{}, err
	}
	if !ok && rec.Status.Ended() {
		return Record{}, fmt.Errorf("task %s already ended as %s; nothing to cancel", id, rec.Status)
	}
	return rec.Meta(), nil
}

// Close stops every running task (recorded as failed with an unknown
// remote outcome), waits for their records, and refuses new ones.
func (r *Runner) Close() {
	r.mu.Lock()
	r.closed = true
	for _, run := range r.running {
		if run.cancel != nil {
			run.cancel()
		}
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Runner) tell(rec Record) {
	r.mu.Lock()
	notify := r.notify
	r.mu.Unlock()
	if notify != nil {
		notify(rec.Meta())
	}
}
