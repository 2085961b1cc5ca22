package app

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// The catalog is needed by the docs tools and the catalog resource, never
// by a host's first requests (initialize, tools/list), yet decoding it is
// several milliseconds of CPU, as much as the rest of start-up. Decoded from
// the start it competes for the CPU with the answer the host is waiting
// for, so the server decodes it once its first answer is written, or after
// catalogGrace when no request comes, or when stdin ends first. A call that
// needs the catalog sooner decodes it itself, and a catalog that fails to
// load still stops the server at start.

// catalogGrace is how long the catalog waits for the first answer.
const catalogGrace = 100 * time.Millisecond

// answerWatch passes writes on to w and closes first once a whole line,
// the first message, has been written.
type answerWatch struct {
	w     io.Writer
	once  sync.Once
	first chan struct{}
}

func newAnswerWatch(w io.Writer) *answerWatch {
	return &answerWatch{w: w, first: make(chan struct{})}
}

func (a *answerWatch) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	if bytes.IndexByte(p[:n], '\n') >= 0 {
		a.once.Do(func() { close(a.first) })
	}
	return n, err
}

// catalogTime waits until the catalog should be decoded: the first answer
// is out, serving has stopped, or the grace (catalogGrace) has passed. It
// says which came first ("first answer", "stopped" or "grace").
func catalogTime(first, stopped <-chan struct{}, grace <-chan time.Time) string {
	select {
	case <-first:
		return "first answer"
	case <-stopped:
		return "stopped"
	case <-grace:
		return "grace"
	}
}
