package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// TestDownloadLargeFlatMemory downloads 64 MiB through the real binary and
// checks the saved bytes, the progress on the wire and the server's peak
// memory (its own high-water mark once the download is done; see
// mcptest.Proc.PeakRSS for why not the exited process's rusage).
func TestDownloadLargeFlatMemory(t *testing.T) {
	t.Parallel()
	const size = 64 << 20
	want := e2e.ContentHash(42, size)
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake := simulator.Start(t, simulator.WithToken(e2e.SecretToken))
		fake.AddFile("big", simulator.File{Name: "big.bin", Size: size, Seed: 42})
		dir := filepath.Join(t.TempDir(), "downloads")
		p := mcptest.Spawn(t, plainBinary(t), era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken,
			"SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_DOWNLOAD_DIR="+dir)
		progress := e2e.NewProgressLog()
		cs := p.Connect(progress.Options())
		res, r, err := e2e.CallWithProgress(mcptest.Context(t), cs, "dl-1", map[string]any{"action": "download_file_stream", "params": map[string]any{"file": "big"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || r.Diagnostics.Outcome != "success" {
			t.Fatalf("download: %+v", r)
		}
		s := mcptest.Decode[e2e.Saved](t, r.Result)
		if s.Saved == nil || s.Saved.Bytes != size || s.Saved.SHA256 != want || s.Saved.Path != filepath.Join(dir, "big.bin") || s.Saved.Chunks != size/(64<<10) {
			t.Fatalf("saved %+v", s.Saved)
		}
		if got := e2e.FileHash(t, s.Saved.Path); got != want {
			t.Errorf("file on disk hashes to %s, want %s", got, want)
		}
		if strings.Contains(string(r.Result), "\"data\":\"") {
			t.Error("the result carries file bytes")
		}
		rss := p.PeakRSS() // the high-water mark, read before the process exits
		cs.Close()
		p.Close()
		values := e2e.CheckProgressLines(t, p, "dl-1", size)
		if len(values) == 0 || values[len(values)-1] != size {
			t.Errorf("progress values end %v, want %d", values[max(len(values)-1, 0):], size)
		}
		// Throttled: far fewer notifications than the 1024 chunks.
		if len(values) > 256 {
			t.Errorf("%d progress notifications for 1024 chunks", len(values))
		}
		t.Logf("peak RSS %.1f MiB for a %d MiB download (%d notifications)", float64(rss)/(1<<20), size>>20, len(values))
		if rss >= 64<<20 {
			t.Errorf("peak RSS %d bytes, want under 64 MiB", rss)
		}
		e2e.NoLeak(t, p)
	})
}

// TestHeapFloor: the binary lets its heap grow to about 32 MiB before it
// collects (heapfloor, wired in main), and an operator's GOGC turns that
// off. The collector's own trace (GODEBUG=gctrace=1) says each cycle's
// heap goal while 1,500 searches run one after another.
func TestHeapFloor(t *testing.T) {
	t.Parallel()
	goal := regexp.MustCompile(`(\d+) MB goal`)
	largest := func(env ...string) (mb int) {
		t.Helper()
		cmd := exec.Command(plainBinary(t))
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GODEBUG=gctrace=1"}, env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		answers := bufio.NewReaderSize(stdout, 64<<10)
		ask := func(line string) {
			if _, err := io.WriteString(stdin, line+"\n"); err != nil {
				t.Fatal(err)
			}
			if line, err := answers.ReadSlice('\n'); err != nil || !bytes.Contains(line, []byte(`"result"`)) {
				t.Fatalf("answer %.300s: %v\n%.2000s", line, err, stderr.String())
			}
		}
		ask(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`)
		io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		for i := 1; i <= 1500; i++ {
			ask(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_actions","arguments":{"query":"group"}}}`, i))
		}
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		cycles := goal.FindAllStringSubmatch(stderr.String(), -1)
		for _, m := range cycles {
			n, _ := strconv.Atoi(m[1])
			mb = max(mb, n)
		}
		t.Logf("%v: %d collections, heap goals up to %d MB", env, len(cycles), mb)
		return mb
	}
	if mb := largest(); mb < 24 {
		t.Errorf("heap goals up to %d MB by default, want about 32", mb)
	}
	if mb := largest("GOGC=100"); mb >= 16 {
		t.Errorf("heap goals up to %d MB with GOGC=100, want Go's own (a few MB)", mb)
	}
}
