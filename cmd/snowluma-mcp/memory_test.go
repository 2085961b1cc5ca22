package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
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
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
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
