package simulator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// answer is an envelope as a test reads it.
type answer struct {
	Status  string          `json:"status"`
	Retcode int             `json:"retcode"`
	Data    json.RawMessage `json:"data"`
	Wording string          `json:"wording"`
}

// call runs action with params over HTTP and decodes the envelope.
func call(t *testing.T, s *Server, action, params string) answer {
	t.Helper()
	status, body := post(t, s, "/"+action, params, nil)
	var a answer
	if err := json.Unmarshal([]byte(body), &a); err != nil || status != 200 {
		t.Fatalf("%s %s: HTTP %d %s", action, params, status, body)
	}
	return a
}

// ok runs action and fails the test unless it succeeded; it returns data.
func ok(t *testing.T, s *Server, action, params string) json.RawMessage {
	t.Helper()
	a := call(t, s, action, params)
	if a.Status != "ok" || a.Retcode != 0 {
		t.Fatalf("%s %s: %s %d %s", action, params, a.Status, a.Retcode, a.Wording)
	}
	return a.Data
}

// decode unmarshals data into a new T.
func decode[T any](t *testing.T, data json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return v
}

type groupRow struct {
	GroupID     int64  `json:"group_id"`
	GroupName   string `json:"group_name"`
	MemberCount int    `json:"member_count"`
}

type memberRow struct {
	UserID int64  `json:"user_id"`
	Role   string `json:"role"`
	Card   string `json:"card"`
	Title  string `json:"title"`
}

// groupsByRole returns the world's groups keyed by the bot's role in them.
func groupsByRole(t *testing.T, s *Server) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, g := range decode[[]groupRow](t, ok(t, s, "get_group_list", `{}`)) {
		for _, m := range decode[[]memberRow](t, ok(t, s, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, g.GroupID))) {
			if m.UserID == SelfID {
				out[m.Role] = g.GroupID
			}
		}
	}
	return out
}

// firstWithRole returns a member of group gid with role, other than the bot.
func firstWithRole(t *testing.T, s *Server, gid int64, role string) int64 {
	t.Helper()
	for _, m := range decode[[]memberRow](t, ok(t, s, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, gid))) {
		if m.Role == role && m.UserID != SelfID {
			return m.UserID
		}
	}
	t.Fatalf("group %d has no %s", gid, role)
	return 0
}

// snapshot is everything a client can read of a world.
func snapshot(t *testing.T, s *Server) string {
	t.Helper()
	var b strings.Builder
	for _, a := range []string{"get_login_info", "get_friend_list", "get_group_list", "get_group_system_msg"} {
		b.Write(ok(t, s, a, `{}`))
	}
	for _, g := range decode[[]groupRow](t, ok(t, s, "get_group_list", `{}`)) {
		p := fmt.Sprintf(`{"group_id":%d}`, g.GroupID)
		for _, a := range []string{"get_group_member_list", "get_group_msg_history", "get_group_root_files"} {
			b.Write(ok(t, s, a, p))
		}
	}
	for _, f := range decode[[]struct {
		UserID int64 `json:"user_id"`
	}](t, ok(t, s, "get_friend_list", `{}`)) {
		b.Write(ok(t, s, "get_friend_msg_history", fmt.Sprintf(`{"user_id":%d}`, f.UserID)))
	}
	return b.String()
}

// TestWorldSeed: the same seed gives the same world, another seed another.
func TestWorldSeed(t *testing.T) {
	now := time.Now()
	a, b, c := startFake(t, WithWorldAt(7, now)), startFake(t, WithWorldAt(7, now)), startFake(t, WithWorldAt(8, now))
	sa, sb, sc := snapshot(t, a), snapshot(t, b), snapshot(t, c)
	if sa != sb {
		t.Errorf("seed 7 twice gave two worlds:\n%s\n%s", sa, sb)
	}
	if sa == sc {
		t.Error("seeds 7 and 8 gave the same world")
	}
}

// TestWorldIsBelievable: groups with Chinese names, an owner, admins and
// members with cards and titles, friends, negative message ids in history,
// files and a pending join request.
func TestWorldIsBelievable(t *testing.T) {
	for seed := range uint64(20) {
		s := startFake(t, WithWorld(seed))
		groups := decode[[]groupRow](t, ok(t, s, "get_group_list", `{}`))
		if len(groups) < 3 {
			t.Fatalf("seed %d: %d groups", seed, len(groups))
		}
		roles := groupsByRole(t, s)
		for _, r := range []string{"owner", "admin", "member"} {
			if roles[r] == 0 {
				t.Errorf("seed %d: the bot is %s of no group", seed, r)
			}
		}
		negative, cards, titles := false, false, false
		for _, g := range groups {
			if !strings.ContainsFunc(g.GroupName, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
				t.Errorf("seed %d: group name %q has no Chinese", seed, g.GroupName)
			}
			members := decode[[]memberRow](t, ok(t, s, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, g.GroupID)))
			if len(members) != g.MemberCount {
				t.Errorf("seed %d: group %d counts %d members, lists %d", seed, g.GroupID, g.MemberCount, len(members))
			}
			count := map[string]int{}
			for _, m := range members {
				count[m.Role]++
				cards = cards || m.Card != ""
				titles = titles || m.Title != ""
			}
			if count["owner"] != 1 || count["admin"] < 1 || count["member"] < 1 {
				t.Errorf("seed %d: group %d roles %v", seed, g.GroupID, count)
			}
			h := decode[struct {
				Messages []struct {
					MessageID int32 `json:"message_id"`
				} `json:"messages"`
			}](t, ok(t, s, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d,"count":200}`, g.GroupID)))
			if len(h.Messages) < 5 {
				t.Errorf("seed %d: group %d has %d messages", seed, g.GroupID, len(h.Messages))
			}
			for _, m := range h.Messages {
				negative = negative || m.MessageID < 0
			}
			files := decode[struct {
				Files   []json.RawMessage `json:"files"`
				Folders []json.RawMessage `json:"folders"`
			}](t, ok(t, s, "get_group_root_files", fmt.Sprintf(`{"group_id":%d}`, g.GroupID)))
			if len(files.Files) == 0 || len(files.Folders) == 0 {
				t.Errorf("seed %d: group %d files %d folders %d", seed, g.GroupID, len(files.Files), len(files.Folders))
			}
		}
		if !negative || !cards || !titles {
			t.Errorf("seed %d: negative ids %v, cards %v, titles %v", seed, negative, cards, titles)
		}
		if n := len(decode[[]json.RawMessage](t, ok(t, s, "get_friend_list", `{}`))); n < 3 {
			t.Errorf("seed %d: %d friends", seed, n)
		}
		if n := len(decode[[]json.RawMessage](t, ok(t, s, "get_group_system_msg", `{}`))); n != 1 {
			t.Errorf("seed %d: %d pending join requests", seed, n)
		}
	}
}

// listen dials the fake's WebSocket and returns a function that waits for
// the next account event matching want (meta events are skipped).
func listen(t *testing.T, s *Server) func(want func(map[string]any) bool) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, s.EventsURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	// The greeting comes first: after it the connection is registered.
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"lifecycle"`) {
			break
		}
	}
	eventConn(t, s, 0)
	return func(want func(map[string]any) bool) map[string]any {
		t.Helper()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for an event: %v", err)
			}
			var ev map[string]any
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatalf("event %s: %v", b, err)
			}
			if ev["post_type"] != "meta_event" && want(ev) {
				return ev
			}
		}
	}
}

// TestWorldSend: a send is stored, shows up in the history and get_msg, and
// (with reportSelfMessage on) is pushed as message_sent; a recall takes it
// back with a notice.
func TestWorldSend(t *testing.T) {
	s := startFake(t, WithWorld(1), WithSelfMessages())
	next := listen(t, s)
	gid := groupsByRole(t, s)["member"]
	sent := decode[struct {
		MessageID int32 `json:"message_id"`
	}](t, ok(t, s, "send_group_msg", fmt.Sprintf(`{"group_id":%d,"message":"大家好[CQ:face,id=178]"}`, gid)))
	if sent.MessageID == 0 {
		t.Fatal("message_id 0")
	}
	ev := next(func(ev map[string]any) bool { return ev["post_type"] == "message_sent" })
	if ev["message_id"] != float64(sent.MessageID) || ev["group_id"] != float64(gid) || ev["raw_message"] != "大家好[CQ:face,id=178]" {
		t.Errorf("message_sent event %v", ev)
	}
	h := ok(t, s, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d,"count":1}`, gid))
	if !strings.Contains(string(h), fmt.Sprintf(`"message_id":%d`, sent.MessageID)) || !strings.Contains(string(h), `"type":"face"`) {
		t.Errorf("history after the send: %s", h)
	}
	msg := ok(t, s, "get_msg", fmt.Sprintf(`{"message_id":"%d"}`, sent.MessageID))
	if !strings.Contains(string(msg), `"real_id":`) || strings.Contains(string(msg), `"post_type"`) {
		t.Errorf("get_msg: %s", msg)
	}
	ok(t, s, "delete_msg", fmt.Sprintf(`{"message_id":%d}`, sent.MessageID))
	next(func(ev map[string]any) bool {
		return ev["notice_type"] == "group_recall" && ev["message_id"] == float64(sent.MessageID)
	})
	if a := call(t, s, "get_msg", fmt.Sprintf(`{"message_id":%d}`, sent.MessageID)); a.Status != "failed" || a.Retcode != 100 {
		t.Errorf("get_msg after the recall: %+v", a)
	}
	if a := call(t, s, "send_group_msg", fmt.Sprintf(`{"group_id":%d}`, gid)); a.Retcode != 1400 || a.Wording != "message: is required" {
		t.Errorf("send without a message: %+v", a)
	}
	if a := call(t, s, "send_group_msg", `{"group_id":1,"message":"x"}`); a.Retcode != 100 {
		t.Errorf("send to a group the account is not in: %+v", a)
	}
	friend := decode[[]struct {
		UserID int64 `json:"user_id"`
	}](t, ok(t, s, "get_friend_list", `{}`))[0].UserID
	ok(t, s, "send_msg", fmt.Sprintf(`{"user_id":%d,"message":[{"type":"text","data":{"text":"在吗"}}]}`, friend))
	ev = next(func(ev map[string]any) bool { return ev["post_type"] == "message_sent" })
	if ev["message_type"] != "private" || ev["raw_message"] != "在吗" {
		t.Errorf("private message_sent %v", ev)
	}
}

// TestWorldModeration: kicks, bans and admin changes follow QQ's
// permissions and change the world.
func TestWorldModeration(t *testing.T) {
	s := startFake(t, WithWorld(2))
	next := listen(t, s)
	roles := groupsByRole(t, s)
	owned, plain := roles["owner"], roles["member"]

	victim := firstWithRole(t, s, owned, "member")
	before := decode[[]memberRow](t, ok(t, s, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, owned)))
	ok(t, s, "set_group_kick", fmt.Sprintf(`{"group_id":%d,"user_id":%d}`, owned, victim))
	after := decode[[]memberRow](t, ok(t, s, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, owned)))
	if len(after) != len(before)-1 || slices.ContainsFunc(after, func(m memberRow) bool { return m.UserID == victim }) {
		t.Errorf("after the kick %d members (before %d), victim still there: %v", len(after), len(before), after)
	}
	next(func(ev map[string]any) bool {
		return ev["notice_type"] == "group_decrease" && ev["user_id"] == float64(victim)
	})
	if a := call(t, s, "set_group_kick", fmt.Sprintf(`{"group_id":%d,"user_id":%d}`, owned, victim)); a.Retcode != 100 {
		t.Errorf("kicking a member twice: %+v", a)
	}

	// As a plain member the bot may kick nobody.
	other := firstWithRole(t, s, plain, "member")
	if a := call(t, s, "set_group_kick", fmt.Sprintf(`{"group_id":%d,"user_id":%d}`, plain, other)); a.Retcode != 100 || !strings.Contains(a.Wording, "no permission") {
		t.Errorf("kick as a plain member: %+v", a)
	}

	muted := firstWithRole(t, s, owned, "admin")
	ok(t, s, "set_group_ban", fmt.Sprintf(`{"group_id":%d,"user_id":%d,"duration":"600"}`, owned, muted))
	next(func(ev map[string]any) bool { return ev["notice_type"] == "group_ban" && ev["sub_type"] == "ban" })
	shut := ok(t, s, "get_group_shut_list", fmt.Sprintf(`{"group_id":%d}`, owned))
	if !strings.Contains(string(shut), fmt.Sprintf(`"user_id":%d`, muted)) {
		t.Errorf("shut list after the ban: %s", shut)
	}
	ok(t, s, "set_group_ban", fmt.Sprintf(`{"group_id":%d,"user_id":%d,"duration":0}`, owned, muted))
	if shut := ok(t, s, "get_group_shut_list", fmt.Sprintf(`{"group_id":%d}`, owned)); string(shut) != "[]" {
		t.Errorf("shut list after lifting the ban: %s", shut)
	}
	if a := call(t, s, "set_group_ban", fmt.Sprintf(`{"group_id":%d,"user_id":%d,"duration":"soon"}`, owned, muted)); a.Retcode != 1400 || a.Wording != "duration: expected an integer" {
		t.Errorf("ban with a bad duration: %+v", a)
	}

	ok(t, s, "set_group_card", fmt.Sprintf(`{"group_id":%d,"user_id":%d,"card":"新名片"}`, owned, muted))
	ok(t, s, "set_group_special_title", fmt.Sprintf(`{"group_id":%d,"user_id":%d,"special_title":"元老"}`, owned, muted))
	info := decode[memberRow](t, ok(t, s, "get_group_member_info", fmt.Sprintf(`{"group_id":%d,"user_id":%d}`, owned, muted)))
	if info.Card != "新名片" || info.Title != "元老" {
		t.Errorf("member after card and title: %+v", info)
	}
}

// TestWorldJoinRequest: the pending request is answered with the flag
// SnowLuma lists, and the newcomer becomes a member.
func TestWorldJoinRequest(t *testing.T) {
	s := startFake(t, WithWorld(3))
	next := listen(t, s)
	reqs := decode[[]struct {
		GroupID int64  `json:"group_id"`
		Flag    string `json:"flag"`
	}](t, ok(t, s, "get_group_system_msg", `{}`))
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	before := len(decode[[]memberRow](t, ok(t, s, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, reqs[0].GroupID))))
	ok(t, s, "set_group_add_request", fmt.Sprintf(`{"flag":%q,"approve":true}`, reqs[0].Flag))
	ev := next(func(ev map[string]any) bool { return ev["notice_type"] == "group_increase" })
	after := decode[[]memberRow](t, ok(t, s, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, reqs[0].GroupID)))
	if len(after) != before+1 || !slices.ContainsFunc(after, func(m memberRow) bool { return float64(m.UserID) == ev["user_id"] }) {
		t.Errorf("after approving: %d members (before %d), event %v", len(after), before, ev)
	}
	if got := ok(t, s, "get_group_system_msg", `{}`); string(got) != "[]" {
		t.Errorf("requests after approving: %s", got)
	}
	if a := call(t, s, "set_group_add_request", fmt.Sprintf(`{"flag":%q}`, reqs[0].Flag)); a.Retcode != 100 {
		t.Errorf("answering twice: %+v", a)
	}
}

// frames splits a stream body into its frames' data.
func frames(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, f := range strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n\r\n") {
		var env struct {
			Status string         `json:"status"`
			Data   map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(f), &env); err != nil {
			t.Fatalf("frame %q: %v", f, err)
		}
		if env.Status != "ok" {
			t.Fatalf("failed frame %s", f)
		}
		out = append(out, env.Data)
	}
	return out
}

// downloadGroupFile fetches a group file through its get_group_file_url
// link, as on SnowLuma, and returns the name the stream gives and the
// bytes.
func downloadGroupFile(t *testing.T, s *Server, gid int64, fileID string) (string, []byte) {
	t.Helper()
	link := decode[struct {
		URL string `json:"url"`
	}](t, ok(t, s, "get_group_file_url", fmt.Sprintf(`{"group_id":%d,"file_id":%q}`, gid, fileID)))
	return download(t, s, link.URL)
}

// download fetches source (an id, a path or a URL) through
// download_file_stream and returns its name and bytes.
func download(t *testing.T, s *Server, source string) (string, []byte) {
	t.Helper()
	_, body := post(t, s, "/download_file_stream", fmt.Sprintf(`{"file_id":%q,"chunk_size":100}`, source), nil)
	var data []byte
	var name string
	for _, f := range frames(t, body) {
		switch f["data_type"] {
		case "file_info":
			name = f["file_name"].(string)
		case "file_chunk":
			b, err := base64.StdEncoding.DecodeString(f["data"].(string))
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, b...)
		}
	}
	return name, data
}

// TestWorldFiles: the group's sample files download with the size the
// listing gives; an upload is reassembled, put into the group's files and
// downloads back byte for byte.
func TestWorldFiles(t *testing.T) {
	s := startFake(t, WithWorld(4))
	next := listen(t, s)
	gid := groupsByRole(t, s)["admin"]
	type fileRow struct {
		FileID   string `json:"file_id"`
		FileName string `json:"file_name"`
		FileSize int    `json:"file_size"`
	}
	root := decode[struct {
		Files []fileRow `json:"files"`
	}](t, ok(t, s, "get_group_root_files", fmt.Sprintf(`{"group_id":%d}`, gid)))
	for _, f := range root.Files {
		// SnowLuma names a URL download after the URL's last segment.
		name, data := downloadGroupFile(t, s, gid, f.FileID)
		if "/"+name != f.FileID || len(data) != f.FileSize || f.FileSize == 0 {
			t.Errorf("%s: downloaded %q, %d bytes; listed %d", f.FileName, name, len(data), f.FileSize)
		}
		if strings.HasSuffix(f.FileName, ".png") && !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s is not a PNG", f.FileName)
		}
		if strings.HasSuffix(f.FileName, ".txt") && !strings.Contains(string(data), "群规") {
			t.Errorf("%s: %q", f.FileName, data)
		}
	}

	content := []byte("报名表：张三、李四、王五\n")
	sum := sha256.Sum256(content)
	b64 := base64.StdEncoding.EncodeToString(content)
	post(t, s, "/upload_file_stream", fmt.Sprintf(`{"stream_id":"up1","chunk_data":%q,"chunk_index":0,"total_chunks":1,"filename":"报名表.txt"}`, b64), nil)
	_, merged := post(t, s, "/upload_file_stream", fmt.Sprintf(`{"stream_id":"up1","is_complete":true,"expected_sha256":%q}`, hex.EncodeToString(sum[:])), nil)
	path := frames(t, merged)[0]["file_path"].(string)
	up := decode[struct {
		FileID string `json:"file_id"`
	}](t, ok(t, s, "upload_group_file", fmt.Sprintf(`{"group_id":%d,"file":%q}`, gid, path)))
	ev := next(func(ev map[string]any) bool { return ev["notice_type"] == "group_upload" })
	if ev["file"].(map[string]any)["id"] != up.FileID {
		t.Errorf("group_upload %v, file_id %s", ev, up.FileID)
	}
	listed := ok(t, s, "get_group_root_files", fmt.Sprintf(`{"group_id":%d}`, gid))
	if !strings.Contains(string(listed), `"file_name":"报名表.txt"`) {
		t.Errorf("the upload is not listed: %s", listed)
	}
	if _, data := downloadGroupFile(t, s, gid, up.FileID); !bytes.Equal(data, content) {
		t.Errorf("downloaded the upload: %q", data)
	}
	if a := call(t, s, "upload_group_file", fmt.Sprintf(`{"group_id":%d,"file":%q}`, gid, filepath.Join(os.TempDir(), "passwd"))); a.Retcode != 100 {
		t.Errorf("upload of a file the host does not have: %+v", a)
	}
	ok(t, s, "delete_group_file", fmt.Sprintf(`{"group_id":%d,"file_id":%q}`, gid, up.FileID))
	if listed := ok(t, s, "get_group_root_files", fmt.Sprintf(`{"group_id":%d}`, gid)); strings.Contains(string(listed), up.FileID) {
		t.Errorf("deleted file still listed: %s", listed)
	}
}

// TestWorldTrickle: a living world sends group messages, a poke and a join
// request, and the request can be answered; a world without the trickle
// stays silent.
func TestWorldTrickle(t *testing.T) {
	s := startFake(t, WithWorld(5), WithTrickle(5*time.Millisecond))
	next := listen(t, s)
	msg := next(func(ev map[string]any) bool { return ev["post_type"] == "message" })
	id := msg["message_id"].(float64)
	if got := ok(t, s, "get_msg", fmt.Sprintf(`{"message_id":%d}`, int64(id))); !strings.Contains(string(got), `"group_id"`) {
		t.Errorf("get_msg of a trickled message: %s", got)
	}
	next(func(ev map[string]any) bool { return ev["notice_type"] == "notify" && ev["sub_type"] == "poke" })
	req := next(func(ev map[string]any) bool { return ev["post_type"] == "request" })
	ok(t, s, "set_group_add_request", fmt.Sprintf(`{"flag":%q}`, req["flag"]))

	// Without the trickle only heartbeats arrive: a world acted on by
	// nobody says nothing.
	quiet := startFake(t, WithWorld(5), WithHeartbeat(2*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, quiet.EventsURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for beats := 0; beats < 20; {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"post_type":"meta_event"`) {
			t.Fatalf("a silent world sent %s", b)
		}
		if strings.Contains(string(b), `"heartbeat"`) {
			beats++
		}
	}
}

// catalogAction is the part of a catalog entry the schema test needs.
type catalogAction struct {
	Name   string `json:"name"`
	Params []struct {
		Name string `json:"name"`
		Role string `json:"role"`
	} `json:"params"`
	ReturnsSchema json.RawMessage `json:"returnsSchema"`
	Examples      []struct {
		Params map[string]any `json:"params"`
	} `json:"examples"`
}

// readCatalog reads the bundled catalog's actions by name.
func readCatalog(t *testing.T) map[string]catalogAction {
	t.Helper()
	files, err := filepath.Glob("../../catalog/actions/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("catalog files: %v %v", files, err)
	}
	out := map[string]catalogAction{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cat struct {
			Actions []catalogAction `json:"actions"`
		}
		if err := json.Unmarshal(b, &cat); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, a := range cat.Actions {
			out[a.Name] = a
		}
	}
	return out
}

// TestWorldAnswersMatchCatalog: every action the world simulates exists in
// SnowLuma's catalog, succeeds with params taken from the world, and
// answers data that validates against the action's returnsSchema.
func TestWorldAnswersMatchCatalog(t *testing.T) {
	cat := readCatalog(t)
	for _, name := range WorldActions() {
		a, found := cat[name]
		if !found {
			t.Errorf("%s is not a SnowLuma action", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			s := startFake(t, WithWorld(11))
			params := worldParams(t, s, a)
			data := ok(t, s, name, params)
			schema := compileReturns(t, a)
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(v); err != nil {
				t.Errorf("params %s answered %s:\n%v", params, data, err)
			}
		})
	}
}

// compileReturns compiles an action's returnsSchema.
func compileReturns(t *testing.T, a catalogAction) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(a.ReturnsSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if err := c.AddResource("mem://returns.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("mem://returns.json")
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// TestWorldStreamsMatchCatalog: every frame of a world file's download
// (each variant), of an upload into the world and of test_download_stream
// carries data that validates against the action's returnsSchema.
func TestWorldStreamsMatchCatalog(t *testing.T) {
	cat := readCatalog(t)
	s := startFake(t, WithWorld(11))
	g := s.world.groups[0]
	fileURL := fmt.Sprintf("%s/group/%d/file%s", sandboxHost, g.id, g.files[0].id)
	check := func(action, params string) {
		t.Helper()
		schema := compileReturns(t, cat[action])
		_, body := post(t, s, "/"+action, params, nil)
		for _, f := range strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n\r\n") {
			var env struct {
				Status string          `json:"status"`
				Data   json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal([]byte(f), &env); err != nil || env.Status != "ok" {
				t.Fatalf("%s: frame %.200s (%v)", action, f, err)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(env.Data))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(v); err != nil {
				t.Errorf("%s: frame data %.300s:\n%v", action, env.Data, err)
			}
		}
	}
	for _, a := range []string{"download_file_stream", "download_file_image_stream", "download_file_record_stream"} {
		check(a, fmt.Sprintf(`{"file":%q,"chunk_size":64}`, fileURL))
	}
	check("test_download_stream", `{}`)
	b64 := base64.StdEncoding.EncodeToString([]byte("hello"))
	check("upload_file_stream", fmt.Sprintf(`{"stream_id":"s1","total_chunks":1,"chunk_index":0,"chunk_data":%q}`, b64))
	check("upload_file_stream", `{"stream_id":"s1","is_complete":true}`)
}

// worldParams builds params for a from its first example, with every id
// replaced by one of the world: the group the bot owns, a plain member of
// it, a friend, a message of that group, one of its files and folders, the
// pending requests' flags.
func worldParams(t *testing.T, s *Server, a catalogAction) string {
	t.Helper()
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	g := w.groups[0]
	var plain *member
	for _, m := range g.members {
		if m.role == "member" && m.id != SelfID {
			plain = m
			break
		}
	}
	var msg int32
	for _, id := range w.byPeer[peer{true, g.id}] {
		if w.messages[id].sender != SelfID {
			msg = id
		}
	}
	p := map[string]any{}
	if len(a.Examples) > 0 {
		for k, v := range a.Examples[0].Params {
			p[k] = v
		}
	}
	for _, par := range a.Params {
		switch {
		case par.Role == "group_id":
			p[par.Name] = g.id
		case par.Role == "member_id":
			if _, isList := p[par.Name].([]any); isList {
				p[par.Name] = []int64{plain.id}
			} else {
				p[par.Name] = plain.id
			}
		case par.Role == "user_id":
			p[par.Name] = w.friends[0]
		case par.Role == "message_id":
			p[par.Name] = msg
		case par.Role == "file_id":
			p[par.Name] = g.files[0].id
		case par.Name == "folder_id" || par.Name == "folder":
			p[par.Name] = g.folders[0].id
		case par.Name == "file":
			p[par.Name] = "base64://" + base64.StdEncoding.EncodeToString([]byte("hello"))
		case par.Name == "flag" && a.Name == "set_group_add_request":
			p[par.Name] = fmt.Sprintf("add:%d:%s", w.joins[0].group.id, w.joins[0].who.uid)
		case par.Name == "flag":
			p[par.Name] = w.friendRq[0].flag
		}
	}
	if a.Name == "set_group_leave" {
		p["is_dismiss"] = true
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWorldUnsimulated: with SnowLuma's action names given, an action the
// world has nothing behind says so; a name SnowLuma lacks stays unknown.
func TestWorldUnsimulated(t *testing.T) {
	s := startFake(t, WithWorld(1), WithActions([]string{"get_qzone_feeds", "get_login_info"}))
	if a := call(t, s, "get_qzone_feeds", `{}`); a.Retcode != 100 || !strings.Contains(a.Wording, "not simulated by the sandbox") {
		t.Errorf("an unsimulated action: %+v", a)
	}
	if a := call(t, s, "no_such_action", `{}`); a.Retcode != 1404 || a.Wording != "unknown action" {
		t.Errorf("an unknown action: %+v", a)
	}
	ok(t, s, "get_login_info", `{}`)
}
