package simulator

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"
)

// TestUploadProtocol follows SnowLuma's upload_file_stream: every call with
// chunk_data is acknowledged with chunk_received, the last one and one with
// is_complete included; only a call without chunk_data merges.
func TestUploadProtocol(t *testing.T) {
	s := startFake(t)
	call := func(params string) string {
		t.Helper()
		_, body := post(t, s, "/upload_file_stream", params, nil)
		return body
	}
	sum := sha256.Sum256([]byte("hello world"))
	hash := hex.EncodeToString(sum[:])

	if got := call(`{"stream_id":"a","chunk_data":"aGVsbG8=","chunk_index":0}`); !strings.Contains(got, "total_chunks required") {
		t.Errorf("first call without total_chunks: %s", got)
	}
	if got := call(`{"stream_id":"bad id!","total_chunks":1}`); !strings.Contains(got, `"status":"failed"`) {
		t.Errorf("bad stream id: %s", got)
	}
	if got := call(`{"stream_id":"s","verify_only":true}`); !strings.Contains(got, "stream not found") {
		t.Errorf("verify_only before the stream exists: %s", got)
	}
	// "hello" + " world" in two chunks; chunk 0 sent twice counts once.
	for i := range 2 {
		got := call(`{"stream_id":"s","chunk_data":"aGVsbG8=","chunk_index":0,"total_chunks":2,"filename":"../x.txt"}`)
		if !strings.Contains(got, `"chunk_received"`) || !strings.Contains(got, `"received_chunks":1`) || !strings.HasSuffix(got, "\r\n\r\n") {
			t.Errorf("chunk 0, try %d: %q", i, got)
		}
	}
	if got := call(`{"stream_id":"s","verify_only":true}`); !strings.Contains(got, `"file_created"`) || !strings.Contains(got, `"received_chunks":1`) {
		t.Errorf("verify_only: %s", got)
	}
	if got := call(`{"stream_id":"s","is_complete":true}`); !strings.Contains(got, "incomplete stream: missing 1 chunk") {
		t.Errorf("merge with a chunk missing: %s", got)
	}
	// The last chunk, even with is_complete, is only acknowledged.
	got := call(`{"stream_id":"s","chunk_data":"IHdvcmxk","chunk_index":1,"is_complete":true}`)
	if !strings.Contains(got, `"type":"stream"`) || !strings.Contains(got, `"chunk_received"`) || !strings.Contains(got, `"received_chunks":2`) {
		t.Fatalf("last chunk: %s", got)
	}
	if len(s.Uploads()) != 0 {
		t.Fatal("merged on a call that carried chunk_data")
	}
	// The merge: its own call without chunk_data, metadata riding on it.
	got = call(`{"stream_id":"s","is_complete":true,"expected_sha256":"` + hash + `","file_size":11}`)
	for _, want := range []string{`"type":"response"`, `"status":"file_complete"`, `"sha256":"` + hash + `"`, `"file_size":11`, `"received_chunks":2`, `"total_chunks":2`} {
		if !strings.Contains(got, want) {
			t.Errorf("merge answer lacks %s: %s", want, got)
		}
	}
	ups := s.Uploads()
	if len(ups) != 1 || ups[0].Size != 11 || ups[0].SHA256 != hash || !strings.HasSuffix(ups[0].Path, "s____x.txt") {
		t.Errorf("uploads %+v", ups)
	}
	if got := call(`{"stream_id":"s","verify_only":true}`); !strings.Contains(got, "stream not found") {
		t.Errorf("a merged stream is forgotten: %s", got)
	}

	// A call without chunk_data before every chunk is written: file_created.
	if got := call(`{"stream_id":"c","total_chunks":2}`); !strings.Contains(got, `"file_created"`) {
		t.Errorf("no chunk yet: %s", got)
	}
	// An empty file: one empty chunk, then the merge.
	empty := sha256.Sum256(nil)
	if got := call(`{"stream_id":"e","chunk_data":"","chunk_index":0,"total_chunks":1}`); !strings.Contains(got, `"chunk_received"`) {
		t.Errorf("empty chunk: %s", got)
	}
	if got := call(`{"stream_id":"e","is_complete":true,"expected_sha256":"` + hex.EncodeToString(empty[:]) + `"}`); !strings.Contains(got, `"file_complete"`) || !strings.Contains(got, `"file_size":0`) {
		t.Errorf("empty merge: %s", got)
	}

	// A hash that does not match fails the merge and keeps the stream.
	call(`{"stream_id":"m","chunk_data":"aGVsbG8=","chunk_index":0,"total_chunks":1}`)
	if got := call(`{"stream_id":"m","is_complete":true,"expected_sha256":"00"}`); !strings.Contains(got, "sha256 mismatch") || !strings.Contains(got, `"status":"failed"`) {
		t.Errorf("mismatch: %s", got)
	}
	if got := call(`{"stream_id":"m","verify_only":true}`); !strings.Contains(got, `"received_chunks":1`) {
		t.Errorf("after a mismatch the stream stays: %s", got)
	}
	// A reset drops the stream.
	if got := call(`{"stream_id":"m","reset":true}`); !strings.Contains(got, "Stream reset completed") || !strings.Contains(got, `"status":"failed"`) {
		t.Errorf("reset: %s", got)
	}
	if got := call(`{"stream_id":"m","chunk_data":"aGVsbG8=","chunk_index":0}`); !strings.Contains(got, "total_chunks required") {
		t.Errorf("after the reset the stream is gone: %s", got)
	}
	// The record holds the chunk's length, not its data.
	for _, r := range s.Requests() {
		if strings.Contains(string(r.Params), "aGVsbG8=") {
			t.Errorf("chunk data recorded: %s", r.Params)
		}
	}
}

func TestDownloadFrames(t *testing.T) {
	s := startFake(t)
	s.AddFile("f", File{Name: "f.bin", Size: 100, Seed: 3})
	_, body := post(t, s, "/download_file_stream", `{"file":"f","chunk_size":40}`, nil)
	frames := strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n\r\n")
	if len(frames) != 5 || !strings.Contains(frames[0], `"file_info"`) || !strings.Contains(frames[0], `"file_size":100`) ||
		!strings.Contains(frames[3], `"index":2`) || !strings.Contains(frames[3], `"size":20`) ||
		!strings.Contains(frames[4], `"total_chunks":3`) || !strings.Contains(frames[4], `"total_bytes":100`) {
		t.Errorf("frames %q", frames)
	}
	a, _ := io.ReadAll(Content(3, 100))
	b, _ := io.ReadAll(Content(3, 100))
	c, _ := io.ReadAll(Content(4, 100))
	if string(a) != string(b) || string(a) == string(c) || len(a) != 100 {
		t.Error("Content is not a deterministic function of its seed")
	}
	if _, body := post(t, s, "/download_file_stream", `{"file":"nope"}`, nil); !strings.Contains(body, "file not found") {
		t.Errorf("missing file: %s", body)
	}
}
