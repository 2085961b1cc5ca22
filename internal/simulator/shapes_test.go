package simulator

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A shape is what SnowLuma 1.11.1's source builds for one read: each key
// with the JSON type of its value, and the shapes of nested objects. The
// shapes below are written from reading SnowLuma's code (paths are under
// packages/onebot/src), in our own terms; the sandbox must answer with
// exactly these keys.
type shape struct {
	keys   map[string]string // key -> number, string, boolean, array, object or null
	nested map[string]shape  // the shape of an object-valued key
}

// The sender SnowLuma's own copy of a send carries:
// modules/message-actions.ts, cacheSelfSentMessage.
var selfCopySender = shape{keys: map[string]string{"user_id": "number", "nickname": "string", "sex": "string", "age": "number"}}

// The sender of a group message QQ delivered: event-converter/to-message.ts,
// convertGroupMessage.
var groupSenderShape = shape{keys: map[string]string{"user_id": "number", "nickname": "string", "card": "string",
	"role": "string", "sex": "string", "age": "number"}}

// The sender of a private message QQ delivered: event-converter/to-message.ts,
// convertPrivateMessage.
var privateSenderShape = shape{keys: map[string]string{"user_id": "number", "nickname": "string", "sex": "string", "age": "number"}}

// messageKeys are the keys every stored message has as the API gives it
// back: the converter's (or the self copy's) fields without post_type and
// self_id, with real_id (actions/message.ts get_msg;
// modules/message-actions.ts sanitizeMessageEventForApi for history).
func messageKeys(extra map[string]string) map[string]string {
	k := map[string]string{"time": "number", "message_type": "string", "sub_type": "string", "message_id": "number",
		"message_seq": "number", "user_id": "number", "message": "array", "raw_message": "string", "font": "number",
		"sender": "object", "real_id": "number"}
	for key, typ := range extra {
		k[key] = typ
	}
	return k
}

var (
	// get_msg of the bot's own group send: modules/message-actions.ts
	// (cacheSelfSentMessage: group_id, no card, role or anonymous) through
	// actions/message.ts (get_msg).
	selfGroupCopy = shape{keys: messageKeys(map[string]string{"group_id": "number"}),
		nested: map[string]shape{"sender": selfCopySender}}
	// get_msg of the bot's own private send: the same, with target_id (the
	// peer) instead of group_id.
	selfPrivateCopy = shape{keys: messageKeys(map[string]string{"target_id": "number"}),
		nested: map[string]shape{"sender": selfCopySender}}
	// A group message QQ delivered, as get_msg and the group history give
	// it: event-converter/to-message.ts (convertGroupMessage, anonymous
	// null) without post_type and self_id, with real_id.
	groupMessage = shape{keys: messageKeys(map[string]string{"group_id": "number", "anonymous": "null"}),
		nested: map[string]shape{"sender": groupSenderShape}}
	// A private message QQ delivered (friend history):
	// event-converter/to-message.ts, convertPrivateMessage.
	privateMessage = shape{keys: messageKeys(nil), nested: map[string]shape{"sender": privateSenderShape}}
	// The group message event on the WebSocket: convertGroupMessage with
	// event-converter/envelope.ts's time, self_id and post_type.
	groupMessageEvent = shape{keys: map[string]string{"time": "number", "self_id": "number", "post_type": "string",
		"message_type": "string", "sub_type": "string", "message_id": "number", "message_seq": "number",
		"group_id": "number", "user_id": "number", "message": "array", "raw_message": "string", "font": "number",
		"sender": "object", "anonymous": "null"}, nested: map[string]shape{"sender": groupSenderShape}}
	// A poke in a group: event-converter/to-notice.ts, convertGroupPoke.
	groupPoke = shape{keys: map[string]string{"time": "number", "self_id": "number", "post_type": "string",
		"notice_type": "string", "sub_type": "string", "group_id": "number", "user_id": "number",
		"target_id": "number", "action": "string", "suffix": "string", "action_img_url": "string"}}
	// One filtered join request: actions/extended.ts,
	// get_group_ignore_add_request.
	ignoredRequest = shape{keys: map[string]string{"request_id": "number", "invitor_uin": "number",
		"invitor_nick": "string", "group_id": "number", "message": "string", "group_name": "string",
		"checked": "boolean", "actor": "number", "requester_nick": "string"}}
	// One pending join request: modules/contact-actions.ts,
	// getGroupSystemMessages (get_group_system_msg).
	systemRequest = shape{keys: map[string]string{"group_id": "number", "group_name": "string", "request_id": "number",
		"requester_uin": "number", "requester_nick": "string", "message": "string", "flag": "string"}}
	// Segment data: event-converter/element-codecs.ts (at: qq; reply: id;
	// face: id; text: text, every value a string; image and record below).
	segmentData = map[string]shape{
		"text":  {keys: map[string]string{"text": "string"}},
		"at":    {keys: map[string]string{"qq": "string"}},
		"reply": {keys: map[string]string{"id": "string"}},
		"face":  {keys: map[string]string{"id": "string"}},
		// image: url, file, sub_type (a number) and summary; record: file
		// and url (the same file).
		"image":  {keys: map[string]string{"url": "string", "file": "string", "sub_type": "number", "summary": "string"}},
		"record": {keys: map[string]string{"file": "string", "url": "string"}},
	}
)

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// hold fails the test unless v has exactly the keys of want, each of its
// type, and nested objects their shapes.
func (want shape) hold(t *testing.T, what string, v map[string]any) {
	t.Helper()
	for k, typ := range want.keys {
		got, ok := v[k]
		if !ok {
			t.Errorf("%s: no %q (SnowLuma has it, a %s)", what, k, typ)
			continue
		}
		if jsonType(got) != typ {
			t.Errorf("%s: %q is a %s, SnowLuma's is a %s", what, k, jsonType(got), typ)
		}
		if n, ok := want.nested[k]; ok {
			if obj, ok := got.(map[string]any); ok {
				n.hold(t, what+"."+k, obj)
			}
		}
	}
	for k := range v {
		if _, ok := want.keys[k]; !ok {
			t.Errorf("%s: %q, which SnowLuma does not give", what, k)
		}
	}
}

// holdSegments checks each segment of a message against segmentData.
func holdSegments(t *testing.T, what string, msg map[string]any) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	segs, _ := msg["message"].([]any)
	for i, s := range segs {
		seg, _ := s.(map[string]any)
		typ, _ := seg["type"].(string)
		want, ok := segmentData[typ]
		if !ok {
			t.Errorf("%s: segment %d of type %q, which the world should not send yet", what, i, typ)
			continue
		}
		seen[typ] = true
		data, _ := seg["data"].(map[string]any)
		want.hold(t, fmt.Sprintf("%s segment %d (%s)", what, i, typ), data)
	}
	return seen
}

// asMap decodes an object.
func asMap(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	return decode[map[string]any](t, raw)
}

// TestShapesSelfCopy: get_msg of the bot's own sends is SnowLuma's
// synthetic copy (no card, role or anonymous; an empty nickname; target_id
// for a private one), until a history read replaces it with QQ's message.
func TestShapesSelfCopy(t *testing.T) {
	t.Parallel()
	s := startFake(t, WithWorld(21))
	gid := groupsByRole(t, s)["admin"]
	sent := func(action, params string) int32 {
		return decode[struct {
			MessageID int32 `json:"message_id"`
		}](t, ok(t, s, action, params)).MessageID
	}
	g := sent("send_group_msg", fmt.Sprintf(`{"group_id":%d,"message":"收到"}`, gid))
	copyOf := asMap(t, ok(t, s, "get_msg", fmt.Sprintf(`{"message_id":%d}`, g)))
	selfGroupCopy.hold(t, "get_msg of a group send", copyOf)
	if copyOf["sender"].(map[string]any)["nickname"] != "" || copyOf["user_id"] != float64(SelfID) {
		t.Errorf("the self copy's sender %v", copyOf["sender"])
	}

	friend := s.world.friends[0]
	p := sent("send_private_msg", fmt.Sprintf(`{"user_id":%d,"message":"在吗"}`, friend))
	copyOf = asMap(t, ok(t, s, "get_msg", fmt.Sprintf(`{"message_id":%d}`, p)))
	selfPrivateCopy.hold(t, "get_msg of a private send", copyOf)
	if copyOf["target_id"] != float64(friend) || copyOf["message_type"] != "private" {
		t.Errorf("the private self copy %v", copyOf)
	}

	// A history read fetches QQ's copy, which then answers get_msg.
	ok(t, s, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d,"count":3}`, gid))
	groupMessage.hold(t, "get_msg of a group send after a history read", asMap(t, ok(t, s, "get_msg", fmt.Sprintf(`{"message_id":%d}`, g))))
}

// TestShapesHistory: group and friend history items are the converter's
// messages, their segments SnowLuma's (text, at, reply, face); the history
// of every group together has an @ of the bot, a reply and a face; and a
// page read with message_id ends with that anchor message, as SnowLuma's
// anchored listing (sequence <= the anchor's) gives it.
func TestShapesHistory(t *testing.T) {
	t.Parallel()
	s := startFake(t, WithWorld(22))
	seen := map[string]bool{}
	mentions := false
	for _, g := range s.WorldGroups() {
		h := decode[struct {
			Messages []map[string]any `json:"messages"`
		}](t, ok(t, s, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d,"count":200}`, g.ID)))
		for i, m := range h.Messages {
			what := fmt.Sprintf("group %d history item %d", g.ID, i)
			groupMessage.hold(t, what, m)
			for typ := range holdSegments(t, what, m) {
				seen[typ] = true
			}
			mentions = mentions || strings.Contains(m["raw_message"].(string), fmt.Sprintf("[CQ:at,qq=%d]", SelfID))
		}
		if len(h.Messages) < 3 {
			t.Fatalf("group %d: %d messages", g.ID, len(h.Messages))
		}
		// Paging: the anchor is the last item of the page it names.
		anchor := h.Messages[len(h.Messages)/2]["message_id"].(float64)
		page := decode[struct {
			Messages []map[string]any `json:"messages"`
		}](t, ok(t, s, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d,"message_id":%d,"count":2}`, g.ID, int64(anchor))))
		if len(page.Messages) != 2 || page.Messages[1]["message_id"] != anchor {
			t.Errorf("group %d: the page before %v ends with %v", g.ID, anchor, page.Messages)
		}
	}
	for _, typ := range []string{"text", "at", "reply", "face"} {
		if !seen[typ] {
			t.Errorf("no %s segment in any group's history", typ)
		}
	}
	if !mentions {
		t.Error("no message of the history mentions the bot")
	}
	friend := s.world.friends[0]
	h := decode[struct {
		Messages []map[string]any `json:"messages"`
	}](t, ok(t, s, "get_friend_msg_history", fmt.Sprintf(`{"user_id":%d}`, friend)))
	if len(h.Messages) == 0 {
		t.Fatal("no friend history")
	}
	for i, m := range h.Messages {
		privateMessage.hold(t, fmt.Sprintf("friend history item %d", i), m)
	}
}

// TestShapesEvents: without reportSelfMessage (SnowLuma's default) a send
// is never pushed; the trickle's group messages and pokes have SnowLuma's
// shapes, and some of its messages @ the bot.
func TestShapesEvents(t *testing.T) {
	t.Parallel()
	s := startFake(t, WithWorld(23))
	next := listen(t, s)
	gid := groupsByRole(t, s)["owner"]
	id := decode[struct {
		MessageID int32 `json:"message_id"`
	}](t, ok(t, s, "send_group_msg", fmt.Sprintf(`{"group_id":%d,"message":"hi"}`, gid))).MessageID
	ok(t, s, "delete_msg", fmt.Sprintf(`{"message_id":%d}`, id))
	// Events come in order: the recall's notice is the first one.
	if ev := next(func(map[string]any) bool { return true }); ev["notice_type"] != "group_recall" {
		t.Errorf("the first event after a send and its recall: %v", ev)
	}

	live := startFake(t, WithWorld(23), WithTrickle(time.Millisecond))
	next = listen(t, live)
	msg := next(func(ev map[string]any) bool { return ev["post_type"] == "message" })
	groupMessageEvent.hold(t, "a trickled group message", msg)
	holdSegments(t, "a trickled group message", msg)
	poke := next(func(ev map[string]any) bool { return ev["sub_type"] == "poke" })
	groupPoke.hold(t, "a poke", poke)
	// Now and then a member @s the bot, so that a mentions channel has
	// something to push.
	at := next(func(ev map[string]any) bool {
		return ev["post_type"] == "message" && strings.Contains(ev["raw_message"].(string), fmt.Sprintf("[CQ:at,qq=%d]", SelfID))
	})
	holdSegments(t, "a trickled mention", at)
}

// TestShapesIgnoredRequests: get_group_ignore_add_request lists the
// filtered join request in SnowLuma's shape, and get_group_system_msg the
// pending ones in theirs.
func TestShapesIgnoredRequests(t *testing.T) {
	t.Parallel()
	s := startFake(t, WithWorld(24))
	pending := decode[[]map[string]any](t, ok(t, s, "get_group_system_msg", `{}`))
	if len(pending) == 0 {
		t.Fatal("no pending request")
	}
	for i, r := range pending {
		systemRequest.hold(t, fmt.Sprintf("pending request %d", i), r)
	}
	list := decode[[]map[string]any](t, ok(t, s, "get_group_ignore_add_request", `{}`))
	if len(list) == 0 {
		t.Fatal("no filtered request")
	}
	for i, r := range list {
		ignoredRequest.hold(t, fmt.Sprintf("filtered request %d", i), r)
	}
}

// TestShapesDownloadSources: download_file_stream takes what SnowLuma's
// takes (actions/stream-download.ts resolveDownload): a file in the stream
// directory, an http(s) URL (the world's group file links), a cached media
// id; it refuses the rest with SnowLuma's wording in a failed terminal
// frame (streaming.ts wrapStreamTerminal: retcode 100 from the action
// seam, data {type, data_type} "error").
func TestShapesDownloadSources(t *testing.T) {
	t.Parallel()
	s := startFake(t, WithWorld(25))
	g := s.world.groups[0]
	f := g.files[0]
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, params, wording string }{
		{"a group file_id", fmt.Sprintf(`{"file_id":%q}`, f.id), downloadNotFound},
		{"a group file's name", fmt.Sprintf(`{"file":%q}`, f.name), downloadNotFound},
		{"nothing", `{}`, "file is required"},
		{"a file outside the stream directory", fmt.Sprintf(`{"file":%q}`, outside), "local downloads are restricted to the stream temp directory"},
		{"a file URL outside it", fmt.Sprintf(`{"file":%q}`, "file://"+outside), "local downloads are restricted to the stream temp directory"},
		{"a loopback URL", `{"file":"http://127.0.0.1:3000/x"}`, "refusing to fetch a private/loopback address"},
		{"a private IPv6 URL", `{"file":"http://[fd00::1]/x"}`, "refusing to fetch a private/loopback address"},
		{"a mapped IPv4 URL", `{"file":"http://[::ffff:192.168.1.1]/x"}`, "refusing to fetch a private/loopback address"},
		{"localhost", `{"file":"https://localhost/x"}`, "refusing to fetch a host that resolves to a private address"},
		{"this network", `{"file":"http://0.1.2.3/x"}`, "refusing to fetch a private/loopback address"},
		{"carrier-grade NAT", `{"file":"http://100.64.0.1/x"}`, "refusing to fetch a private/loopback address"},
		{"a public URL (the sandbox's own refusal; SnowLuma would fetch it)", `{"file":"https://example.com/a.png"}`, "the sandbox fetches nothing from the network: only its own links (get_group_file_url) download; SnowLuma would fetch this URL"},
	} {
		_, body := post(t, s, "/download_file_stream", tc.params, nil)
		var end struct {
			Status  string            `json:"status"`
			Retcode int               `json:"retcode"`
			Data    map[string]string `json:"data"`
			Message string            `json:"message"`
			Wording string            `json:"wording"`
			Stream  string            `json:"stream"`
		}
		frames := strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n\r\n")
		if len(frames) != 1 || json.Unmarshal([]byte(frames[0]), &end) != nil {
			t.Errorf("%s: %q", tc.name, body)
			continue
		}
		if end.Status != "failed" || end.Retcode != 100 || end.Message != tc.wording || end.Wording != tc.wording ||
			end.Stream != "stream-action" || end.Data["type"] != "error" || end.Data["data_type"] != "error" {
			t.Errorf("%s: %+v, want SnowLuma's %q", tc.name, end, tc.wording)
		}
	}
	// What SnowLuma takes: the group file's link, and a merged upload by
	// its path.
	link := decode[struct {
		URL string `json:"url"`
	}](t, ok(t, s, "get_group_file_url", fmt.Sprintf(`{"group_id":%d,"file_id":%q}`, g.id, f.id)))
	_, body := post(t, s, "/download_file_stream", fmt.Sprintf(`{"file":%q}`, link.URL), nil)
	if fs := frames(t, body); fs[len(fs)-1]["data_type"] != "file_complete" || fs[len(fs)-1]["total_bytes"] != float64(f.size) {
		t.Errorf("the group file's link: %v", fs[len(fs)-1])
	}
	_, merged := post(t, s, "/upload_file_stream", `{"stream_id":"sh1","chunk_data":"aGVsbG8=","chunk_index":0,"total_chunks":1,"filename":"a.txt"}`, nil)
	_, merged = post(t, s, "/upload_file_stream", `{"stream_id":"sh1","is_complete":true}`, nil)
	path := frames(t, merged)[0]["file_path"].(string)
	for _, src := range []string{path, "file://" + path} {
		_, body = post(t, s, "/download_file_stream", fmt.Sprintf(`{"file":%q}`, src), nil)
		if fs := frames(t, body); fs[len(fs)-1]["total_bytes"] != float64(5) || !slices.ContainsFunc(fs, func(f map[string]any) bool {
			return f["data_type"] == "file_info" && f["file_name"] == filepath.Base(path)
		}) {
			t.Errorf("the merged upload by %q: %v", src, fs)
		}
	}
}
