package simulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestMediaAnswers: the plain fake's media messages, their downloads, and
// ocr_image and fetch_ptt_text as SnowLuma answers them.
func TestMediaAnswers(t *testing.T) {
	t.Parallel()
	s := startFake(t)
	msg := decode[struct {
		Message []struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		} `json:"message"`
		GroupID int64 `json:"group_id"`
	}](t, ok(t, s, "get_msg", fmt.Sprintf(`{"message_id":%d}`, MediaPhotosMessage)))
	if len(msg.Message) != 6 || msg.Message[1].Type != "image" || msg.GroupID == 0 {
		t.Fatalf("photos message: %+v", msg)
	}
	photo := msg.Message[1].Data["file"].(string)
	name, data := download(t, s, photo)
	if name != "IMG_2048.jpg" || !bytes.Contains(data, []byte(ExifMarker)) {
		t.Errorf("downloaded %s, %d bytes", name, len(data))
	}
	ocr := string(ok(t, s, "ocr_image", fmt.Sprintf(`{"image":%q}`, photo)))
	if !strings.Contains(ocr, `"text":"周末爬山"`) || !strings.Contains(ocr, `"language":"zh"`) || !strings.Contains(ocr, `"coordinates":[{"x":`) {
		t.Errorf("ocr_image: %s", ocr)
	}
	if a := call(t, s, "ocr_image", `{"image":"nope"}`); a.Retcode != 100 || !strings.Contains(a.Wording, "cached image file_id") {
		t.Errorf("OCR of an unknown image: %+v", a)
	}
	text := decode[struct {
		Text string `json:"text"`
	}](t, ok(t, s, "fetch_ptt_text", fmt.Sprintf(`{"message_id":"%d"}`, MediaVoiceMessage)))
	if text.Text != VoiceText {
		t.Errorf("fetch_ptt_text: %q", text.Text)
	}
	if a := call(t, s, "fetch_ptt_text", fmt.Sprintf(`{"message_id":%d}`, MediaPhotosMessage)); a.Retcode != 100 {
		t.Errorf("fetch_ptt_text of a message without voice: %+v", a)
	}
	// Other ids are the plain fake's text message, as before.
	if got := string(ok(t, s, "get_msg", `{"message_id":5}`)); !strings.Contains(got, "hello from the fake") {
		t.Errorf("get_msg 5: %s", got)
	}
}

// TestWorldMedia: the sandbox's first group ends with the photos and the
// voice message, whose text fetch_ptt_text gives.
func TestWorldMedia(t *testing.T) {
	t.Parallel()
	s := startFake(t, WithWorld(1))
	g := s.WorldGroups()[0]
	h := decode[struct {
		Messages []struct {
			MessageID  int64             `json:"message_id"`
			Message    []json.RawMessage `json:"message"`
			RawMessage string            `json:"raw_message"`
		} `json:"messages"`
	}](t, ok(t, s, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d,"count":2}`, g.ID)))
	if len(h.Messages) != 2 || !strings.Contains(h.Messages[0].RawMessage, "[CQ:image") || !strings.Contains(h.Messages[1].RawMessage, "[CQ:record") {
		t.Fatalf("the newest messages: %+v", h.Messages)
	}
	text := decode[struct {
		Text string `json:"text"`
	}](t, ok(t, s, "fetch_ptt_text", fmt.Sprintf(`{"message_id":"%d"}`, h.Messages[1].MessageID)))
	if text.Text != VoiceText {
		t.Errorf("fetch_ptt_text: %q", text.Text)
	}
	if a := call(t, s, "fetch_ptt_text", fmt.Sprintf(`{"message_id":"%d"}`, h.Messages[0].MessageID)); a.Retcode != 100 {
		t.Errorf("fetch_ptt_text of the photos: %+v", a)
	}
}
