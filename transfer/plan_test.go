package transfer

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// TestTransferByShape: one entry runs each shape as its own function does,
// and refuses a plan of no known shape before anything is sent.
func TestTransferByShape(t *testing.T) {
	t.Parallel()
	fake, c := fakeClient(t, nil)
	ctx := context.Background()

	fake.AddFile("a.txt", simulator.File{Name: "a.txt", Size: 1000, Seed: 3})
	out, err := c.Transfer(ctx, Plan{Shape: ShapeDownload, Store: newStore(t, 0, 0),
		Request: Request{Action: "download_file_stream", Params: json.RawMessage(`{"file":"a.txt"}`)}})
	if err != nil || out.Download == nil || out.Download.Saved == nil || out.Download.Saved.Bytes != 1000 {
		t.Fatalf("download: %+v %v", out, err)
	}

	var frames int
	out, err = c.Transfer(ctx, Plan{Shape: ShapeFrames, Request: Request{Action: "test_download_stream"},
		OnFrame: func(Frame) error { frames++; return nil }})
	if err != nil || !out.Terminal.Terminal || frames < 2 {
		t.Fatalf("frames: %d frames, %+v %v", frames, out, err)
	}

	out, err = c.Transfer(ctx, Plan{Shape: ShapeUpload, Request: Request{Action: "upload_file_stream", Params: json.RawMessage(`{"stream_id":"s","reset":true}`)}})
	if err != nil || out.Upload != nil || !out.Terminal.Terminal {
		t.Fatalf("upload call: %+v %v", out, err)
	}

	before := len(fake.Requests())
	if _, err := c.Transfer(ctx, Plan{Request: Request{Action: "get_status"}}); err == nil || !strings.Contains(err.Error(), "no stream of shape") {
		t.Errorf("no shape: %v", err)
	}
	if len(fake.Requests()) != before {
		t.Error("a plan of no shape was sent")
	}
}
