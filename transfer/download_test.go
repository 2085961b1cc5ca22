package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// fakeClient starts a fake SnowLuma and a client for it.
func fakeClient(t *testing.T, edit func(*Options)) (*simulator.Server, *Client) {
	t.Helper()
	fake := simtest.Start(t)
	opts := Options{Endpoint: fake.URL}
	if edit != nil {
		edit(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return fake, c
}

func newStore(t *testing.T, maxFile, quota int64) *Store {
	t.Helper()
	st, err := NewStore(filepath.Join(t.TempDir(), "downloads"), maxFile, quota)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// contentHash is the SHA-256 of a fake file's content.
func contentHash(t *testing.T, seed uint64, size int64) string {
	t.Helper()
	h := sha256.New()
	if _, err := io.Copy(h, simulator.Content(seed, size)); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dirNames lists the names in dir, hidden partial files included.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func fetch(c *Client, st *Store, id string, progress Progress) (*DownloadResult, error) {
	return c.Download(context.Background(), Request{Action: "download_file_stream", Params: []byte(`{"file":"` + id + `","chunk_size":40000}`)}, st, progress)
}

func TestDownloadSavesByteExact(t *testing.T) {
	fake, c := fakeClient(t, nil)
	st := newStore(t, 0, 0)
	for _, tc := range []struct {
		name    string
		size    int64
		unknown bool
	}{{"report.pdf", 1<<20 + 7, false}, {"stream.bin", 123457, true}, {"empty.txt", 0, false}} {
		fake.AddFile(tc.name, simulator.File{Name: tc.name, Size: tc.size, Seed: 7, UnknownSize: tc.unknown})
		var dones, totals []int64
		res, err := fetch(c, st, tc.name, func(done, total int64) { dones = append(dones, done); totals = append(totals, total) })
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s := res.Saved
		if s == nil || s.FileName != tc.name || s.Path != filepath.Join(st.Dir(), tc.name) || s.Bytes != tc.size {
			t.Fatalf("%s: saved %+v", tc.name, s)
		}
		if want := contentHash(t, 7, tc.size); s.SHA256 != want {
			t.Errorf("%s: sha256 %s, want %s", tc.name, s.SHA256, want)
		}
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != s.SHA256 || int64(len(b)) != tc.size {
			t.Errorf("%s: the file on disk differs from the result", tc.name)
		}
		if wantChunks := (tc.size + 39999) / 40000; s.Chunks != wantChunks || int64(len(dones)) != wantChunks {
			t.Errorf("%s: %d chunks, %d progress calls, want %d", tc.name, s.Chunks, len(dones), wantChunks)
		}
		for i := range dones {
			if (i > 0 && dones[i] <= dones[i-1]) || (tc.unknown && totals[i] != 0) || (!tc.unknown && totals[i] != tc.size) {
				t.Errorf("%s: progress %v totals %v", tc.name, dones, totals)
				break
			}
		}
		if res.Terminal.Type != "response" || !strings.Contains(string(res.Terminal.Raw), "file_complete") {
			t.Errorf("%s: terminal %s", tc.name, res.Terminal.Raw)
		}
	}
	if names := dirNames(t, st.Dir()); len(names) != 3 {
		t.Errorf("directory holds %v", names)
	}
}

func TestDownloadHostileNamesStayInside(t *testing.T) {
	fake, c := fakeClient(t, nil)
	st := newStore(t, 0, 0)
	for id, name := range map[string]string{"a": "../../x", "b": "/etc/passwd", "c": "evil\x00na\nme\x1b.txt", "d": "..", "e": `C:\Windows\win.ini`, "f": strings.Repeat("é", 300) + ".tar.gz"} {
		fake.AddFile(id, simulator.File{Name: name, Size: 10, Seed: 1})
		res, err := fetch(c, st, id, nil)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		p := res.Saved.Path
		if filepath.Dir(p) != st.Dir() || strings.ContainsAny(res.Saved.FileName, "/\\\x00\n\x1b") || strings.HasPrefix(res.Saved.FileName, ".") || len(res.Saved.FileName) > maxNameBytes {
			t.Errorf("%q saved as %q", name, p)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(st.Dir()), "x")); err == nil {
		t.Error("a file was written outside the directory")
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"../../x":         "x",
		"/etc/passwd":     "passwd",
		"a\x00b\tc\u202e": "abc",
		"..":              fallbackName,
		"":                fallbackName,
		".bashrc":         "bashrc",
		"a:b?.txt":        "a_b_.txt",
		"NUL.txt":         "_NUL.txt",
		"report. ":        "report",
		"照片.jpg":          "照片.jpg",
	} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
	long := SafeName(strings.Repeat("字", 100) + ".jpeg")
	if len(long) > maxNameBytes || !strings.HasSuffix(long, "字.jpeg") {
		t.Errorf("long name %q (%d bytes)", long, len(long))
	}
}

func TestDownloadNeverOverwrites(t *testing.T) {
	fake, c := fakeClient(t, nil)
	st := newStore(t, 0, 0)
	if err := os.WriteFile(filepath.Join(st.Dir(), "a.txt"), []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake.AddFile("a", simulator.File{Name: "a.txt", Size: 100, Seed: 2})
	for _, want := range []string{"a-1.txt", "a-2.txt"} {
		res, err := fetch(c, st, "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Saved.FileName != want {
			t.Errorf("saved as %s, want %s", res.Saved.FileName, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(st.Dir(), "a.txt")); string(b) != "keep me" {
		t.Error("an existing file was overwritten")
	}
}

// checkNothingLeft asserts that dir holds exactly the names in keep.
func checkNothingLeft(t *testing.T, dir string, keep ...string) {
	t.Helper()
	if names := dirNames(t, dir); len(names) != len(keep) {
		t.Errorf("directory holds %v, want %v", names, keep)
	}
}

func TestDownloadLimits(t *testing.T) {
	fake, c := fakeClient(t, nil)
	fake.AddFile("big", simulator.File{Name: "big.bin", Size: 300000, Seed: 3})
	fake.AddFile("sneaky", simulator.File{Name: "sneaky.bin", Size: 300000, Seed: 3, UnknownSize: true})

	t.Run("size announced", func(t *testing.T) {
		st := newStore(t, 200000, 0)
		_, err := fetch(c, st, "big", nil)
		checkError(t, err, "download_file_stream", outcome.KindTooLarge)
		checkNothingLeft(t, st.Dir())
	})
	t.Run("size while streaming", func(t *testing.T) {
		st := newStore(t, 200000, 0)
		_, err := fetch(c, st, "sneaky", nil)
		checkError(t, err, "download_file_stream", outcome.KindTooLarge)
		checkNothingLeft(t, st.Dir())
	})
	t.Run("quota announced", func(t *testing.T) {
		st := newStore(t, 0, 400000)
		os.WriteFile(filepath.Join(st.Dir(), "old"), make([]byte, 200000), 0o600)
		_, err := fetch(c, st, "big", nil)
		checkError(t, err, "download_file_stream", outcome.KindQuota)
		checkNothingLeft(t, st.Dir(), "old")
	})
	t.Run("quota while streaming", func(t *testing.T) {
		st := newStore(t, 0, 400000)
		os.WriteFile(filepath.Join(st.Dir(), "old"), make([]byte, 200000), 0o600)
		_, err := fetch(c, st, "sneaky", nil)
		checkError(t, err, "download_file_stream", outcome.KindQuota)
		checkNothingLeft(t, st.Dir(), "old")
	})
	t.Run("quota counts saved downloads", func(t *testing.T) {
		st := newStore(t, 0, 500000)
		if _, err := fetch(c, st, "big", nil); err != nil {
			t.Fatal(err)
		}
		_, err := fetch(c, st, "big", nil)
		checkError(t, err, "download_file_stream", outcome.KindQuota)
		checkNothingLeft(t, st.Dir(), "big.bin")
	})
}

func TestDownloadStallTimesOut(t *testing.T) {
	fake, c := fakeClient(t, func(o *Options) { o.StreamIdleTimeout = 200 * time.Millisecond })
	fake.AddFile("stuck", simulator.File{Name: "stuck.bin", Size: 1 << 20, Seed: 4, Stall: true, StallAfter: 3})
	st := newStore(t, 0, 0)
	var got int64
	_, err := fetch(c, st, "stuck", func(done, _ int64) { got = done })
	e := checkError(t, err, "download_file_stream", outcome.KindTimeout)
	if !strings.Contains(e.Error(), "idle") || got != 3*40000 {
		t.Errorf("error %v after %d bytes", e, got)
	}
	checkNothingLeft(t, st.Dir())
}

func TestDownloadCancelled(t *testing.T) {
	fake, c := fakeClient(t, nil)
	fake.AddFile("stuck", simulator.File{Name: "stuck.bin", Size: 1 << 20, Seed: 4, Stall: true, StallAfter: 2})
	st := newStore(t, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := c.Download(ctx, Request{Action: "download_file_stream", Params: []byte(`{"file":"stuck"}`)}, st, func(done, _ int64) {
		if done == 2*defaultChunk {
			cancel()
		}
	})
	checkError(t, err, "download_file_stream", outcome.KindCancelled)
	checkNothingLeft(t, st.Dir())
}

// defaultChunk is SnowLuma's default download chunk size.
const defaultChunk = 64 << 10

func TestDownloadSnowLumaFailure(t *testing.T) {
	_, c := fakeClient(t, nil)
	st := newStore(t, 0, 0)
	res, err := fetch(c, st, "missing", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Saved != nil || res.Terminal.Status != "failed" || !strings.Contains(string(res.Terminal.Raw), "file not found") {
		t.Errorf("result %+v", res)
	}
	checkNothingLeft(t, st.Dir())
}

func TestDownloadProtocolChecks(t *testing.T) {
	const info = `{"status":"ok","retcode":0,"data":{"type":"stream","data_type":"file_info","file_name":"f","file_size":6,"chunk_size":3}}`
	chunk := func(i, data string) string {
		return `{"status":"ok","retcode":0,"data":{"type":"stream","data_type":"file_chunk","index":` + i + `,"data":"` + data + `","size":3}}`
	}
	done := func(chunks, bytes string) string {
		return `{"status":"ok","retcode":0,"data":{"type":"response","data_type":"file_complete","file_name":"f","total_chunks":` + chunks + `,"total_bytes":` + bytes + `}}`
	}
	for name, frames := range map[string][]string{
		"out of order":      {info, chunk("1", "YWJj"), chunk("0", "ZGVm"), done("2", "6")},
		"repeated index":    {info, chunk("0", "YWJj"), chunk("0", "ZGVm"), done("2", "6")},
		"wrong size":        {info, chunk("0", "YWJjZA=="), done("1", "4")},
		"bad base64":        {info, chunk("0", "!!!!"), done("1", "3")},
		"chunk before info": {chunk("0", "YWJj"), done("1", "3")},
		"totals disagree":   {info, chunk("0", "YWJj"), chunk("1", "ZGVm"), done("3", "6")},
		"short of size":     {info, chunk("0", "YWJj"), done("1", "3")},
		"past size":         {info, chunk("0", "YWJj"), chunk("1", "ZGVm"), chunk("2", "Z2hp"), done("3", "9")},
		"not json":          {info, `{"status":"ok",`},
		"no terminal":       {info, chunk("0", "YWJj")},
	} {
		t.Run(name, func(t *testing.T) {
			c := newTestClient(t, streamHandler(frames, false), nil)
			st := newStore(t, 0, 0)
			_, err := c.Download(context.Background(), Request{Action: "download_file_stream"}, st, nil)
			var e *Error
			if !errors.As(err, &e) || (e.Kind != outcome.KindProtocol && e.Kind != outcome.KindStreamFailed) {
				t.Errorf("error %v", err)
			}
			checkNothingLeft(t, st.Dir())
		})
	}
	t.Run("escaped base64 and string numbers", func(t *testing.T) {
		frames := []string{info, chunk("0", `YW\/j`), `{"status":"ok","retcode":"0","data":{"type":"stream","data_type":"file_chunk","index":"1","data":"ZGVm","size":"3"}}`, done("2", "6")}
		c := newTestClient(t, streamHandler(frames, false), nil)
		st := newStore(t, 0, 0)
		res, err := c.Download(context.Background(), Request{Action: "download_file_stream"}, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(res.Saved.Path); string(b) != "ao\xe3def" {
			t.Errorf("saved %q", b)
		}
	})
}

func TestStreamsBusy(t *testing.T) {
	fake, c := fakeClient(t, func(o *Options) { o.MaxStreams = 1 })
	fake.AddFile("stuck", simulator.File{Name: "stuck.bin", Size: 1 << 20, Seed: 4, Stall: true, StallAfter: 1})
	st := newStore(t, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var once sync.Once
		c.Download(ctx, Request{Action: "download_file_stream", Params: []byte(`{"file":"stuck"}`)}, st, func(int64, int64) { once.Do(func() { close(started) }) })
	}()
	<-started
	_, err := fetch(c, st, "stuck", nil)
	e := checkError(t, err, "download_file_stream", outcome.KindBusy)
	if !strings.Contains(e.Error(), "1 stream calls") {
		t.Errorf("busy message %q does not name the limit", e)
	}
	err = c.Stream(context.Background(), Request{Action: "test_download_stream"}, func(Frame) error { return nil })
	checkError(t, err, "test_download_stream", outcome.KindBusy)
	cancel()
	wg.Wait()
	// The slot is free again.
	if err := c.Stream(context.Background(), Request{Action: "test_download_stream"}, func(Frame) error { return nil }); err != nil {
		t.Errorf("after the first call ended: %v", err)
	}
}

func TestStreamConnectTimeoutIsNotTheCallTimeout(t *testing.T) {
	// A slow but moving stream outlives the ordinary call timeout.
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		for _, f := range downloadFrames(3, completeFrame) {
			time.Sleep(60 * time.Millisecond)
			io.WriteString(w, f+FrameDelimiter)
			w.(http.Flusher).Flush()
		}
	}, func(o *Options) { o.Timeout = 50 * time.Millisecond })
	if _, err := collect(t, c, context.Background()); err != nil {
		t.Errorf("a moving stream failed: %v", err)
	}
}

// BenchmarkDownload measures a 64 MiB download from the fake into a store,
// the fake's frame generation included.
func BenchmarkDownload(b *testing.B) {
	const size = 64 << 20
	fake := simtest.Start(b)
	fake.AddFile("f", simulator.File{Name: "f.bin", Size: size, Seed: 1})
	c, err := New(Options{Endpoint: fake.URL})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	for b.Loop() {
		st, err := NewStore(b.TempDir(), 0, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Download(context.Background(), Request{Action: "download_file_stream", Params: []byte(`{"file":"f"}`)}, st, nil); err != nil {
			b.Fatal(err)
		}
	}
}
