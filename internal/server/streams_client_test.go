package server_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// waitEmpty waits until dir holds nothing, failing after a generous wait.
func waitEmpty(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(e2e.Names(t, dir)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s still holds %v", dir, e2e.Names(t, dir))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDownloadLimitsLeaveNothing(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		for _, tc := range []struct {
			name, env, kind string
			file            simulator.File
			keep            []string
		}{
			{"size announced", "SNOWLUMA_MCP_MAX_FILE_BYTES=100000", "too_large", simulator.File{Name: "a.bin", Size: 300000}, nil},
			{"size while streaming", "SNOWLUMA_MCP_MAX_FILE_BYTES=100000", "too_large", simulator.File{Name: "a.bin", Size: 300000, UnknownSize: true}, nil},
			{"quota", "SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES=350000", "quota", simulator.File{Name: "a.bin", Size: 300000, UnknownSize: true}, []string{"old.bin"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "downloads")
				os.MkdirAll(dir, 0o700)
				for _, k := range tc.keep {
					os.WriteFile(filepath.Join(dir, k), make([]byte, 100000), 0o600)
				}
				fake, _, cs := e2e.Live(t, serve, era, "write", nil, "SNOWLUMA_MCP_DOWNLOAD_DIR="+dir, tc.env)
				fake.AddFile("f", tc.file)
				res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "download_file_stream", "params": map[string]any{"file": "f"}})
				if !res.IsError || r.Diagnostics.Kind != tc.kind || r.Diagnostics.NextStep == "" {
					t.Errorf("diagnostics %+v", r.Diagnostics)
				}
				if got := e2e.Names(t, dir); len(got) != len(tc.keep) {
					t.Errorf("directory holds %v, want %v", got, tc.keep)
				}
			})
		}
	})
}

func TestDownloadHostileNames(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		dir := filepath.Join(t.TempDir(), "downloads")
		fake, _, cs := e2e.Live(t, serve, era, "write", nil, "SNOWLUMA_MCP_DOWNLOAD_DIR="+dir)
		for i, name := range []string{"../../x", "/etc/passwd", "bad\x07name\n.txt"} {
			id := string(rune('a' + i))
			fake.AddFile(id, simulator.File{Name: name, Size: 1000, Seed: 5})
			_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "download_file_stream", "params": map[string]any{"file_id": id}})
			s := mcptest.Decode[e2e.Saved](t, r.Result)
			if r.Diagnostics.Outcome != "success" || s.Saved == nil || filepath.Dir(s.Saved.Path) != dir || strings.ContainsAny(s.Saved.FileName, "/\x07\n") {
				t.Errorf("%q: %+v %s", name, r.Diagnostics, r.Result)
			}
		}
		if got := e2e.Names(t, dir); len(got) != 3 {
			t.Errorf("directory holds %v", got)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "x")); err == nil {
			t.Error("a file landed outside the download directory")
		}
	})
}

func TestDownloadCancelledAndIdle(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		dir := filepath.Join(t.TempDir(), "downloads")
		progress := e2e.NewProgressLog()
		fake, p, cs := e2e.Live(t, serve, era, "write", progress.Options(), "SNOWLUMA_MCP_DOWNLOAD_DIR="+dir, "SNOWLUMA_MCP_STREAM_IDLE_TIMEOUT_MS=400")
		fake.AddFile("stuck", simulator.File{Name: "stuck.bin", Size: 4 << 20, Seed: 6, Stall: true, StallAfter: 8})

		// Idle: the stalled stream fails with timeout and leaves nothing.
		res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "download_file_image_stream", "params": map[string]any{"file": "stuck"}})
		if !res.IsError || r.Diagnostics.Kind != "timeout" || !strings.Contains(r.Diagnostics.Message, "idle") {
			t.Errorf("stalled download: %+v", r.Diagnostics)
		}
		if got := e2e.Names(t, dir); len(got) != 0 {
			t.Errorf("after the timeout the directory holds %v", got)
		}

		// Cancelled mid-download: nothing left behind, the server serves on.
		p.Close() // a fresh server with a long idle timeout
		fake, _, cs = e2e.Live(t, serve, era, "write", progress.Options(), "SNOWLUMA_MCP_DOWNLOAD_DIR="+dir)
		fake.AddFile("stuck", simulator.File{Name: "stuck.bin", Size: 4 << 20, Seed: 6, Stall: true, StallAfter: 8})
		cctx, cancel := context.WithCancel(mcptest.Context(t))
		done := make(chan error, 1)
		go func() {
			_, _, err := e2e.CallWithProgress(cctx, cs, "dl-cancel", map[string]any{"action": "download_file_record_stream", "params": map[string]any{"file": "stuck"}})
			done <- err
		}()
		progress.WaitFirst(t)
		if len(e2e.Names(t, dir)) != 1 {
			t.Errorf("no partial file while downloading: %v", e2e.Names(t, dir))
		}
		cancel()
		if err := mcptest.Await(t, "the cancelled download to return", done); err == nil {
			t.Error("the cancelled call returned a result")
		}
		waitEmpty(t, dir)
		_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "get_status"})
		if r.Diagnostics.Outcome != "success" {
			t.Errorf("after the cancellation: %+v", r.Diagnostics)
		}
	})
}

func TestStreamsBusy(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		progress := e2e.NewProgressLog()
		fake, _, cs := e2e.Live(t, serve, era, "write", progress.Options(), "SNOWLUMA_MCP_MAX_STREAMS=1")
		fake.AddFile("stuck", simulator.File{Name: "stuck.bin", Size: 1 << 20, Seed: 6, Stall: true, StallAfter: 2})
		cctx, cancel := context.WithCancel(mcptest.Context(t))
		done := make(chan struct{})
		go func() {
			defer close(done)
			e2e.CallWithProgress(cctx, cs, "busy-1", map[string]any{"action": "download_file_stream", "params": map[string]any{"file": "stuck"}})
		}()
		progress.WaitFirst(t)
		res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "test_download_stream"})
		if !res.IsError || r.Diagnostics.Kind != "busy" || !strings.Contains(r.Diagnostics.Message, "1 stream calls") || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_MAX_STREAMS") {
			t.Errorf("second stream: %+v", r.Diagnostics)
		}
		cancel()
		mcptest.Await(t, "the first stream to return", done)
		// Ordinary calls were never limited, and the slot comes back.
		deadline := time.Now().Add(20 * time.Second)
		for {
			_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "test_download_stream"})
			if r.Diagnostics.Kind != "busy" || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if r.Diagnostics.Outcome != "success" {
			t.Errorf("after the first stream ended: %+v", r.Diagnostics)
		}
	})
}

// uploadSetup makes an upload root with a file of size bytes.
func uploadSetup(t *testing.T, size int64) (root, file string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "uploads")
	os.Mkdir(root, 0o700)
	file = filepath.Join(root, "photo.jpg")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(f, simulator.Content(11, size))
	f.Close()
	return root, file
}

// runtimeTransport is get_runtime_info's transport object.
type runtimeTransport struct {
	Transport map[string]any `json:"transport"`
}

func TestUploadEndToEnd(t *testing.T) {
	t.Parallel()
	const size = 2<<20 + 12345
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		root, file := uploadSetup(t, size)
		want := e2e.FileHash(t, file)
		progress := e2e.NewProgressLog()
		fake, p, cs := e2e.Live(t, serve, era, "write", progress.Options(), "SNOWLUMA_MCP_UPLOAD_ROOT="+root)
		res, r, err := e2e.CallWithProgress(mcptest.Context(t), cs, "up-1", map[string]any{"action": "upload_file_stream",
			"params": map[string]any{"filename": "holiday.jpg", "file_retention": 0}, "execution": map[string]any{"input_file": file}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || r.Diagnostics.Outcome != "success" {
			t.Fatalf("upload: %+v", r.Diagnostics)
		}
		s := mcptest.Decode[e2e.SentResult](t, r.Result)
		ups := fake.Uploads()
		if len(ups) != 1 || s.Sent.SHA256 != want || s.Sent.Bytes != size || s.Sent.Chunks != 3 || s.Sent.InputFile != file ||
			s.Terminal.Data.FilePath != ups[0].Path || ups[0].SHA256 != want || s.Sent.StreamID != ups[0].StreamID {
			t.Fatalf("sent %+v, SnowLuma has %+v", s, ups)
		}
		if got := e2e.FileHash(t, ups[0].Path); got != want || !strings.HasSuffix(ups[0].Path, "holiday.jpg") {
			t.Errorf("merged file %s hashes to %s, want %s", ups[0].Path, got, want)
		}
		cs.Close()
		p.Close()
		values := e2e.CheckProgressLines(t, p, "up-1", size)
		if len(values) == 0 || values[len(values)-1] != size {
			t.Errorf("progress %v", values)
		}
	})
}

func TestUploadCancelledSendsReset(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		root, file := uploadSetup(t, 3<<20)
		progress := e2e.NewProgressLog()
		fake, _, cs := e2e.Live(t, serve, era, "write", progress.Options(), "SNOWLUMA_MCP_UPLOAD_ROOT="+root)
		simtest.StallUploads(fake, 1)
		cctx, cancel := context.WithCancel(mcptest.Context(t))
		done := make(chan error, 1)
		go func() {
			_, _, err := e2e.CallWithProgress(cctx, cs, "up-cancel", map[string]any{"action": "upload_file_stream", "execution": map[string]any{"input_file": file}})
			done <- err
		}()
		progress.WaitFirst(t)
		cancel()
		mcptest.Await(t, "the cancelled upload to return", done)
		deadline := time.Now().Add(20 * time.Second)
		for !resetSent(fake) {
			if time.Now().After(deadline) {
				t.Fatalf("no reset reached SnowLuma: %v", sent(fake))
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(fake.Uploads()) != 0 {
			t.Error("a cancelled upload was merged")
		}
	})
}

// resetSent reports whether the fake received an upload reset.
func resetSent(fake *simulator.Server) bool {
	for _, r := range fake.Requests() {
		if r.Action == "upload_file_stream" && strings.Contains(string(r.Params), `"reset":true`) {
			return true
		}
	}
	return false
}

func TestUploadRefusalsSendNothing(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		root, file := uploadSetup(t, 100)
		outside := filepath.Join(t.TempDir(), "secret.txt")
		os.WriteFile(outside, []byte("secret"), 0o600)
		os.Symlink(outside, filepath.Join(root, "escape"))
		os.Mkdir(filepath.Join(root, "sub"), 0o700)
		// Forms, so that invoke_action_with_input is this client's and
		// refuses execution for what it is.
		fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}}, "SNOWLUMA_MCP_UPLOAD_ROOT="+root)
		for name, path := range map[string]string{
			"outside":   outside,
			"symlink":   filepath.Join(root, "escape"),
			"dot dot":   root + "/sub/../photo.jpg",
			"directory": filepath.Join(root, "sub"),
			"missing":   filepath.Join(root, "nope.jpg"),
		} {
			res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "upload_file_stream", "execution": map[string]any{"input_file": path}})
			if !res.IsError || r.Diagnostics.Kind != "path_refused" || !strings.Contains(r.Diagnostics.Message, "nothing was sent") {
				t.Errorf("%s: %+v", name, r.Diagnostics)
			}
		}
		for name, args := range map[string]map[string]any{
			"another action":     {"action": "get_status", "execution": map[string]any{"input_file": file}},
			"chosen params":      {"action": "upload_file_stream", "params": map[string]any{"stream_id": "mine"}, "execution": map[string]any{"input_file": file}},
			"unknown field":      {"action": "upload_file_stream", "execution": map[string]any{"input_file": file, "chunk": 1}},
			"no input_file":      {"action": "upload_file_stream", "execution": map[string]any{}},
			"bad file_retention": {"action": "upload_file_stream", "params": map[string]any{"file_retention": "soon"}, "execution": map[string]any{"input_file": file}},
		} {
			res, r := mcptest.CallTool(t, cs, "invoke_action", args)
			if !res.IsError || (r.Diagnostics.Kind != "invalid_arguments" && r.Diagnostics.Kind != "invalid_params") {
				t.Errorf("%s: %+v", name, r.Diagnostics)
			}
		}
		res, r := mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "upload_file_stream", "execution": map[string]any{"input_file": file}})
		if !res.IsError || r.Diagnostics.Kind != "invalid_arguments" {
			t.Errorf("execution through invoke_action_with_input: %+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 0 {
			t.Errorf("refused uploads reached SnowLuma: %v", got)
		}
	})
	t.Run("no upload root", func(t *testing.T) {
		_, file := uploadSetup(t, 100)
		fake, _, cs := e2e.Live(t, serve, mcptest.Modern, "write", nil)
		res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "upload_file_stream", "execution": map[string]any{"input_file": file}})
		if !res.IsError || r.Diagnostics.Kind != "invalid_arguments" || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_UPLOAD_ROOT") {
			t.Errorf("%+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 0 {
			t.Errorf("sent %v", got)
		}
	})
}

func TestNoProgressWithoutToken(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		progress := e2e.NewProgressLog()
		fake, p, cs := e2e.Live(t, serve, era, "write", progress.Options())
		fake.AddFile("f", simulator.File{Name: "f.bin", Size: 1 << 20, Seed: 1})
		_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "download_file_stream", "params": map[string]any{"file": "f", "chunk_size": 1024}})
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("%+v", r.Diagnostics)
		}
		// A generic stream with a token reports frames accepted.
		_, _, err := e2e.CallWithProgress(mcptest.Context(t), cs, "gen-1", map[string]any{"action": "test_download_stream"})
		if err != nil {
			t.Fatal(err)
		}
		cs.Close()
		p.Close()
		for _, l := range p.Received() {
			if strings.Contains(l, `"method":"notifications/progress"`) && !strings.Contains(l, `"gen-1"`) {
				t.Errorf("progress without a token: %s", l)
			}
		}
		values := e2e.CheckProgressLines(t, p, "gen-1", 0)
		if len(values) == 0 || values[len(values)-1] != 10 {
			t.Errorf("generic stream progress %v, want it to end at 10 frames", values)
		}
	})
}

func TestRuntimeInfoTransport(t *testing.T) {
	t.Parallel()
	root, _ := uploadSetup(t, 1)
	dir := filepath.Join(t.TempDir(), "dl")
	_, _, cs := e2e.Live(t, serve, mcptest.Modern, "read", nil, "SNOWLUMA_MCP_DOWNLOAD_DIR="+dir, "SNOWLUMA_MCP_UPLOAD_ROOT="+root,
		"SNOWLUMA_MCP_MAX_FILE_BYTES=5000", "SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES=9000", "SNOWLUMA_MCP_MAX_STREAMS=3",
		"SNOWLUMA_MCP_STREAM_CONNECT_TIMEOUT_MS=1234", "SNOWLUMA_MCP_STREAM_IDLE_TIMEOUT_MS=5678")
	_, r := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
	info := mcptest.Decode[runtimeTransport](t, r.Result)
	for k, want := range map[string]any{"download_dir": dir, "upload_root": root, "upload_enabled": true, "max_file_bytes": 5000.0,
		"download_quota_bytes": 9000.0, "max_streams": 3.0, "stream_connect_timeout_ms": 1234.0, "stream_idle_timeout_ms": 5678.0} {
		if info.Transport[k] != want {
			t.Errorf("transport.%s = %v, want %v", k, info.Transport[k], want)
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("download directory %v %v", fi, err)
	}
	_, _, cs = e2e.Live(t, serve, mcptest.Modern, "write", nil)
	_, r = mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
	info = mcptest.Decode[runtimeTransport](t, r.Result)
	if v, ok := info.Transport["upload_root"]; !ok || v != nil || info.Transport["upload_enabled"] != false {
		t.Errorf("without a root: %v", info.Transport)
	}
}

// TestUploadByHandAndWithInput: without execution, upload_file_stream
// sends the caller's chunk and returns SnowLuma's one answer frame; an
// elicited answer that tries to add execution is refused, nothing sent.
func TestUploadByHandAndWithInput(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		root, file := uploadSetup(t, 10)
		var mu sync.Mutex
		var seen []*mcp.ElicitParams
		// stream_id is a typed field of the form; the answer tries to add
		// execution beside it.
		addExecution := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			seen = append(seen, req.Params)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"stream_id": "s1", "execution": `{"input_file":` + strconvQuote(file) + `}`}}, nil
		}
		fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: addExecution}, "SNOWLUMA_MCP_UPLOAD_ROOT="+root)
		_, r := mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "upload_file_stream", "params": map[string]any{"chunk_data": "aGVsbG8=", "chunk_index": 0, "total_chunks": 1}})
		if r.Diagnostics.Outcome != "failed" || r.Diagnostics.Kind != "invalid_answer" || len(seen) != 1 {
			t.Errorf("an answer adding execution: %+v (%d forms)", r.Diagnostics, len(seen))
		}
		if got := sent(fake); len(got) != 0 {
			t.Errorf("sent %v", got)
		}
		// SnowLuma acknowledges the chunk, the last one too, and merges on
		// a call of its own without chunk_data.
		_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "upload_file_stream", "params": map[string]any{"stream_id": "by-hand", "chunk_data": "aGVsbG8=", "chunk_index": 0, "total_chunks": 1}})
		if r.Diagnostics.Outcome != "success" || !strings.Contains(string(r.Result), `"status":"chunk_received"`) {
			t.Errorf("chunk by hand: %+v %s", r.Diagnostics, r.Result)
		}
		_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "upload_file_stream", "params": map[string]any{"stream_id": "by-hand", "is_complete": true}})
		res := mcptest.Decode[e2e.SentResult](t, r.Result)
		if r.Diagnostics.Outcome != "success" || !strings.Contains(string(r.Result), `"status":"file_complete"`) || res.Terminal.Data.SHA256 != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" {
			t.Errorf("upload by hand: %+v %s", r.Diagnostics, r.Result)
		}
	})
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestUploadTakesTheSafetyPath: an automatic upload is a write like any
// other, so SNOWLUMA_MCP_CONFIRM=writes has a person confirm it first; a
// refusal sends nothing, an acceptance uploads the file.
func TestUploadTakesTheSafetyPath(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		root, file := uploadSetup(t, 5000)
		c := &confirmer{}
		fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: c.handle}, "SNOWLUMA_MCP_UPLOAD_ROOT="+root, "SNOWLUMA_MCP_CONFIRM=writes")
		args := map[string]any{"action": "upload_file_stream", "execution": map[string]any{"input_file": file}}
		c.answer(confirmAnswer(false))
		res, r := mcptest.CallTool(t, cs, "invoke_action", args)
		if !res.IsError || r.Diagnostics.Kind != "not_confirmed" || len(c.forms()) != 1 {
			t.Errorf("refused: %+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 0 {
			t.Fatalf("a refused upload sent %v", got)
		}
		c.answer(confirmAnswer(true))
		res, r = mcptest.CallTool(t, cs, "invoke_action", args)
		if res.IsError || r.Diagnostics.Outcome != "success" || len(fake.Uploads()) != 1 || mcptest.Decode[e2e.SentResult](t, r.Result).Sent.SHA256 != e2e.FileHash(t, file) {
			t.Errorf("confirmed: %+v %s", r.Diagnostics, r.Result)
		}
	})
}
