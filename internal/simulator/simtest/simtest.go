// Package simtest drives the fake SnowLuma (internal/simulator) from tests:
// it starts one for a test and closes it when the test ends, waits for its
// event connections, and makes it misbehave as tests need (an upload that
// stalls, an OCR that fails). The sandbox that operators run links the
// simulator package alone; nothing here ships in the binary.
package simtest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// Start starts a fake SnowLuma on 127.0.0.1 with an ephemeral port and the
// default responders. It is closed when the test ends; requests still
// waiting then (a Hang or a Delay) are abandoned.
func Start(tb testing.TB, opts ...simulator.Option) *simulator.Server {
	tb.Helper()
	s, err := simulator.New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// EventConn returns s's i-th event connection (from 0), waiting for the
// fake to have accepted it: a client's dial can return just before the fake
// records the connection. It fails the test after a generous wait.
func EventConn(tb testing.TB, s *simulator.Server, i int) *simulator.EventConn {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if conns := s.EventConns(); len(conns) > i {
			return conns[i]
		}
		if time.Now().After(deadline) {
			tb.Fatalf("simulator: event connection %d was never accepted (%d upgrade requests)", i, len(s.Upgrades()))
			return nil
		}
	}
}

// StallUploads makes every upload_file_stream chunk from index from onward
// hang without an answer (and without being stored) until the client goes
// away; a negative from answers every chunk again.
func StallUploads(s *simulator.Server, from int) {
	upload := s.Builtin("upload_file_stream")
	if from < 0 {
		s.Handle("upload_file_stream", upload)
		return
	}
	s.Handle("upload_file_stream", func(params json.RawMessage) simulator.Reply {
		var p struct {
			ChunkData  *string `json:"chunk_data"`
			ChunkIndex *int    `json:"chunk_index"`
		}
		if json.Unmarshal(params, &p) == nil && p.ChunkData != nil && p.ChunkIndex != nil && *p.ChunkIndex >= from {
			return simulator.Reply{Hang: true}
		}
		return upload(params)
	})
}

// FailOCR makes ocr_image fail as SnowLuma does when QQ's OCR fails
// (retcode 100, after the image was found), or, with false, answer again.
func FailOCR(s *simulator.Server, fail bool) {
	ocr := s.Builtin("ocr_image")
	if !fail {
		s.Handle("ocr_image", ocr)
		return
	}
	s.Handle("ocr_image", func(params json.RawMessage) simulator.Reply {
		r := ocr(params)
		if r.Envelope.Status != "ok" {
			return r // the image itself was refused
		}
		return simulator.Failed(100, "OCR failed: OIDB 0xE07_0 returned retCode 1001")
	})
}
