package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// sampleArgs holds, for every tool, arguments that exercise its widest
// reach. A tool without an entry fails TestAnnotationsMatchBehaviour:
// adding a tool means saying how to call it here.
var sampleArgs = map[string]map[string]any{
	"list_actions":             {},
	"search_actions":           {"query": "group"},
	"get_action":               {"name": "get_status"},
	"list_categories":          {},
	"get_runtime_info":         {"check_connection": true},
	"find_targets":             {"query": "张三"},
	"query_action":             {"action": "get_status"},
	"query_action_with_input":  {"action": "get_msg", "params": map[string]any{"message_id": 5}},
	"invoke_action":            {"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi"}},
	"invoke_action_with_input": {"action": "delete_msg", "params": map[string]any{"message_id": 5}},
	"preview_message":          {"message_type": "group", "target_id": 20001, "text": "hi", "reply_to": -5},
	"view_media":               {"message_id": simulator.MediaPhotosMessage},
}

// passThrough are the write actions a read-only tool may send because
// their effect does not outlive the call: view_media's downloads, whose
// files it reads and removes (TestViewMediaPictures checks that the
// download directory is left empty).
var passThrough = map[string]map[string]bool{
	"view_media": {"download_file_image_stream": true, "download_file_record_stream": true},
}

// mediaAnswers are the actions whose answers view_media's sample needs
// from the fake's own media (media.go of the simulator).
var mediaAnswers = map[string]bool{
	"get_msg": true, "ocr_image": true, "fetch_ptt_text": true,
	"download_file_image_stream": true, "download_file_record_stream": true,
}

// TestAnnotationsMatchBehaviour calls every tool a fully capable client
// sees in write mode, against a fake SnowLuma that records what reaches it,
// and holds each tool's annotations to what the call did: a tool that
// contacted SnowLuma must say openWorldHint true, and a tool that says
// readOnlyHint must not have sent a write action.
func TestAnnotationsMatchBehaviour(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t)
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cat.Actions() {
		if mediaAnswers[a.Name] {
			continue
		}
		fake.Handle(a.Name, func(json.RawMessage) simulator.Reply {
			return simulator.Reply{Envelope: simulator.Envelope{Status: "ok", Data: []byte(`{}`)}}
		})
	}
	cs := connect(t, liveServer(t, config.ModeWrite, fake.URL, nil), &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
	})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		args, ok := sampleArgs[tool.Name]
		if !ok {
			t.Errorf("%s: no sample arguments in sampleArgs", tool.Name)
			continue
		}
		fake.Reset()
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
		if err != nil || r.IsError {
			t.Errorf("%s: sample call failed: %v %+v", tool.Name, err, r)
			continue
		}
		an := tool.Annotations
		reached := fake.Requests()
		if len(reached) > 0 && !toolkit.OpenWorld(an) {
			t.Errorf("%s contacted SnowLuma but does not declare openWorldHint: true", tool.Name)
		}
		for _, req := range reached {
			if a, ok := cat.Lookup(req.Action); an.ReadOnlyHint && (!ok || !a.ReadOnly) && !passThrough[tool.Name][req.Action] {
				t.Errorf("%s declares readOnlyHint but sent the write action %s", tool.Name, req.Action)
			}
		}
		if !an.ReadOnlyHint && an.DestructiveHint == nil {
			t.Errorf("%s writes but leaves destructiveHint to the default", tool.Name)
		}
	}
}
