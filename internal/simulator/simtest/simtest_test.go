package simtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// call posts params to the fake's action and returns its envelope.
func call(t *testing.T, s *simulator.Server, action, params string) (env struct {
	Status  string          `json:"status"`
	Retcode int             `json:"retcode"`
	Data    json.RawMessage `json:"data"`
}) {
	t.Helper()
	resp, err := http.Post(s.URL+action, "application/json", bytes.NewReader([]byte(params)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	return env
}

// TestFailOCR: a failing OCR answers retcode 100 for a picture the fake
// has, as SnowLuma does when QQ's OCR fails; an unknown picture is refused
// as before; turned off, OCR answers again.
func TestFailOCR(t *testing.T) {
	t.Parallel()
	s := Start(t)
	var msg struct {
		Message []struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		} `json:"message"`
	}
	if err := json.Unmarshal(call(t, s, "get_msg", fmt.Sprintf(`{"message_id":%d}`, simulator.MediaPhotosMessage)).Data, &msg); err != nil || len(msg.Message) < 2 {
		t.Fatalf("photos message: %+v (%v)", msg, err)
	}
	photo := fmt.Sprintf(`{"image":%q}`, msg.Message[1].Data["file"])
	if env := call(t, s, "ocr_image", photo); env.Status != "ok" {
		t.Fatalf("ocr_image: %+v", env)
	}
	FailOCR(s, true)
	if env := call(t, s, "ocr_image", photo); env.Status != "failed" || env.Retcode != 100 {
		t.Errorf("failing OCR: %+v", env)
	}
	if env := call(t, s, "ocr_image", `{"image":"nope"}`); env.Status != "failed" || env.Retcode != 100 {
		t.Errorf("failing OCR of an unknown picture: %+v", env)
	}
	FailOCR(s, false)
	if env := call(t, s, "ocr_image", photo); env.Status != "ok" {
		t.Errorf("OCR on again: %+v", env)
	}
}
