package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// uploadRoot makes an upload root holding a file of size bytes named
// name, and returns the root and the file's path.
func uploadRoot(t *testing.T, name string, size int64) (*UploadRoot, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, simulator.Content(9, size)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	root, err := NewUploadRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root, path
}

// hasReset reports whether the fake received a reset of stream id.
func hasReset(fake *simulator.Server, id string) bool {
	for _, r := range fake.Requests() {
		if r.Action == "upload_file_stream" && strings.Contains(string(r.Params), `"reset":true`) && strings.Contains(string(r.Params), id) {
			return true
		}
	}
	return false
}

func TestUploadSendsTheFile(t *testing.T) {
	fake, c := fakeClient(t, nil)
	for _, size := range []int64{3*UploadChunkBytes + 5, UploadChunkBytes, 0} {
		root, path := uploadRoot(t, "photo.jpg", size)
		var acked []int64
		res, err := c.Upload(context.Background(), root, Upload{InputFile: path, Retention: []byte("0")}, func(done, total int64) {
			acked = append(acked, done)
			if total != size {
				t.Errorf("total %d, want %d", total, size)
			}
		})
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		b, _ := os.ReadFile(path)
		sum := sha256.Sum256(b)
		want := hex.EncodeToString(sum[:])
		chunks := max((size+UploadChunkBytes-1)/UploadChunkBytes, 1)
		if !res.Completed || res.Reset != nil || res.Sent.SHA256 != want || res.Sent.Bytes != size || res.Sent.Chunks != chunks || res.Sent.InputFile != path {
			t.Errorf("%d bytes: result %+v", size, res)
		}
		ups := fake.Uploads()
		last := ups[len(ups)-1]
		merged, err := os.ReadFile(last.Path)
		if err != nil || string(merged) != string(b) || last.StreamID != res.Sent.StreamID {
			t.Errorf("%d bytes: SnowLuma merged %d bytes (%v)", size, len(merged), err)
		}
		if !strings.Contains(string(res.Terminal.Raw), last.Path) {
			t.Errorf("terminal %s lacks the file_path", res.Terminal.Raw)
		}
		if int64(len(acked)) != chunks || acked[len(acked)-1] != size {
			t.Errorf("progress %v", acked)
		}
		if !strings.HasSuffix(last.Path, "__photo.jpg") {
			t.Errorf("merged as %s: the filename was not sent", last.Path)
		}
		if !strings.Contains(string(res.Terminal.Raw), `"file_complete"`) || !strings.Contains(string(res.Terminal.Raw), want) {
			t.Errorf("terminal %s is not SnowLuma's merge answer", res.Terminal.Raw)
		}
	}
	// Every chunk call carried the announcements and went to the action's
	// path; each stream ended with one merge call without chunk_data.
	merges := 0
	for _, r := range fake.Requests() {
		if r.Path != "/upload_file_stream" {
			t.Errorf("an upload call went to %s", r.Path)
		}
		p := string(r.Params)
		if !strings.Contains(p, `"chunk_data"`) {
			merges++
			if !strings.Contains(p, `"is_complete":true`) || !strings.Contains(p, `"expected_sha256"`) || !strings.Contains(p, `"file_size"`) {
				t.Errorf("a merge call lacks is_complete, the hash or the size: %s", p)
			}
			continue
		}
		if strings.Contains(p, `"is_complete"`) {
			t.Errorf("a chunk call carries is_complete: %.200s", p)
		}
		for _, field := range []string{`"total_chunks"`, `"file_size"`, `"expected_sha256"`, `"filename"`, `"file_retention":0`} {
			if !strings.Contains(p, field) {
				t.Errorf("a chunk call lacks %s: %.200s", field, p)
			}
		}
	}
	if merges != 3 {
		t.Errorf("%d merge calls for 3 uploads", merges)
	}
}

// TestUploadChunksFitTheBodyLimit: with a small request body limit the
// chunks shrink so that every call, base64 and JSON included, stays under
// it, and the file still arrives whole; a limit that leaves no room for
// data refuses the upload before anything is sent.
func TestUploadChunksFitTheBodyLimit(t *testing.T) {
	const limit = 16 << 10
	fake := simtest.Start(t, simulator.WithMaxBodyBytes(limit))
	c, err := New(Options{Endpoint: fake.URL, MaxBodyBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	root, path := uploadRoot(t, strings.Repeat("n", 200)+".bin", 100<<10)
	res, err := c.Upload(context.Background(), root, Upload{InputFile: path}, nil)
	if err != nil || !res.Completed {
		t.Fatalf("upload under a %d-byte limit: %v %+v", limit, err, res)
	}
	if res.Sent.Chunks < 100<<10/limit || res.Sent.Bytes != 100<<10 {
		t.Errorf("sent %+v", res.Sent)
	}
	ups := fake.Uploads()
	if len(ups) != 1 || ups[0].SHA256 != res.Sent.SHA256 {
		t.Errorf("SnowLuma has %+v", ups)
	}

	tiny, err := New(Options{Endpoint: fake.URL, MaxBodyBytes: 300})
	if err != nil {
		t.Fatal(err)
	}
	fake.Reset()
	_, err = tiny.Upload(context.Background(), root, Upload{InputFile: path}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != outcome.KindTooLarge || !strings.Contains(err.Error(), "300-byte request body limit") {
		t.Errorf("a limit without room for data: %v", err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestUploadRefusals(t *testing.T) {
	fake, c := fakeClient(t, nil)
	root, inside := uploadRoot(t, "ok.txt", 10)
	outsideDir := t.TempDir()
	outside := filepath.Join(outsideDir, "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o600)
	escape := filepath.Join(root.Dir(), "link")
	if err := os.Symlink(outside, escape); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root.Dir(), "sub")
	os.Mkdir(sub, 0o700)
	unreadable := filepath.Join(root.Dir(), "locked.txt")
	os.WriteFile(unreadable, []byte("x"), 0o000)
	for name, path := range map[string]string{
		"outside":       outside,
		"symlink out":   escape,
		"dot dot":       root.Dir() + "/sub/../ok.txt",
		"dot dot out":   root.Dir() + "/../" + filepath.Base(outsideDir) + "/secret.txt",
		"directory":     sub,
		"the root":      root.Dir(),
		"missing":       filepath.Join(root.Dir(), "nope.txt"),
		"relative":      "ok.txt",
		"device":        "/dev/zero",
		"empty":         "",
		"unreadable":    unreadable,
		"inside a file": inside + "/x",
	} {
		if name == "unreadable" && os.Geteuid() == 0 {
			continue // root reads anything
		}
		t.Run(name, func(t *testing.T) {
			res, err := c.Upload(context.Background(), root, Upload{InputFile: path}, nil)
			e := checkError(t, err, "upload_file_stream", outcome.KindPathRefused)
			if res != nil || !strings.Contains(e.Error(), "nothing was sent") || strings.Contains(e.Error(), "<nil>") {
				t.Errorf("%v, result %+v", e, res)
			}
		})
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("refused uploads sent %d requests", n)
	}
	// A symlink that stays inside is followed.
	os.Symlink(inside, filepath.Join(root.Dir(), "alias"))
	if _, err := c.Upload(context.Background(), root, Upload{InputFile: filepath.Join(root.Dir(), "alias")}, nil); err != nil {
		t.Errorf("symlink inside the root: %v", err)
	}
}

func TestUploadTooLarge(t *testing.T) {
	fake, c := fakeClient(t, nil)
	root, path := uploadRoot(t, "big.bin", 2000)
	_, err := c.Upload(context.Background(), root, Upload{InputFile: path, MaxFileBytes: 1000}, nil)
	checkError(t, err, "upload_file_stream", outcome.KindTooLarge)
	if len(fake.Requests()) != 0 {
		t.Error("a too large file was sent")
	}
}

func TestUploadCancelledSendsReset(t *testing.T) {
	fake, c := fakeClient(t, nil)
	simtest.StallUploads(fake, 2)
	root, path := uploadRoot(t, "big.bin", 4*UploadChunkBytes)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := c.Upload(ctx, root, Upload{InputFile: path}, func(done, _ int64) {
		if done == 2*UploadChunkBytes {
			time.AfterFunc(50*time.Millisecond, cancel) // while chunk 2 hangs
		}
	})
	checkError(t, err, "upload_file_stream", outcome.KindCancelled)
	if res == nil || res.Reset == nil || !res.Reset.Confirmed || res.Sent.Chunks != 2 {
		t.Fatalf("result %+v", res)
	}
	if !hasReset(fake, res.Sent.StreamID) {
		t.Error("no reset reached SnowLuma")
	}
}

func TestUploadIdleTimeoutSendsReset(t *testing.T) {
	fake, c := fakeClient(t, func(o *Options) { o.StreamIdleTimeout = 200 * time.Millisecond })
	simtest.StallUploads(fake, 1)
	root, path := uploadRoot(t, "big.bin", 3*UploadChunkBytes)
	res, err := c.Upload(context.Background(), root, Upload{InputFile: path}, nil)
	checkError(t, err, "upload_file_stream", outcome.KindTimeout)
	if res == nil || res.Reset == nil || !res.Reset.Confirmed || !hasReset(fake, res.Sent.StreamID) {
		t.Fatalf("result %+v", res)
	}
}

func TestUploadMissingAckIsAnError(t *testing.T) {
	var calls, resets int
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/octet-stream")
		if strings.Contains(string(body), `"reset":true`) {
			resets++
			io.WriteString(w, `{"status":"failed","retcode":1200,"data":{"type":"error"},"wording":"Stream reset completed"}`+FrameDelimiter)
			return
		}
		calls++
		// Acknowledges the wrong count.
		io.WriteString(w, `{"status":"ok","retcode":0,"data":{"type":"stream","status":"chunk_received","received_chunks":5,"total_chunks":3}}`+FrameDelimiter)
	}, nil)
	root, path := uploadRoot(t, "f.bin", 3*UploadChunkBytes)
	res, err := c.Upload(context.Background(), root, Upload{InputFile: path}, nil)
	checkError(t, err, "upload_file_stream", outcome.KindProtocol)
	if calls != 1 || resets != 1 || res.Reset == nil || !res.Reset.Confirmed {
		t.Errorf("%d chunk calls, %d resets, result %+v", calls, resets, res)
	}
}

func TestUploadHashMismatchIsSnowLumasFailure(t *testing.T) {
	fake, c := fakeClient(t, nil)
	root, path := uploadRoot(t, "f.bin", 10)
	// A file that changes between hashing and sending is caught locally.
	res, err := c.Upload(context.Background(), root, Upload{InputFile: path}, nil)
	if err != nil || !res.Completed {
		t.Fatalf("%v %+v", err, res)
	}
	// SnowLuma's own failure frame comes back as the result, with a reset.
	fake.Handle("upload_file_stream", func(params json.RawMessage) simulator.Reply {
		if strings.Contains(string(params), `"reset":true`) {
			return simulator.Reply{Frames: [][]byte{simulator.StreamError(1200, "Stream reset completed")}}
		}
		return simulator.Reply{Frames: [][]byte{simulator.StreamError(1400, "sha256 mismatch")}}
	})
	res, err = c.Upload(context.Background(), root, Upload{InputFile: path}, nil)
	if err != nil || res.Completed || res.Terminal.Status != "failed" || res.Reset == nil || !res.Reset.Confirmed {
		t.Errorf("%v %+v", err, res)
	}
}

func TestUploadResetFailureIsReported(t *testing.T) {
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.WriteHeader(500)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "boom")
	}, nil)
	root, path := uploadRoot(t, "f.bin", 10)
	res, err := c.Upload(context.Background(), root, Upload{InputFile: path}, nil)
	var e *Error
	if !errors.As(err, &e) || res == nil || res.Reset == nil || res.Reset.Confirmed || !strings.Contains(res.Reset.Detail, "reset failed") {
		t.Errorf("%v %+v", err, res)
	}
}

func TestThrottle(t *testing.T) {
	now := time.Unix(0, 0)
	var sent [][2]int64
	fail := false
	th := NewThrottle(250*time.Millisecond, func(done, total int64) error {
		if fail {
			return errors.New("pipe closed")
		}
		sent = append(sent, [2]int64{done, total})
		return nil
	})
	th.now = func() time.Time { return now }
	th.Update(10, 100) // first: at once
	th.Update(20, 100) // held
	th.Update(20, 100) // not an increase
	now = now.Add(100 * time.Millisecond)
	th.Update(30, 100) // held, replaces 20
	now = now.Add(200 * time.Millisecond)
	th.Update(40, 100) // 300 ms after the first: sent
	th.Update(5, 100)  // lower: dropped
	th.Update(50, 100) // held
	th.Flush()         // the final pending update
	th.Update(60, 100) // after Flush: nothing
	want := [][2]int64{{10, 100}, {40, 100}, {50, 100}}
	if len(sent) != len(want) {
		t.Fatalf("sent %v, want %v", sent, want)
	}
	for i := range want {
		if sent[i] != want[i] {
			t.Fatalf("sent %v, want %v", sent, want)
		}
	}

	th = NewThrottle(0, func(done, total int64) error { sent = append(sent, [2]int64{done, total}); return nil })
	sent = nil
	th.Update(1, 0)
	th.Update(2, 0)
	th.Stop() // a failure: the pending 2 is dropped
	th.Flush()
	if len(sent) != 1 {
		t.Errorf("after Stop: %v", sent)
	}

	fail = true
	th = NewThrottle(0, func(int64, int64) error { return errors.New("pipe closed") })
	th.Update(1, 0)
	th.Update(2, 0)
	if th.Err() == nil {
		t.Error("a failed report is not kept")
	}
}
