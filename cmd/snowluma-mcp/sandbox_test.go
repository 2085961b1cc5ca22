package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// startSandbox spawns `snowluma-mcp sandbox` with env and connects as era,
// as a client that can show forms (it declines every one: the calls here
// give complete params).
func startSandbox(t *testing.T, era mcptest.Era, env ...string) (*mcptest.Proc, *mcp.ClientSession) {
	t.Helper()
	p := mcptest.SpawnArgs(t, plainBinary(t), era, []string{"sandbox"}, env...)
	decline := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return p, p.Connect(&mcp.ClientOptions{ElicitationHandler: decline})
}

// marked reports whether a tool result's diagnostics say sandbox.
func marked(t *testing.T, res *mcp.CallToolResult) bool {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Diagnostics struct {
			Sandbox bool `json:"sandbox"`
		} `json:"diagnostics"`
	}
	json.Unmarshal(raw, &sc)
	return sc.Diagnostics.Sandbox
}

// sandboxCalls calls tools of one sandbox session, checking that every
// answer says sandbox and remembering which tools were called.
type sandboxCalls struct {
	t      *testing.T
	cs     *mcp.ClientSession
	called map[string]bool
}

// call calls tool and returns its decoded result; the call must succeed.
func (c *sandboxCalls) call(tool string, args map[string]any) mcptest.ToolResult {
	c.t.Helper()
	res, r := mcptest.CallTool(c.t, c.cs, tool, args)
	if r.Diagnostics.Outcome != "success" {
		c.t.Fatalf("%s %v: %+v %s", tool, args, r.Diagnostics, r.Result)
	}
	if !marked(c.t, res) {
		c.t.Errorf("%s: the answer does not say sandbox", tool)
	}
	c.called[tool] = true
	return r
}

// data runs a catalog action through tool and returns SnowLuma's data.
func (c *sandboxCalls) data(tool, action string, params map[string]any) json.RawMessage {
	c.t.Helper()
	r := c.call(tool, map[string]any{"action": action, "params": params})
	return mcptest.Decode[struct {
		Data json.RawMessage `json:"data"`
	}](c.t, r.Result).Data
}

type sandboxMember struct {
	UserID   int64  `json:"user_id"`
	Role     string `json:"role"`
	Nickname string `json:"nickname"`
}

// TestSandboxServesEveryTool: in both eras the sandbox lists the write
// mode's tools with events, and every one of them works against the
// simulated account: a send shows up in the history and (with
// SNOWLUMA_MCP_SANDBOX_REPORT_SELF) as a message_sent event, a kick changes
// the member list, a download of a group file's link saves it,
// an automatic upload of the sample file is reassembled and put into the
// group's files, a subscription gets the world's trickle, and every answer
// says sandbox.
func TestSandboxServesEveryTool(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		// The send gate would put the automatic upload (a local file, after
		// the history and events were read) to a person, whom this client
		// declines; the gate has its own tests (internal/server).
		p, cs := startSandbox(t, era, "SNOWLUMA_MCP_SANDBOX_SEED=7", "SNOWLUMA_MCP_SANDBOX_TRICKLE_MS=20",
			"SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=0", "SNOWLUMA_MCP_LANG=en", "SNOWLUMA_MCP_UNTRUSTED_SENDS=off", "SNOWLUMA_MCP_SANDBOX_REPORT_SELF=true")
		c := &sandboxCalls{t: t, cs: cs, called: map[string]bool{}}
		listed := e2e.ToolNames(t, cs)
		for _, want := range []string{"invoke_action", "query_action", "subscribe_events", "preview_message", "invoke_action_with_input"} {
			if !slices.Contains(listed, want) {
				t.Fatalf("the sandbox lists %v, without %s", listed, want)
			}
		}

		info := mcptest.Decode[struct {
			Mode      string `json:"mode"`
			Sandbox   bool   `json:"sandbox"`
			DryRun    bool   `json:"dry_run"`
			Transport struct {
				UploadRoot string `json:"upload_root"`
			} `json:"transport"`
			Checks map[string]json.RawMessage `json:"checks"`
		}](t, c.call("get_runtime_info", map[string]any{"check_connection": true}).Result)
		if info.Mode != "write" || !info.Sandbox || info.DryRun || len(info.Checks) != 3 || info.Transport.UploadRoot == "" {
			t.Errorf("get_runtime_info: %+v", info)
		}
		c.call("list_categories", map[string]any{})
		c.call("list_actions", map[string]any{"category": "群管理"})
		c.call("search_actions", map[string]any{"query": "踢人"})
		c.call("get_action", map[string]any{"name": "set_group_kick"})

		// The group the bot owns, a plain member of it, its files.
		var owned int64
		var members []sandboxMember
		for _, g := range mcptest.Decode[[]struct {
			GroupID int64 `json:"group_id"`
		}](t, c.data("query_action", "get_group_list", map[string]any{})) {
			ms := mcptest.Decode[[]sandboxMember](t, c.data("query_action", "get_group_member_list", map[string]any{"group_id": g.GroupID}))
			if slices.ContainsFunc(ms, func(m sandboxMember) bool { return m.UserID == simulator.SelfID && m.Role == "owner" }) {
				owned, members = g.GroupID, ms
			}
		}
		if owned == 0 {
			t.Fatal("the bot owns no group")
		}
		// A member by name, within the group.
		named := members[len(members)-1]
		found := mcptest.Decode[struct {
			Candidates []struct {
				ID int64 `json:"id"`
			} `json:"candidates"`
		}](t, c.call("find_targets", map[string]any{"query": named.Nickname, "group_id": owned}).Result)
		if !slices.ContainsFunc(found.Candidates, func(x struct {
			ID int64 `json:"id"`
		}) bool {
			return x.ID == named.UserID
		}) {
			t.Errorf("find_targets %q in %d: %+v, want %d", named.Nickname, owned, found, named.UserID)
		}
		uri := e2e.SubscribeEvents(t, cs, map[string]any{})
		c.called["subscribe_events"] = true

		// A send: in the history, and as the bot's own event.
		c.call("preview_message", map[string]any{"message_type": "group", "target_id": owned, "text": "大家好，我是测试"})
		sent := mcptest.Decode[struct {
			MessageID int32 `json:"message_id"`
		}](t, c.data("invoke_action", "send_group_msg", map[string]any{"group_id": owned, "message": "大家好，我是测试"}))
		if sent.MessageID == 0 {
			t.Fatal("send_group_msg answered message_id 0")
		}
		// Anchored at the send: the world trickles a message every 20 ms,
		// which would soon push it out of the newest five.
		history := c.data("query_action_with_input", "get_group_msg_history", map[string]any{"group_id": owned, "message_id": sent.MessageID, "count": 5})
		if !strings.Contains(string(history), fmt.Sprintf(`#%d: `, sent.MessageID)) {
			t.Errorf("the history lacks the sent message %d: %s", sent.MessageID, history)
		}
		e2e.WaitRead(t, cs, e2e.Raw(uri), "the message_sent event and a trickled message", func(r e2e.EventsRead) bool {
			own, other := false, false
			for _, e := range r.Events {
				ev := mcptest.Decode[map[string]any](t, e.Event)
				own = own || (ev["post_type"] == "message_sent" && ev["message_id"] == float64(sent.MessageID))
				other = other || (ev["post_type"] == "message" && ev["user_id"] != float64(simulator.SelfID))
			}
			return own && other
		})

		// A kick changes the member list.
		victim := members[len(members)-1]
		if victim.Role != "member" {
			t.Fatalf("last member %+v is not a plain member", victim)
		}
		c.data("invoke_action_with_input", "set_group_kick", map[string]any{"group_id": owned, "user_id": victim.UserID})
		after := mcptest.Decode[[]sandboxMember](t, c.data("query_action", "get_group_member_list", map[string]any{"group_id": owned}))
		if len(after) != len(members)-1 || slices.Contains(after, victim) {
			t.Errorf("after kicking %d: %d members (before %d)", victim.UserID, len(after), len(members))
		}

		// A download saves a sample file.
		files := mcptest.Decode[struct {
			Files []struct {
				FileID   string `json:"file_id"`
				FileName string `json:"file_name"`
				FileSize int64  `json:"file_size"`
			} `json:"files"`
		}](t, c.data("query_action", "get_group_root_files", map[string]any{"group_id": owned}))
		if len(files.Files) == 0 {
			t.Fatal("the owned group has no files")
		}
		// As on SnowLuma, a group file downloads through its link, which
		// SnowLuma names after its last path segment (no extension); the
		// server saves it under the name the listing gave.
		f := files.Files[0]
		link := mcptest.Decode[struct {
			URL string `json:"url"`
		}](t, c.data("query_action", "get_group_file_url", map[string]any{"group_id": owned, "file_id": f.FileID}))
		got := mcptest.Decode[e2e.Saved](t, c.call("invoke_action", map[string]any{"action": "download_file_stream", "params": map[string]any{"file": link.URL}}).Result)
		if got.Saved == nil || got.Saved.FileName != transfer.SafeName(f.FileName) || filepath.Ext(got.Saved.FileName) == "" || got.Saved.Bytes != f.FileSize {
			t.Fatalf("download of %+v: %+v", f, got.Saved)
		}
		if b, err := os.ReadFile(got.Saved.Path); err != nil || int64(len(b)) != f.FileSize {
			t.Errorf("saved file %s: %d bytes, %v", got.Saved.Path, len(b), err)
		}

		// view_media shows the pictures the owned group's history holds:
		// images after the text block.
		var photos int64
		lines := mcptest.Decode[struct {
			Lines string `json:"lines"`
		}](t, c.data("query_action", "get_group_msg_history", map[string]any{"group_id": owned, "count": 200})).Lines
		for _, m := range regexp.MustCompile(`#(-?\d+)[^:\n]*: [^\n]*\[图片`).FindAllStringSubmatch(lines, -1) {
			photos, _ = strconv.ParseInt(m[1], 10, 64)
		}
		res, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: "view_media", Arguments: map[string]any{"message_id": photos}})
		if err != nil || res.IsError || len(res.Content) != 5 || !marked(t, res) {
			t.Errorf("view_media of the sandbox's photos (message %d): %v %+v", photos, err, res)
		} else if _, ok := res.Content[1].(*mcp.ImageContent); !ok {
			t.Errorf("view_media's second block is %T", res.Content[1])
		}
		c.called["view_media"] = true

		// An automatic upload of the sample file, then into the group.
		sample := filepath.Join(info.Transport.UploadRoot, "示例-sample.txt")
		up := mcptest.Decode[e2e.SentResult](t, c.call("invoke_action", map[string]any{"action": "upload_file_stream",
			"params": map[string]any{"filename": "示例-sample.txt"}, "execution": map[string]any{"input_file": sample}}).Result)
		if up.Terminal.Data.FilePath == "" || up.Sent.SHA256 != up.Terminal.Data.SHA256 {
			t.Fatalf("upload: %+v", up)
		}
		added := mcptest.Decode[struct {
			FileID string `json:"file_id"`
		}](t, c.data("invoke_action", "upload_group_file", map[string]any{"group_id": owned, "file": up.Terminal.Data.FilePath}))
		listing := c.data("query_action", "get_group_root_files", map[string]any{"group_id": owned})
		if added.FileID == "" || !strings.Contains(string(listing), added.FileID) || !strings.Contains(string(listing), "示例-sample.txt") {
			t.Errorf("the uploaded file is not in the group's files: %s", listing)
		}

		c.call("unsubscribe_events", map[string]any{"uri": uri})
		for _, name := range listed {
			if !c.called[name] {
				t.Errorf("%s is listed and was not tried", name)
			}
		}
		if !strings.Contains(p.Stderr(), "sandbox: a simulated SnowLuma") {
			t.Errorf("stderr does not say sandbox:\n%s", p.Stderr())
		}
	})
}

// TestSandboxTask: a background download completes in the sandbox, in the
// private temporary task directory it made, and its saved result says
// sandbox.
func TestSandboxTask(t *testing.T) {
	t.Parallel()
	p := mcptest.SpawnArgs(t, plainBinary(t), mcptest.Modern, []string{"sandbox"}, "SNOWLUMA_MCP_SANDBOX_TRICKLE_MS=0")
	c := e2e.NewTaskClient(t, p)
	if names := c.Tools(true); !slices.Contains(names, "invoke_action_background") || !slices.Contains(names, "list_tasks") {
		t.Fatalf("the sandbox's tools with the Tasks extension: %v", names)
	}
	h := c.Start("test_download_stream", `{}`)
	end := c.Wait(h["taskId"].(string))
	sc, _ := end["result"].(map[string]any)["structuredContent"].(map[string]any)
	diag, _ := sc["diagnostics"].(map[string]any)
	if end["status"] != "completed" || diag["outcome"] != "success" || diag["sandbox"] != true {
		t.Errorf("task ended %v", end)
	}
	l := c.Result(c.Call("tools/call", `{"name":"list_tasks","arguments":{}}`, true))
	if sc := l["structuredContent"].(map[string]any); sc["diagnostics"].(map[string]any)["sandbox"] != true {
		t.Errorf("list_tasks: %v", l)
	}
	info := c.Result(c.Call("tools/call", `{"name":"get_runtime_info","arguments":{}}`, true))
	dir := info["structuredContent"].(map[string]any)["result"].(map[string]any)["tasks"].(map[string]any)["task_dir"].(string)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 || !strings.Contains(dir, "snowluma-mcp-sandbox-") {
		t.Errorf("task directory %s: %v %v", dir, fi, err)
	}
	p.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the temporary task directory %s outlived the sandbox: %v", dir, err)
	}
}

// sandboxWorld reads, through a sandbox of seed, what a client sees of the
// world: the groups, their members and histories, the friends.
func sandboxWorld(t *testing.T, seed string) string {
	t.Helper()
	_, cs := startSandbox(t, mcptest.Legacy, "SNOWLUMA_MCP_SANDBOX_SEED="+seed, "SNOWLUMA_MCP_SANDBOX_TRICKLE_MS=0")
	c := &sandboxCalls{t: t, cs: cs, called: map[string]bool{}}
	var b bytes.Buffer
	groups := c.data("query_action", "get_group_list", map[string]any{})
	b.Write(groups)
	for _, g := range mcptest.Decode[[]struct {
		GroupID int64 `json:"group_id"`
	}](t, groups) {
		b.Write(c.data("query_action", "get_group_member_list", map[string]any{"group_id": g.GroupID}))
		b.Write(c.data("query_action", "get_group_msg_history", map[string]any{"group_id": g.GroupID}))
		b.Write(c.data("query_action", "get_group_root_files", map[string]any{"group_id": g.GroupID}))
	}
	b.Write(c.data("query_action", "get_friend_list", map[string]any{}))
	b.Write(c.data("query_action", "get_login_info", map[string]any{}))
	return relativeTimes(b.String())
}

// worldTimes are the world's Unix times in what a client reads of it.
var worldTimes = regexp.MustCompile(`"(time|join_time|last_sent_time|modify_time|upload_time|create_time)":(\d+)`)

// historyDay and historyClock are the dates and times a history's lines
// show (to the minute): dropped from a world's reading, whose times are
// relative.
var (
	historyDay   = regexp.MustCompile(`\d{4}-\d\d-\d\d( [+-]\d\d:\d\d)?\\n`)
	historyClock = regexp.MustCompile(`(\\n|"lines":")\d\d:\d\d `)
)

// relativeTimes writes every time of a world's reading as seconds from its
// first one that is not zero (a member's, in the order read), and drops
// the clock of the histories' lines: the world is dated back from when the
// sandbox started, so two sandboxes of one seed differ only by when they
// started.
func relativeTimes(s string) string {
	s = historyDay.ReplaceAllString(historyClock.ReplaceAllString(s, "$1"), "")
	var first []string
	for _, m := range worldTimes.FindAllStringSubmatch(s, -1) {
		if m[2] != "0" {
			first = m
			break
		}
	}
	if first == nil {
		return s
	}
	base, _ := strconv.ParseInt(first[2], 10, 64)
	return worldTimes.ReplaceAllStringFunc(s, func(m string) string {
		sub := worldTimes.FindStringSubmatch(m)
		n, _ := strconv.ParseInt(sub[2], 10, 64)
		if n == 0 {
			return m // never sent
		}
		return fmt.Sprintf(`"%s":%+d`, sub[1], n-base)
	})
}

// TestSandboxSeed: the same seed gives the same world, another seed
// another one.
func TestSandboxSeed(t *testing.T) {
	t.Parallel()
	// The three sandboxes are independent: they are read at once.
	var worlds [3]string
	t.Run("worlds", func(t *testing.T) {
		for i, seed := range []string{"42", "42", "43"} {
			t.Run(fmt.Sprint(i, " seed ", seed), func(t *testing.T) {
				t.Parallel()
				worlds[i] = sandboxWorld(t, seed)
			})
		}
	})
	if t.Failed() {
		return
	}
	a, b, other := worlds[0], worlds[1], worlds[2]
	if a != b {
		t.Errorf("seed 42 twice gave two worlds:\n%s\n%s", a, b)
	}
	if a == other {
		t.Error("seeds 42 and 43 gave the same world")
	}
}

// TestSandboxDoctor: sandbox doctor passes against the simulated
// SnowLuma, in both languages, and says it is the sandbox; an endpoint of
// the operator's is set aside with a note.
func TestSandboxDoctor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lang, sandbox string }{{"en", "simulated SnowLuma"}, {"zh", "模拟 SnowLuma"}} {
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := runBinary(t, []string{"sandbox", "doctor"}, "SNOWLUMA_MCP_LANG="+tc.lang,
				"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_DRY_RUN=true")
			if code != 0 {
				t.Fatalf("%s: sandbox doctor: exit %d\n%s\n%s", tc.lang, code, out, stderr)
			}
			for _, want := range []string{tc.sandbox, "SNOWLUMA_MCP_DRY_RUN", "0 "} {
				if !strings.Contains(out, want) {
					t.Errorf("%s: doctor output lacks %q:\n%s", tc.lang, want, out)
				}
			}
			if strings.Contains(out, "fail ") || !strings.Contains(stderr, "SNOWLUMA_MCP_ENDPOINT") {
				t.Errorf("%s: doctor:\n%s\nstderr:\n%s", tc.lang, out, stderr)
			}
		})
	}
}

// TestSandboxSafety: the operator's safety settings hold in the sandbox:
// an allowlist refuses the world's other groups, and writes are audited.
func TestSandboxSafety(t *testing.T) {
	t.Parallel()
	w := simtest.Start(t, simulator.WithWorld(1))
	groups := w.WorldGroups()
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	_, cs := startSandbox(t, mcptest.Modern, "SNOWLUMA_MCP_SANDBOX_TRICKLE_MS=0",
		fmt.Sprintf("SNOWLUMA_MCP_ALLOWED_GROUPS=%d", groups[0].ID), "SNOWLUMA_MCP_AUDIT_FILE="+audit)
	res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": groups[1].ID, "message": "hi"}})
	if r.Diagnostics.Kind != "target_not_allowed" || !marked(t, res) {
		t.Errorf("a send outside the allowlist: %+v", r.Diagnostics)
	}
	_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": groups[0].ID, "message": "hi"}})
	if r.Diagnostics.Outcome != "success" {
		t.Errorf("a send inside the allowlist: %+v %s", r.Diagnostics, r.Result)
	}
	lines := e2e.AuditLines(t, audit)
	if len(lines) != 2 || lines[0]["kind"] != "target_not_allowed" || lines[1]["outcome"] != "success" || lines[1]["dry_run"] != nil {
		t.Errorf("audit lines: %v", lines)
	}
}
