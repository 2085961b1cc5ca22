package server_test

import (
	"bytes"
	"encoding/json"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// viewed is view_media's answer as a client reads it.
type viewed struct {
	res    *mcp.CallToolResult
	diag   mcptest.ToolResult
	answer struct {
		MessageID  json.RawMessage `json:"message_id"`
		Chat       string          `json:"chat"`
		MediaCount int             `json:"media_count"`
		Items      []struct {
			Index  int    `json:"index"`
			Kind   string `json:"kind"`
			Format string `json:"format"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
			Bytes  int64  `json:"bytes"`
			Shown  *struct {
				MIMEType string `json:"mime_type"`
				Width    int    `json:"width"`
				Height   int    `json:"height"`
				Bytes    int    `json:"bytes"`
			} `json:"shown"`
			OCRText  *string `json:"ocr_text"`
			OCR      string  `json:"ocr"`
			Text     *string `json:"text"`
			Seconds  int     `json:"seconds"`
			Name     string  `json:"name"`
			Size     int64   `json:"size"`
			File     string  `json:"file"`
			Download string  `json:"download"`
			Error    *struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"items"`
		NotShown string `json:"not_shown"`
		Download string `json:"download"`
		Trust    string `json:"trust"`
	}
	images []*mcp.ImageContent
}

// view calls view_media and checks the result's shape: a text block that
// repeats structuredContent, then only images.
func view(t *testing.T, cs *mcp.ClientSession, args map[string]any) viewed {
	t.Helper()
	res, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: "view_media", Arguments: args})
	if err != nil {
		t.Fatalf("view_media %v: %v", args, err)
	}
	var v viewed
	v.res = res
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &v.diag); err != nil {
		t.Fatalf("structuredContent %s: %v", raw, err)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || !mcptest.SameJSON(json.RawMessage(text.Text), raw) {
		t.Fatalf("the first block is not structuredContent's JSON: %v", res.Content[0])
	}
	for _, c := range res.Content[1:] {
		img, ok := c.(*mcp.ImageContent)
		if !ok {
			t.Fatalf("a block after the text is %T, not an image", c)
		}
		v.images = append(v.images, img)
	}
	if res.IsError != (v.diag.Diagnostics.Outcome == "failed" && string(v.diag.Result) == "null") {
		t.Errorf("isError %v with %+v", res.IsError, v.diag.Diagnostics)
	}
	if string(v.diag.Result) != "null" {
		if err := json.Unmarshal(v.diag.Result, &v.answer); err != nil {
			t.Fatalf("result %s: %v", v.diag.Result, err)
		}
	}
	return v
}

// decoded decodes an image block again and checks it against the limits.
func decoded(t *testing.T, img *mcp.ImageContent, maxBytes int) image.Image {
	t.Helper()
	if len(img.Data) == 0 || len(img.Data) > maxBytes {
		t.Fatalf("image of %d bytes, limit %d", len(img.Data), maxBytes)
	}
	m, format, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatalf("an image block does not decode: %v", err)
	}
	if img.MIMEType != "image/"+format {
		t.Errorf("mimeType %s for %s data", img.MIMEType, format)
	}
	if b := m.Bounds(); max(b.Dx(), b.Dy()) > 1568 {
		t.Errorf("image %v, longer than 1568 px", b)
	}
	if bytes.Contains(img.Data, []byte("Exif")) || bytes.Contains(img.Data, []byte(simulator.ExifMarker)) {
		t.Error("an image block carries the source's EXIF")
	}
	return m
}

// mediaRuntime reads get_runtime_info's media counters.
func mediaRuntime(t *testing.T, cs *mcp.ClientSession) map[string]float64 {
	t.Helper()
	_, r := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
	return mcptest.Decode[struct {
		Media map[string]float64 `json:"media"`
	}](t, r.Result).Media
}

func TestViewMediaPictures(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		dir := filepath.Join(t.TempDir(), "downloads")
		_, _, cs := e2e.Live(t, serve, era, "read", nil, "SNOWLUMA_MCP_DOWNLOAD_DIR="+dir)
		v := view(t, cs, map[string]any{"message_id": simulator.MediaPhotosMessage})
		a := v.answer
		if v.res.IsError || len(v.images) != 4 || len(a.Items) != 4 || a.MediaCount != 5 || a.Chat != "group:30003" ||
			!strings.Contains(a.NotShown, "#5") || !strings.HasPrefix(a.Trust, "untrusted") || !strings.Contains(a.Download, "download_file_image_stream") {
			t.Fatalf("%+v: %d images, answer %s", v.diag.Diagnostics, len(v.images), v.diag.Result)
		}
		wantFormat := []string{"jpeg", "png", "gif", "webp"}
		for i, it := range a.Items {
			m := decoded(t, v.images[i], 1<<20)
			// These four are shown at their own size, which shown does
			// not repeat.
			if it.Index != i+1 || it.Kind != "image" || it.Format != wantFormat[i] || it.Shown == nil || it.Shown.Width != 0 || it.Shown.Height != 0 ||
				it.Shown.MIMEType != v.images[i].MIMEType || it.Width != m.Bounds().Dx() || it.Height != m.Bounds().Dy() || it.Shown.Bytes != len(v.images[i].Data) || it.Bytes == 0 || it.File == "" || it.Download != "" {
				t.Errorf("item %d: %+v", i+1, it)
			}
		}
		if ocr := a.Items[0].OCRText; ocr == nil || *ocr != "周末爬山\n08:00 集合" {
			t.Errorf("OCR text of the photo: %v (%s)", ocr, a.Items[0].OCR)
		}
		// The sticker's transparency survives as a PNG.
		if v.images[1].MIMEType != "image/png" {
			t.Errorf("the transparent sticker came back as %s", v.images[1].MIMEType)
		}

		// The fifth, 2400×1600, on its own and scaled down.
		v = view(t, cs, map[string]any{"message_id": "73001", "index": 5})
		if len(v.images) != 1 || len(v.answer.Items) != 1 {
			t.Fatalf("index 5: %+v %s", v.diag.Diagnostics, v.diag.Result)
		}
		it := v.answer.Items[0]
		if m := decoded(t, v.images[0], 1<<20); it.Width != 2400 || it.Height != 1600 || m.Bounds().Dx() != 1568 || it.Shown.Height != m.Bounds().Dy() {
			t.Errorf("the large photo: %+v", it)
		}
		// The pictures passed through the download directory and left it.
		if names := e2e.Names(t, dir); len(names) != 0 {
			t.Errorf("the download directory keeps %v", names)
		}
		if rt := mediaRuntime(t, cs); rt["calls"] != 2 || rt["images_shown"] != 5 || rt["ocr_answered"] != 5 || rt["max_image_bytes"] != 1<<20 {
			t.Errorf("get_runtime_info media %v", rt)
		}
	})
}

// TestViewMediaByteLimit: SNOWLUMA_MCP_MAX_IMAGE_BYTES bounds what comes
// back: a photo over it at every quality comes back with fewer pixels. The
// photo is the small one (320×240): the large one's way down to 1568 pixels
// is TestViewMediaPictures', and under the race detector each encoding of
// it costs a second.
func TestViewMediaByteLimit(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		_, _, cs := e2e.Live(t, serve, era, "read", nil, "SNOWLUMA_MCP_MAX_IMAGE_BYTES=2000")
		v := view(t, cs, map[string]any{"message_id": simulator.MediaPhotosMessage, "index": 1})
		if len(v.images) != 1 || len(v.answer.Items) != 1 {
			t.Fatalf("%+v %s", v.diag.Diagnostics, v.diag.Result)
		}
		m := decoded(t, v.images[0], 2000)
		if it := v.answer.Items[0]; it.Width != 320 || it.Shown == nil || it.Shown.Width != m.Bounds().Dx() || m.Bounds().Dx() >= 320 {
			t.Errorf("the 320-pixel photo shown as %v: %+v", m.Bounds(), it)
		}
	})
}

func TestViewMediaWithoutOCR(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "write", nil)
		simtest.FailOCR(fake, true)
		v := view(t, cs, map[string]any{"message_id": simulator.MediaPhotosMessage, "index": 1})
		if v.res.IsError || len(v.images) != 1 || len(v.answer.Items) != 1 {
			t.Fatalf("%+v %s", v.diag.Diagnostics, v.diag.Result)
		}
		decoded(t, v.images[0], 1<<20)
		if it := v.answer.Items[0]; it.OCRText != nil || !strings.Contains(it.OCR, "OCR failed") {
			t.Errorf("without OCR: %+v", it)
		}
		if rt := mediaRuntime(t, cs); rt["ocr_failed"] != 1 || rt["ocr_answered"] != 0 {
			t.Errorf("get_runtime_info media %v", rt)
		}
	})
}

// TestViewMediaUnreadable: a picture cut short, a decompression bomb and a
// header that lies are refused as media_unreadable, and the server goes
// on serving.
func TestViewMediaUnreadable(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		_, _, cs := e2e.Live(t, serve, era, "read", nil)
		for index, want := range map[int]string{1: "cut short", 2: "decompression bomb", 3: "more than its"} {
			v := view(t, cs, map[string]any{"message_id": simulator.MediaBrokenMessage, "index": index})
			if d := v.diag.Diagnostics; !v.res.IsError || d.Kind != "media_unreadable" || !strings.Contains(d.Message, want) || d.NextStep == "" || len(v.images) != 0 {
				t.Errorf("index %d: %+v", index, d)
			}
		}
		v := view(t, cs, map[string]any{"message_id": simulator.MediaBrokenMessage})
		if v.diag.Diagnostics.Kind != "media_unreadable" {
			t.Errorf("all three: %+v", v.diag.Diagnostics)
		}
		if v := view(t, cs, map[string]any{"message_id": simulator.MediaPhotosMessage, "index": 2}); len(v.images) != 1 {
			t.Errorf("after the broken ones: %+v", v.diag.Diagnostics)
		}
		if rt := mediaRuntime(t, cs); rt["images_unreadable"] != 6 || rt["images_shown"] != 1 {
			t.Errorf("get_runtime_info media %v", rt)
		}
	})
}

func TestViewMediaVoiceAndFiles(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		_, _, cs := e2e.Live(t, serve, era, "read", nil)
		v := view(t, cs, map[string]any{"message_id": simulator.MediaVoiceMessage})
		if len(v.answer.Items) != 1 || len(v.images) != 0 {
			t.Fatalf("%+v %s", v.diag.Diagnostics, v.diag.Result)
		}
		// The duration is counted from the audio's frames: SnowLuma's record
		// segment has none.
		if it := v.answer.Items[0]; it.Kind != "voice" || it.Text == nil || *it.Text != simulator.VoiceText || it.Seconds != 3 || !strings.Contains(it.Download, "download_file_record_stream") {
			t.Errorf("voice: %+v", it)
		}

		v = view(t, cs, map[string]any{"message_id": simulator.MediaOtherMessage, "index": 1})
		if it := v.answer.Items[0]; it.Kind != "video" || !strings.Contains(it.Download, "download_file_stream") || it.Name == "" {
			t.Errorf("video: %+v", it)
		}
		v = view(t, cs, map[string]any{"message_id": simulator.MediaOtherMessage, "index": 2})
		if it := v.answer.Items[0]; it.Kind != "file" || it.Name != "季度报告.pdf" || it.Size != 482113 || !strings.Contains(it.Download, "get_group_file_url") {
			t.Errorf("file: %+v", it)
		}
		// Without an index: the one picture, a market face fetched by its
		// URL (the face segment is not media).
		v = view(t, cs, map[string]any{"message_id": simulator.MediaOtherMessage})
		if len(v.images) != 1 || len(v.answer.Items) != 1 || v.answer.Items[0].Kind != "sticker" || v.answer.Items[0].Index != 3 || v.answer.MediaCount != 3 {
			t.Fatalf("sticker: %+v %s", v.diag.Diagnostics, v.diag.Result)
		}
		decoded(t, v.images[0], 1<<20)

		for _, args := range []map[string]any{
			{"message_id": simulator.MediaOtherMessage, "index": 4},
			{"message_id": 12345}, // the fake's plain text message
		} {
			if v := view(t, cs, args); v.diag.Diagnostics.Kind != "invalid_arguments" || !v.res.IsError {
				t.Errorf("%v: %+v", args, v.diag.Diagnostics)
			}
		}
	})
}

// TestViewMediaAllowlist: the allowlists apply to the message's chat.
func TestViewMediaAllowlist(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "read", nil, "SNOWLUMA_MCP_ALLOWED_GROUPS=20001")
		v := view(t, cs, map[string]any{"message_id": simulator.MediaPhotosMessage})
		if d := v.diag.Diagnostics; d.Kind != "target_not_allowed" || !strings.Contains(d.Message, "group:30003") {
			t.Errorf("%+v", d)
		}
		for _, r := range fake.Requests() {
			if strings.Contains(r.Action, "download") || r.Action == "ocr_image" {
				t.Errorf("%s was sent for a message outside the allowlist", r.Action)
			}
		}
	})
}

// TestMediaPlaceholders: pushes of the channel and reads of an event
// resource show media as view_media numbers them.
func TestMediaPlaceholders(t *testing.T) {
	t.Parallel()
	msg := `[{"type":"text","data":{"text":"看"}},{"type":"image","data":{"file":"a.jpg","url":"https://x/a"}},{"type":"face","data":{"id":"14"}},{"type":"record","data":{"file":"v.amr","url":""}}]`
	const want = "看[图片 #1][表情:微笑][语音 #2]"
	bothEras(t, func(t *testing.T, era mcptest.Era) {
		q := startChannel(t, era, "SNOWLUMA_MCP_CHANNEL=all", "SNOWLUMA_MCP_CHANNEL_GROUPS=20001")
		q.send(t, qqGroup("message", 20001, 30005, 4, msg))
		if content, _ := q.push(t); content != want {
			t.Errorf("pushed %q, want %q", content, want)
		}
	})
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := liveEvents(t, era, "read", nil)
		uri := e2e.SubscribeEvents(t, cs, map[string]any{})
		push(t, simtest.EventConn(t, fake, 0), qqGroup("message", 20001, 30005, 4, msg))
		got := e2e.WaitRead(t, cs, e2e.Raw(uri), "the message", func(r e2e.EventsRead) bool { return len(r.Events) == 1 })
		if r := e2e.MustRead(t, cs, uri); !strings.HasSuffix(r.Lines, ": "+want+"\n") || r.Chat != "group:20001" {
			t.Errorf("the read as lines: %q of %q, want the text %q of group:20001", r.Lines, r.Chat, want)
		}
		res, err := cs.ReadResource(mcptest.Context(t), &mcp.ReadResourceParams{URI: e2e.Raw(uri)})
		if err != nil {
			t.Fatal(err)
		}
		var read struct {
			Events []struct {
				Event json.RawMessage `json:"event"`
				Text  string          `json:"text"`
			} `json:"events"`
		}
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &read); err != nil || len(read.Events) != 1 {
			t.Fatalf("%v: %s", err, res.Contents[0].Text)
		}
		if read.Events[0].Text != want || !mcptest.SameJSON(read.Events[0].Event, got.Events[0].Event) {
			t.Errorf("read %q, want %q", read.Events[0].Text, want)
		}
	})
}
