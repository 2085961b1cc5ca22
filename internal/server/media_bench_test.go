package server

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/media"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// BenchmarkViewMedia12MP serves a 12-megapixel phone photo (4.8 MB)
// through view_media end to end, as a raw JSON-RPC client calls it: get_msg,
// the download stream from the in-process fake (its base64 framing
// included), the saved file read back and removed, decoding, scaling,
// encoding, ocr_image and the answer line (docs/performance.md). cpu-ms/op
// is the process's CPU time, the fake's share included.
func BenchmarkViewMedia12MP(b *testing.B) {
	fake := simtest.Start(b, simulator.WithoutRecording())
	fake.AddFile("big.jpg", simulator.File{Name: "big.jpg", Data: simulator.SamplePhoto(4000, 3000)})
	fake.Handle("get_msg", func(json.RawMessage) simulator.Reply {
		return simulator.OK(json.RawMessage(`{"message_id":7,"message_type":"group","group_id":30003,"user_id":20002,"time":1700000000,"sender":{"user_id":20002},"message":[{"type":"image","data":{"file":"big.jpg","url":""}}]}`))
	})
	fake.Handle("ocr_image", func(json.RawMessage) simulator.Reply {
		return simulator.OK(json.RawMessage(`{"texts":[],"language":"zh"}`))
	})
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		b.Fatal(err)
	}
	store, err := transfer.NewStore(b.TempDir(), 1<<30, 4<<30)
	if err != nil {
		b.Fatal(err)
	}
	be := &backend.Backend{Client: client, Downloads: store, Media: media.NewDecoder(0, 0)}
	rs := rawConnect(b, func(pass mcpseam.Passer) (*mcp.Server, error) {
		return New(Options{Catalog: catalog.Preload(), Mode: config.ModeRead, Backend: be, Speed: Speed{PassEncoded: pass, GrowStacks: true}})
	})
	const call = `{"name":"view_media","arguments":{"message_id":7}}`
	rs.call(b, "tools/call", call)
	b.ReportAllocs()
	start, ok := cpuTime()
	for b.Loop() {
		rs.call(b, "tools/call", call)
	}
	if end, _ := cpuTime(); ok {
		b.ReportMetric(float64((end-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}
