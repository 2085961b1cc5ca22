package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// Claude Code 2.1.332 on the wire, as its shipped client does it (read
// from the npm package @anthropic-ai/claude-code@2.1.332): for a stdio
// server it sends server/discover at 2026-07-28 from a sibling process of
// the server that it then stops, and decides the era from the answer:
//
//   - a DiscoverResult offering 2026-07-28: the modern era;
//   - one offering only legacy revisions, a -32022 error whose
//     data.supported has no modern revision, any other JSON-RPC error
//     (-32601), a closed connection or a time-out: the legacy handshake;
//   - a -32022 naming a modern revision it has: discover again at that one.
//
// It then starts the server again for the session. In the legacy era it
// sends initialize at 2025-11-25 (declaring no claude/channel of its own),
// notifications/initialized, and lists the tools; it accepts
// notifications/claude/channel when the initialize result's experimental
// capabilities hold claude/channel, and verdicts with
// claude/channel/permission. In the modern era it opens
// subscriptions/listen for resourcesListChanged only and skips every
// channel notification ("connection negotiated a modern protocol revision
// with no unsolicited notification path").

// claudeCodeSession is a session of the imitation.
type claudeCodeSession struct {
	*qqChannel
	modern   bool
	accepted bool // it registered the channel's handler
}

// claudeCodeProbe is the sibling process's server/discover: it reports
// whether Claude Code chooses the modern era.
func claudeCodeProbe(t *testing.T, fake *simulator.Server, env []string) bool {
	t.Helper()
	probe := serve(t, mcptest.Modern, env...)
	defer func() {
		probe.Close()
		// Claude Code stops the probe's server before it starts the
		// session's.
		e2e.WaitFor(t, "the probe's event connection closed", func() bool {
			for _, c := range fake.EventConns() {
				if c.Open() {
					return false
				}
			}
			return true
		})
	}()
	raw := probe.Raw()
	version := "2026-07-28"
	for try := 0; ; try++ {
		m := raw.Call(try+1, "server/discover", `{"_meta":`+claudeCodeMeta(version)+`}`)
		if r, ok := m["result"].(map[string]any); ok {
			vs, _ := r["supportedVersions"].([]any)
			for _, v := range vs {
				if v == "2026-07-28" {
					return true
				}
			}
			return false
		}
		e, _ := m["error"].(map[string]any)
		if e["code"] != float64(-32022) {
			return false
		}
		data, _ := e["data"].(map[string]any)
		supported, _ := data["supported"].([]any)
		modern := ""
		for _, v := range supported {
			if s, _ := v.(string); s >= "2026-07-28" {
				modern = s
			}
		}
		if modern != "2026-07-28" || try > 0 {
			// Claude Code 2.1.332 knows only 2026-07-28 among the modern
			// revisions: another one ends the probe (an error when it
			// is the only offer; the test fails then).
			if modern != "" {
				t.Fatalf("server/discover refused with modern revisions %v Claude Code cannot use", supported)
			}
			return false
		}
		version = modern
	}
}

func claudeCodeMeta(version string) string {
	return `{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{"roots":{},"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.332"}}`
}

// claudeCodeStart starts the session's server, in the era the probe chose.
func claudeCodeStart(t *testing.T, fake *simulator.Server, modern bool, env []string) *claudeCodeSession {
	t.Helper()
	era := mcptest.Legacy
	if modern {
		era = mcptest.Modern
	}
	// The probe's server has ended: the open event connection is this
	// one's.
	p := serve(t, era, env...)
	t.Cleanup(func() { e2e.NoLeak(t, p) })
	var conn *simulator.EventConn
	e2e.WaitFor(t, "the session's event connection", func() bool {
		for _, c := range fake.EventConns() {
			if c.Open() {
				conn = c
			}
		}
		return conn != nil
	})
	q := &qqChannel{fake: fake, p: p, era: era, nextID: 1, conn: conn, raw: p.Raw()}
	return &claudeCodeSession{qqChannel: q, modern: modern}
}

// handshake is the session's handshake and first listing, after which
// accepted says whether Claude Code registers the channel's handler.
func (s *claudeCodeSession) handshake(t *testing.T) {
	t.Helper()
	q := s.qqChannel
	if s.modern {
		meta := claudeCodeMeta("2026-07-28")
		q.params = func(params string) string {
			if params == "{}" {
				return `{"_meta":` + meta + `}`
			}
			return `{"_meta":` + meta + `,` + strings.TrimPrefix(params, "{")
		}
		q.raw.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":%s}`, listenID, q.params(`{"notifications":{"resourcesListChanged":true}}`)))
		q.next(t, "notifications/subscriptions/acknowledged")
		e2e.Result(t, q.raw.Call(1002, "tools/list", q.params("{}")))
		return // the gate: "era", never registered
	}
	init := e2e.Result(t, q.raw.Call(1000, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{},"elicitation":{"form":{}}},"clientInfo":{"name":"claude-code","version":"2.1.332"}}`))
	if v := init["protocolVersion"]; v != "2025-11-25" {
		t.Fatalf("initialize answered %v", v)
	}
	q.caps, _ = init["capabilities"].(map[string]any)["experimental"].(map[string]any)
	q.params = func(params string) string { return params }
	q.raw.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	e2e.Result(t, q.raw.Call(1002, "tools/list", "{}"))
	_, s.accepted = q.caps["claude/channel"]
}

// TestChannelClaudeCode: with the channel on, Claude Code as it is today
// ends up in the legacy era, registers the channel and receives an
// at-mention, whether the message comes after the handshake or before it
// (held until the client listens); without the channel it still negotiates
// 2026-07-28. A client that goes on at 2026-07-28 without discover, and
// asks for no channel stream, gets nothing, and the server says why on
// stderr once, in the operator's language.
func TestChannelClaudeCode(t *testing.T) {
	t.Parallel()
	at := func(id int64, text string) string {
		return qqGroup("message", 20001, 30005, id, fmt.Sprintf(`[{"type":"at","data":{"qq":"%d"}},{"type":"text","data":{"text":" %s"}}]`, simulator.SelfID, text))
	}
	start := func(t *testing.T, env ...string) (*simulator.Server, []string) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		return fake, append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken,
			"SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_EVENTS_URL=" + fake.EventsURL()}, env...)
	}
	channelOn := []string{"SNOWLUMA_MCP_CHANNEL=mentions", "SNOWLUMA_MCP_CHANNEL_GROUPS=20001", "SNOWLUMA_MCP_CHANNEL_USERS=30002", "SNOWLUMA_MCP_CHANNEL_APPROVERS=30002"}

	t.Run("push after the handshake", func(t *testing.T) {
		t.Parallel()
		fake, env := start(t, channelOn...)
		if claudeCodeProbe(t, fake, env) {
			t.Fatal("Claude Code would negotiate 2026-07-28 with the channel on, where it skips channel notifications")
		}
		s := claudeCodeStart(t, fake, false, env)
		s.handshake(t)
		if !s.accepted {
			t.Fatalf("Claude Code would not register the channel: experimental capabilities %v", s.caps)
		}
		if _, ok := s.caps["claude/channel/permission"]; !ok {
			t.Errorf("no permission relay declared: %v", s.caps)
		}
		s.send(t, at(1, "在吗"))
		content, meta := s.push(t)
		if content != "[@我] 在吗" || meta["mentioned"] != "true" || meta["group_id"] != "20001" {
			t.Errorf("push %q %v", content, meta)
		}
		// In --permission-mode default Claude Code relays its dialog; the
		// approver's full-width no on QQ comes back as the verdict.
		s.raw.Send(`{"jsonrpc":"2.0","method":"` + permissionRq + `","params":{"request_id":"hqwzt","tool_name":"Bash","description":"List files","input_preview":"{\"command\":\"ls\"}"}}`)
		promptTo(t, fake, 30002, "hqwzt")
		s.send(t, qqPrivate(30002, 9, "ｎｏ　hqwzt"))
		if v := s.next(t, verdictNote); v["request_id"] != "hqwzt" || v["behavior"] != "deny" {
			t.Errorf("verdict %v", v)
		}
	})

	t.Run("push before the handshake", func(t *testing.T) {
		t.Parallel()
		fake, env := start(t, channelOn...)
		if claudeCodeProbe(t, fake, env) {
			t.Fatal("Claude Code would negotiate 2026-07-28 with the channel on")
		}
		s := claudeCodeStart(t, fake, false, env)
		// The server follows the account from its start: a message that
		// comes before the client has initialized is held, and written
		// once the client has listed the tools, which is when Claude Code
		// starts listening (the imitation drops what comes before, as
		// Claude Code does).
		s.send(t, at(1, "早到的"))
		e2e.WaitFor(t, "the held push on stderr", func() bool {
			return strings.Contains(s.p.Stderr(), "channel: a push is held")
		})
		s.handshake(t)
		if !s.accepted {
			t.Fatalf("Claude Code would not register the channel: %v", s.caps)
		}
		content, meta := s.push(t)
		if content != "[@我] 早到的" || meta["message_id"] != "1" {
			t.Errorf("held push %q %v", content, meta)
		}
		s.send(t, at(2, "到了"))
		content, meta = s.push(t)
		if content != "[@我] 到了" || meta["message_id"] != "2" {
			t.Errorf("push %q %v", content, meta)
		}
		st := s.stats(t, func(st, _ map[string]any) bool { return st["pushes"] == float64(2) })
		if st["push_failures"] != nil && st["push_failures"] != float64(0) {
			t.Errorf("stats %v", st)
		}
	})

	t.Run("without the channel", func(t *testing.T) {
		t.Parallel()
		fake, env := start(t)
		if !claudeCodeProbe(t, fake, env) {
			t.Error("without the channel server/discover no longer offers 2026-07-28")
		}
	})

	t.Run("a 2026-07-28 session without a channel stream", func(t *testing.T) {
		t.Parallel()
		fake, env := start(t, append(channelOn, "SNOWLUMA_MCP_LANG=zh")...)
		s := claudeCodeStart(t, fake, true, env)
		s.handshake(t)
		s.send(t, at(1, "没人听"), at(2, "还是没人听"))
		e2e.WaitFor(t, "the line of a session without a path", func() bool {
			return strings.Contains(s.p.Stderr(), "客户端协商了 MCP 2026-07-28")
		})
		s.send(t, qqGroup("message", 20009, 30005, 3, textSeg("x")), at(4, "第三次"))
		s.stats(t, func(st, _ map[string]any) bool { return st["push_failures"] == float64(2) })
		if n := strings.Count(s.p.Stderr(), "客户端协商了 MCP"); n != 1 {
			t.Errorf("the line was written %d times:\n%s", n, s.p.Stderr())
		}
	})
}
