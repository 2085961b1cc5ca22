package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/prompts"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

var eras = []mcptest.Era{mcptest.Modern, mcptest.Legacy}

// checkedConn is the server's end of an in-memory connection whose every
// written message is checked against the era's official schema, as the
// binary harness checks stdout: the requests it reads tell which method
// each response answers.
type checkedConn struct {
	mcp.Connection
	tb testing.TB
	v  *mcptest.Validator

	mu      sync.Mutex
	methods map[string]string // request id → method
	errs    []string
}

func (c *checkedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Request); ok && r.ID.IsValid() {
		c.mu.Lock()
		c.methods[fmt.Sprint(r.ID.Raw())] = r.Method
		c.mu.Unlock()
	}
	return msg, err
}

func (c *checkedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	line, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	answers := ""
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		answers = c.methods[fmt.Sprint(r.ID.Raw())]
		c.mu.Unlock()
	}
	if err := c.v.Check(line, answers); err != nil {
		c.mu.Lock()
		c.errs = append(c.errs, fmt.Sprintf("%s: %v", line, err))
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

type checkedTransport struct {
	mcp.Transport
	conn *checkedConn
}

func (t checkedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	t.conn.Connection = c
	return t.conn, err
}

// connectEra attaches a go-sdk client speaking era to s over in-memory
// pipes; when the test ends, every message the server wrote must have
// been valid in that era (the check is skipped, as the harness says, when
// ../shared is missing outside CI).
func connectEra(tb testing.TB, s *mcp.Server, era mcptest.Era) *mcp.ClientSession {
	tb.Helper()
	v := mcptest.NewValidator(tb, era)
	ct, st := mcp.NewInMemoryTransports()
	conn := &checkedConn{tb: tb, v: v, methods: map[string]string{}}
	var server mcp.Transport = st
	if v != nil {
		server = checkedTransport{st, conn}
	}
	ss, err := s.Connect(context.Background(), server, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: string(era)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close()
		ss.Wait()
		conn.mu.Lock()
		defer conn.mu.Unlock()
		for _, e := range conn.errs {
			tb.Errorf("not valid in %s: %s", era, e)
		}
	})
	return cs
}

// promptServer is a server in mode with lang; a non-empty endpoint gives it
// a client (read and write modes), policy its safety settings.
func promptServer(tb testing.TB, mode config.Mode, endpoint string, l lang.Lang, policy *safety.Policy, hub *events.Hub) *mcp.Server {
	tb.Helper()
	b := &backend.Backend{Safety: policy, Events: hub}
	if endpoint != "" {
		c, err := transfer.New(transfer.Options{Endpoint: endpoint})
		if err != nil {
			tb.Fatal(err)
		}
		b.Client = c
	}
	s, err := New(Options{Catalog: sharedCatalog, Mode: mode, Backend: b, Lang: l})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// unusedEndpoint is a loopback address nothing answers on: a server that
// must not contact SnowLuma gets it.
const unusedEndpoint = "http://127.0.0.1:9/"

func TestInstructionsAndCapabilities(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		for _, mode := range []config.Mode{config.ModeDocs, config.ModeRead, config.ModeWrite} {
			t.Run(fmt.Sprintf("%s/%s", era, mode), func(t *testing.T) {
				t.Parallel()
				endpoint := ""
				if mode != config.ModeDocs {
					endpoint = unusedEndpoint
				}
				init := connectEra(t, promptServer(t, mode, endpoint, lang.En, nil, nil), era).InitializeResult()
				text := init.Instructions
				if len(text) == 0 || len(text) > prompts.MaxInstructions || !strings.Contains(text, "search_actions") || !strings.Contains(text, "never as instructions") {
					t.Errorf("instructions (%d bytes): %q", len(text), text)
				}
				if strings.Contains(text, "invoke_action") != (mode == config.ModeWrite) || strings.Contains(text, "query_action") != (mode != config.ModeDocs) {
					t.Errorf("%s mode's instructions name the wrong execution tools: %q", mode, text)
				}
				caps := init.Capabilities
				if caps.Prompts == nil || caps.Prompts.ListChanged || caps.Completions == nil || caps.Logging != nil {
					t.Errorf("capabilities %+v: want prompts without listChanged, completions, no logging", caps)
				}
			})
		}
	}
}

func promptNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	return names
}

func TestPromptsListedPerMode(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			for mode, want := range map[config.Mode][]string{
				config.ModeDocs:  {"diagnose", "draft_message"},
				config.ModeRead:  {"diagnose", "draft_message", "group_digest", "join_requests"},
				config.ModeWrite: {"diagnose", "draft_message", "group_digest", "join_requests", "moderation_sweep"},
			} {
				endpoint := ""
				if mode != config.ModeDocs {
					endpoint = unusedEndpoint
				}
				cs := connectEra(t, promptServer(t, mode, endpoint, lang.En, nil, nil), era)
				if got := promptNames(t, cs); !slices.Equal(got, want) {
					t.Errorf("%s mode: %v, want %v", mode, got, want)
				}
			}
		})
	}
}

// A prompt renders with good arguments and is refused, by name, with bad
// ones; a prompt the mode does not list is unknown.
func TestGetPrompt(t *testing.T) {
	t.Parallel()
	groups, _ := safety.ParseIDs("20001")
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cs := connectEra(t, promptServer(t, config.ModeRead, unusedEndpoint, lang.Zh, &safety.Policy{Groups: groups}, nil), era)
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "group_digest", Arguments: map[string]string{"group_id": "20001", "since": "2h"}})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Messages[0].Content.(*mcp.TextContent).Text
			if len(res.Messages) != 1 || res.Messages[0].Role != "user" || !strings.Contains(text, "get_group_msg_history") ||
				!strings.Contains(text, "2h ago") || !strings.HasSuffix(text, "Answer in Simplified Chinese.") {
				t.Errorf("group_digest: %+v\n%s", res, text)
			}
			if res.Description != "总结一个群里发生的事：读取群消息记录，已订阅事件时也读取实时事件。" {
				t.Errorf("description %q", res.Description)
			}
			for _, tc := range []struct {
				name string
				args map[string]string
				says string
			}{
				// The server speaks Chinese (lang.Zh): so do its refusals.
				{"group_digest", nil, "提示 group_digest 的参数 group_id：必填：群号"},
				{"group_digest", map[string]string{"group_id": "二万"}, `的参数 group_id："二万" 不是群号`},
				{"group_digest", map[string]string{"group_id": "20002"}, "群 20002 不在 SNOWLUMA_MCP_ALLOWED_GROUPS（20001）之内"},
				{"group_digest", map[string]string{"group_id": "20001", "since": "明天"}, "的参数 since：\"明天\" 不是游标、时间或时长"},
				{"join_requests", map[string]string{"group_id": "20001", "flag": "x"}, "的参数 flag：不是 join_requests 的参数"},
				{"draft_message", map[string]string{"target": "group:20001", "content": "a\x00b"}, "的参数 content：第 1 字节处有控制字符 U+0000"},
				{"moderation_sweep", map[string]string{"group_id": "20001"}, `unknown prompt "moderation_sweep"`},
			} {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.name, Arguments: tc.args})
				var we *jsonrpc.Error
				if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, tc.says) {
					t.Errorf("%s %v: %v, want invalid params saying %q", tc.name, tc.args, err, tc.says)
				}
			}
		})
	}
}

// complete asks for completions of arg (with the context's other
// arguments) of the prompt, or of ActionTemplate when prompt is "".
func completeArg(t *testing.T, cs *mcp.ClientSession, prompt, arg, value string, ctxArgs map[string]string) mcp.CompletionResultDetails {
	t.Helper()
	ref := &mcp.CompleteReference{Type: "ref/prompt", Name: prompt}
	if prompt == "" {
		ref = &mcp.CompleteReference{Type: "ref/resource", URI: ActionTemplate}
	}
	p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
	if ctxArgs != nil {
		p.Context = &mcp.CompleteContext{Arguments: ctxArgs}
	}
	res, err := cs.Complete(context.Background(), p)
	if err != nil {
		t.Fatalf("complete %s.%s %q: %v", prompt, arg, value, err)
	}
	return res.Completion
}

func wantValues(t *testing.T, what string, got mcp.CompletionResultDetails, values ...string) {
	t.Helper()
	if !slices.Equal(got.Values, values) || got.HasMore || (len(values) > 0 && got.Total != len(values)) {
		t.Errorf("%s: %+v, want exactly %q", what, got, values)
	}
	if got.Values == nil {
		t.Errorf("%s: values is null; the schema wants an array", what)
	}
}

func requests(fake *simulator.Server, action string) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.Action == action {
			n++
		}
	}
	return n
}

func TestCompleteGroupsAndMembers(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			fake := simtest.Start(t)
			cs := connectEra(t, promptServer(t, config.ModeWrite, fake.URL, lang.En, nil, nil), era)
			wantValues(t, "group id prefix", completeArg(t, cs, "group_digest", "group_id", "200", nil), "20001", "20002", "20010")
			wantValues(t, "Chinese group name", completeArg(t, cs, "join_requests", "group_id", "摸鱼", nil), "20002")
			wantValues(t, "inside a Chinese name", completeArg(t, cs, "moderation_sweep", "group_id", "交流", nil), "20010")
			wantValues(t, "members of the chosen group by nickname", completeArg(t, cs, "moderation_sweep", "user_id", "张", map[string]string{"group_id": "20001"}), "30001")
			wantValues(t, "by card", completeArg(t, cs, "moderation_sweep", "user_id", "管理", map[string]string{"group_id": "20001"}), "30010")
			wantValues(t, "no group chosen", completeArg(t, cs, "moderation_sweep", "user_id", "3", nil))
			wantValues(t, "target kinds", completeArg(t, cs, "draft_message", "target", "", nil), "group:", "user:")
			wantValues(t, "target group", completeArg(t, cs, "draft_message", "target", "group:大", nil), "group:123456789")
			wantValues(t, "target friend", completeArg(t, cs, "draft_message", "target", "user:老李", nil), "user:30002")
			wantValues(t, "free text", completeArg(t, cs, "draft_message", "content", "hi", nil))
			wantValues(t, "unknown prompt", completeArg(t, cs, "no_such_prompt", "group_id", "2", nil))
			wantValues(t, "unknown argument", completeArg(t, cs, "group_digest", "nope", "2", nil))

			big := completeArg(t, cs, "moderation_sweep", "user_id", "", map[string]string{"group_id": fmt.Sprint(simulator.BigGroup)})
			if len(big.Values) != 100 || big.Total != simulator.BigGroupMembers || !big.HasMore {
				t.Errorf("big group: %d values, total %d, hasMore %v", len(big.Values), big.Total, big.HasMore)
			}
			if n := requests(fake, "get_group_list"); n != 1 {
				t.Errorf("%d get_group_list requests, want 1 within the cache lifetime", n)
			}
			for _, r := range fake.Requests() {
				if tp := r.Header.Get("Traceparent"); !strings.HasPrefix(tp, "00-") {
					t.Errorf("%s sent without a trace context: %q", r.Action, tp)
				}
			}
		})
	}
}

func TestCompleteWithAllowlist(t *testing.T) {
	t.Parallel()
	groups, _ := safety.ParseIDs("20001,20010")
	users, _ := safety.ParseIDs("30001,30010")
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			fake := simtest.Start(t)
			cs := connectEra(t, promptServer(t, config.ModeWrite, fake.URL, lang.En, &safety.Policy{Groups: groups, Users: users}, nil), era)
			wantValues(t, "groups", completeArg(t, cs, "group_digest", "group_id", "", nil), "20001", "20010")
			wantValues(t, "a name outside the list", completeArg(t, cs, "group_digest", "group_id", "摸鱼", nil))
			wantValues(t, "members", completeArg(t, cs, "moderation_sweep", "user_id", "", map[string]string{"group_id": "20001"}), "30001", "30010")
			wantValues(t, "members of a group outside the list", completeArg(t, cs, "moderation_sweep", "user_id", "", map[string]string{"group_id": "20002"}))
			if n := requests(fake, "get_group_member_list"); n != 1 {
				t.Errorf("%d member list requests, want 1: a group outside the list is not asked about", n)
			}
		})
	}
}

// SnowLuma down, refusing the token or answering odd data: completion is
// empty, never an error; docs mode sends nothing; action names complete in
// every mode.
func TestCompleteWithoutSnowLuma(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			down := simtest.Start(t)
			down.Close()
			refusing := simtest.Start(t, simulator.WithToken("other"))
			odd := simtest.Start(t)
			odd.Handle("get_group_list", func(json.RawMessage) simulator.Reply { return simulator.OK(json.RawMessage(`{"groups":"no"}`)) })
			for name, endpoint := range map[string]string{"down": down.URL, "refusing the token": refusing.URL, "odd data": odd.URL} {
				cs := connectEra(t, promptServer(t, config.ModeRead, endpoint, lang.En, nil, nil), era)
				wantValues(t, name+": groups", completeArg(t, cs, "group_digest", "group_id", "2", nil))
				wantValues(t, name+": targets", completeArg(t, cs, "draft_message", "target", "group:", nil))
				wantValues(t, name+": actions", completeArg(t, cs, "", "name", "get_group_l", nil), "get_group_list")
			}
			docs := connectEra(t, promptServer(t, config.ModeDocs, "", lang.En, nil, nil), era)
			wantValues(t, "docs: targets", completeArg(t, docs, "draft_message", "target", "group:2", nil))
			wantValues(t, "docs: prompt not listed", completeArg(t, docs, "group_digest", "group_id", "2", nil))
			wantValues(t, "docs: actions by alias or word", completeArg(t, docs, "", "name", "set_group_ba", nil), "set_group_ban")
			if got := completeArg(t, docs, "", "name", "禁言", nil); len(got.Values) == 0 || got.Values[0] != "set_group_ban" {
				t.Errorf("禁言: %+v", got)
			}
			wantValues(t, "another template", completeArg(t, docs, "", "uri", "x", nil))
		})
	}
}

// The per-action template reads what get_action answers, for names and
// aliases, with the catalog's cache hints; unknown names are refused with
// suggestions.
func TestActionTemplate(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cs := connectEra(t, promptServer(t, config.ModeDocs, "", lang.En, nil, nil), era)
			list, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(list.ResourceTemplates) != 1 || list.ResourceTemplates[0].URITemplate != ActionTemplate {
				t.Errorf("templates: %+v", list.ResourceTemplates)
			}
			cat, err := catalog.Load()
			if err != nil {
				t.Fatal(err)
			}
			var alias, of string
			for _, a := range cat.Actions() {
				if len(a.Aliases) > 0 {
					alias, of = a.Aliases[0], a.Name
					break
				}
			}
			for _, name := range []string{"send_group_msg", alias} {
				res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: actionPrefix + name})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_action", Arguments: map[string]any{"name": name}})
				if err != nil {
					t.Fatal(err)
				}
				// get_action's text block holds its result exactly as
				// encoded; the resource must hold the same entry.
				var tool struct{ Result json.RawMessage }
				if err := json.Unmarshal([]byte(call.Content[0].(*mcp.TextContent).Text), &tool); err != nil {
					t.Fatal(err)
				}
				c := res.Contents[0]
				if c.URI != actionPrefix+name || c.MIMEType != "application/json" || c.Text != string(tool.Result) {
					t.Errorf("%s: %s %s\n%.200s\nget_action: %.200s", name, c.URI, c.MIMEType, c.Text, tool.Result)
				}
				if era == mcptest.Modern && (res.TTLMs != catalogTTL || res.CacheScope != "public") {
					t.Errorf("%s: cache hints %d %q, want the catalog's", name, res.TTLMs, res.CacheScope)
				}
			}
			if !strings.Contains(string(mustRead(t, cs, actionPrefix+alias)), `"name":"`+of+`"`) {
				t.Errorf("alias %s does not read %s", alias, of)
			}
			for uri, says := range map[string]string{
				actionPrefix + "set_group_bam":      "closest: set_group_ban",
				actionPrefix + "%E7%A6%81%E8%A8%80": "not a catalog action",
				// The SDK's template match refuses these before the handler.
				actionPrefix + "a/b": "",
				actionPrefix + "%zz": "",
			} {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				var we *jsonrpc.Error
				if !errors.As(err, &we) || we.Code != mcp.CodeResourceNotFound || !strings.Contains(we.Message, says) {
					t.Errorf("%s: %v, want resource not found saying %q", uri, err, says)
				}
			}
		})
	}
}

func mustRead(t *testing.T, cs *mcp.ClientSession, uri string) []byte {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	return []byte(res.Contents[0].Text)
}

// TestPromptsGolden keeps prompts/list per mode and language, and the
// resource templates with and without events, so that a change to a
// title, a description or an argument shows in review.
func TestPromptsGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode config.Mode
		lang lang.Lang
	}{{config.ModeDocs, lang.En}, {config.ModeRead, lang.En}, {config.ModeWrite, lang.En}, {config.ModeWrite, lang.Zh}} {
		name := fmt.Sprintf("prompts-%s-%s.json", tc.mode, tc.lang)
		t.Run(name, func(t *testing.T) {
			endpoint := ""
			if tc.mode != config.ModeDocs {
				endpoint = unusedEndpoint
			}
			res, err := connect(t, promptServer(t, tc.mode, endpoint, tc.lang, nil, nil), nil).ListPrompts(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(res.Prompts, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, append(got, '\n'))
		})
	}
	for _, withEvents := range []bool{false, true} {
		name := "templates-plain.json"
		var hub *events.Hub
		if withEvents {
			name = "templates-events.json"
			hub = events.New(events.Options{URL: "ws://127.0.0.1:9/"})
			t.Cleanup(hub.Close)
		}
		t.Run(name, func(t *testing.T) {
			res, err := connect(t, promptServer(t, config.ModeRead, unusedEndpoint, lang.En, nil, hub), nil).ListResourceTemplates(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(res.ResourceTemplates, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, append(got, '\n'))
		})
	}
}
