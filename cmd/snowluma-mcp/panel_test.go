package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/reference"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// hostile is a draft that must reach the screen and SnowLuma as text: an
// HTML element with a script handler, and a CQ code that would mention the
// whole group if it were parsed.
const hostile = `<img src=x onerror=alert(1)> [CQ:at,qq=all]`

// panelScenario is one run of the panel in the browser (see
// ui/browsertest/run.mjs).
type panelScenario struct {
	Name      string `json:"name"`
	Endpoint  string `json:"endpoint,omitempty"`
	Mode      string `json:"mode"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
	Theme     string `json:"theme"`
	// Locale is the host context's locale, none when empty; Lang the
	// server's SNOWLUMA_MCP_LANG; SwitchLocale, when set, a locale the host
	// changes to once the outcome is shown.
	Locale       string         `json:"locale,omitempty"`
	Lang         string         `json:"lang,omitempty"`
	SwitchLocale string         `json:"switchLocale,omitempty"`
	ServerTools  bool           `json:"serverTools"`
	Click        string         `json:"click"`
	Args         map[string]any `json:"args"`
	// DryRun sets SNOWLUMA_MCP_DRY_RUN; Sandbox runs `snowluma-mcp sandbox`
	// (seed 1, silent) instead of the server on Endpoint.
	DryRun  bool `json:"dryRun,omitempty"`
	Sandbox bool `json:"sandbox,omitempty"`
}

// panelLook is what the panel showed at one moment.
type panelLook struct {
	// Banner is the sandbox or dry-run banner, "" when hidden.
	Type, Target, Text, Reason, Status, StatusKind, Theme, Background, Banner string
	Reply                                                                     *string
	Elements                                                                  int
	SendDisabled                                                              bool
	// The panel's language: <html lang>, the title, the static labels in
	// page order, the text's accessible name and the button's label.
	Lang, Title, TextLabel, SendLabel string
	Labels                            []string
}

type panelRun struct {
	Name        string
	ResourceURI string
	Listed      []string
	PanelMime   string
	PanelMeta   map[string]any
	Preview     mcptest.ToolResult
	Relayed     []struct{ Name string }
	Dialogs     []string
	Shots       []string
	Focused     string
	Before      panelLook
	After       panelLook
	Final       panelLook
	Switched    panelLook
}

// TestPreviewPanelInBrowser shows the message preview panel in Debian's
// headless Chromium inside a small MCP Apps host page (ext-apps' AppBridge)
// that relays its tool calls to the real binary over stdio, against fake
// SnowLumas, and checks what a person would see and what SnowLuma receives.
// .ci/run installs Debian's chromium-headless-shell and ui's npm packages;
// elsewhere the test skips without a Chromium, and under CI=true the
// shell's absence fails it.
//
// Screenshots are taken only when asked for (SNOWLUMA_PANEL_SHOTS, or
// SNOWLUMA_PANEL_DOCS to refresh the README's): the test judges what the
// page holds, and its 24 screenshots were a fifth of its CPU.
func TestPreviewPanelInBrowser(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("..", "..", "ui"))
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	chromium, chromeErr := panelBrowser()
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "playwright-core"))
	if nodeErr != nil || chromeErr != nil || modErr != nil {
		if reference.UnderCI() {
			t.Fatalf("the browser test cannot run (node: %v, chromium: %v, ui packages: %v); .ci/run installs chromium and runs npm ci in ui", nodeErr, chromeErr, modErr)
		}
		t.Skip("browser test needs node, Debian's chromium-headless-shell (or chromium) and `npm ci` in ui (.ci/run installs them)")
	}
	shots := os.Getenv("SNOWLUMA_PANEL_SHOTS")
	if shots == "" && os.Getenv("SNOWLUMA_PANEL_DOCS") != "" {
		shots = filepath.Join(os.TempDir(), "snowluma-mcp-panel-shots")
	}
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	fakes := map[string]*simulator.Server{}
	for _, name := range []string{"keyboard", "double", "failure", "timeout", "read", "no-server-tools", "zh-host", "zh-server", "host-over-server", "dry-run"} {
		fakes[name] = simtest.Start(t)
	}
	const wording = "发送失败：当前群已开启全员禁言 (group is muted)"
	fakes["failure"].Handle("send_group_msg", func(json.RawMessage) simulator.Reply { return simulator.Failed(120, wording) })
	fakes["host-over-server"].Handle("send_group_msg", func(json.RawMessage) simulator.Reply { return simulator.Failed(120, wording) })
	fakes["timeout"].Handle("send_group_msg", func(json.RawMessage) simulator.Reply { return simulator.Reply{Hang: true} })

	group := map[string]any{"message_type": "group", "target_id": 20001, "text": hostile}
	reply := map[string]any{"message_type": "group", "target_id": 20001, "text": hostile, "reply_to": -123456}
	private := map[string]any{"message_type": "private", "target_id": 30001, "text": hostile}
	scenarios := []panelScenario{
		{Name: "keyboard", Mode: "write", Theme: "light", Locale: "en-US", ServerTools: true, Click: "keyboard", Args: reply},
		{Name: "double", Mode: "write", Theme: "dark", Locale: "en-US", ServerTools: true, Click: "dblclick", Args: private},
		{Name: "failure", Mode: "write", Theme: "light", ServerTools: true, Click: "click", Args: group},
		{Name: "timeout", Mode: "write", TimeoutMs: 1500, Theme: "dark", ServerTools: true, Click: "click", Args: group, SwitchLocale: "zh-CN"},
		{Name: "read", Mode: "read", Theme: "light", ServerTools: true, Click: "none", Args: group},
		{Name: "no-server-tools", Mode: "write", Theme: "light", Locale: "fr-FR", Lang: "zh", ServerTools: false, Click: "none", Args: group},
		// The languages: the host's locale first, then the server's, and a
		// host switching language.
		{Name: "zh-host", Mode: "write", Theme: "light", Locale: "zh-CN", ServerTools: true, Click: "click", Args: reply},
		{Name: "zh-server", Mode: "read", Theme: "dark", Lang: "zh", ServerTools: true, Click: "none", Args: private},
		{Name: "host-over-server", Mode: "write", Theme: "light", Locale: "en-GB", Lang: "zh", ServerTools: true, Click: "click", Args: group, SwitchLocale: "zh-Hans-CN"},
		// A dry run checks and does not send; the sandbox sends to its
		// simulated account, a group of seed 1's world.
		{Name: "dry-run", Mode: "write", DryRun: true, Theme: "light", Locale: "en-US", ServerTools: true, Click: "click", Args: group},
		{Name: "sandbox", Mode: "write", Sandbox: true, Theme: "dark", Locale: "en-US", ServerTools: true, Click: "click",
			Args: map[string]any{"message_type": "group", "target_id": sandboxGroup(t, 1), "text": hostile}},
	}
	for i := range scenarios {
		if f := fakes[scenarios[i].Name]; f != nil {
			scenarios[i].Endpoint = f.URL
		}
	}
	input, err := json.Marshal(map[string]any{"bin": plainBinary(t), "shots": shots, "scenarios": scenarios})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join("browsertest", "run.mjs"))
	cmd.Dir = dir
	// The server it starts inherits HOME: one of its own, as mcptest
	// gives every server (PrivateHome), for its per-user state.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CHROMIUM=" + chromium, "PANEL_TEST=" + string(input)}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("run.mjs: %v\n%s", err, stderr.String())
	}
	var out struct {
		Results  []panelRun
		Requests []string
		Blocked  []string
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("output %.2000s: %v", stdout, err)
	}
	if len(out.Results) != len(scenarios) {
		t.Fatalf("%d results for %d scenarios", len(out.Results), len(scenarios))
	}
	if shots != "" {
		t.Logf("screenshots in %s", shots)
	}

	// Nothing but the host page itself was requested: the panel fetched no
	// script, style, font or image (the <img> stayed text) and opened no
	// connection.
	if len(out.Blocked) != 0 {
		t.Errorf("requests left the page: %v", out.Blocked)
	}
	for _, u := range out.Requests {
		if u != "http://panel-host.test/host.html" {
			t.Errorf("request to %s", u)
		}
	}

	runs := map[string]panelRun{}
	for _, r := range out.Results {
		runs[r.Name] = r
		checkPanelBasics(t, r, shots != "")
	}
	sends := func(name, action string) []simulator.Recorded {
		var got []simulator.Recorded
		for _, r := range fakes[name].Requests() {
			if strings.HasPrefix(r.Action, "send_") {
				if r.Action != action {
					t.Errorf("%s: SnowLuma got %s, want %s", name, r.Action, action)
				}
				got = append(got, r)
			}
		}
		return got
	}

	// One keyboard press of Send: exactly one request, carrying the text
	// literally after the quoted reply.
	kb := runs["keyboard"]
	if kb.Focused != "send" {
		t.Errorf("keyboard: Tab from the text focused %q, not Send", kb.Focused)
	}
	if kb.Before.Reply == nil || *kb.Before.Reply != "message -123456" {
		t.Errorf("keyboard: reply shown as %v", kb.Before.Reply)
	}
	got := sends("keyboard", "send_group_msg")
	if len(got) != 1 {
		t.Fatalf("keyboard: %d send requests, want 1", len(got))
	}
	want := `{"group_id":20001,"message":[{"type":"reply","data":{"id":"-123456"}},{"type":"text","data":{"text":"` + hostile + `"}}]}`
	if !mcptest.SameJSON(got[0].Params, json.RawMessage(want)) {
		t.Errorf("keyboard: params %s, want %s", got[0].Params, want)
	}
	expectOutcome(t, kb, "success", "message -123456")

	// A double click: still one request, sent as escaped literal text.
	db := runs["double"]
	got = sends("double", "send_private_msg")
	if len(got) != 1 {
		t.Fatalf("double click: %d send requests, want 1", len(got))
	}
	want = `{"user_id":30001,"message":` + string(e2e.MustJSON(t, hostile)) + `,"auto_escape":true}`
	if !mcptest.SameJSON(got[0].Params, json.RawMessage(want)) {
		t.Errorf("double click: params %s, want %s", got[0].Params, want)
	}
	expectOutcome(t, db, "success", "message -123456")
	if db.Before.Theme != "dark" || db.Before.Background == runs["keyboard"].Before.Background {
		t.Errorf("dark theme not followed: theme %q, background %s (light %s)", db.Before.Theme, db.Before.Background, runs["keyboard"].Before.Background)
	}
	if runs["keyboard"].Before.Theme != "light" {
		t.Errorf("light theme not followed: %q", runs["keyboard"].Before.Theme)
	}

	// A business failure and a timeout: shown, one request each, no retry.
	if n := len(sends("failure", "send_group_msg")); n != 1 {
		t.Errorf("failure: %d send requests, want 1", n)
	}
	expectOutcome(t, runs["failure"], "failed", wording)
	if n := len(sends("timeout", "send_group_msg")); n != 1 {
		t.Errorf("timeout: %d send requests, want 1", n)
	}
	expectOutcome(t, runs["timeout"], "unknown", "Outcome unknown: check QQ before sending again")

	// Read mode, and a host that cannot call server tools: Send stays
	// disabled with the reason, and nothing is relayed or sent.
	for name, why := range map[string]string{"read": "read mode", "no-server-tools": "cannot call server tools"} {
		r := runs[name]
		if !r.Before.SendDisabled || !r.Final.SendDisabled || !strings.Contains(r.Before.Reason, why) {
			t.Errorf("%s: send disabled %v/%v, reason %q (want it to say %q)", name, r.Before.SendDisabled, r.Final.SendDisabled, r.Before.Reason, why)
		}
		if len(r.Relayed) != 0 || r.Final.Status != "" {
			t.Errorf("%s: %d calls relayed, status %q", name, len(r.Relayed), r.Final.Status)
		}
		if n := len(sends(name, "send_group_msg")); n != 0 {
			t.Errorf("%s: %d send requests reached SnowLuma", name, n)
		}
	}
	checkPanelLanguages(t, runs, wording)
	for name, n := range map[string]int{"zh-host": 1, "zh-server": 0, "host-over-server": 1} {
		if got := len(sends(name, map[bool]string{true: "send_private_msg", false: "send_group_msg"}[name == "zh-server"])); got != n {
			t.Errorf("%s: %d send requests, want %d", name, got, n)
		}
	}
	expectOutcome(t, runs["host-over-server"], "failed", "Not sent: SnowLuma said: "+wording+" (retcode 120).")
	// A dry run: a banner before, "not sent" after, nothing at SnowLuma.
	dry := runs["dry-run"]
	expectOutcome(t, dry, "dry_run", "Dry run: not sent")
	if !strings.Contains(dry.Before.Banner, "Dry run") || runs["keyboard"].Before.Banner != "" {
		t.Errorf("dry run banner %q, keyboard's %q", dry.Before.Banner, runs["keyboard"].Before.Banner)
	}
	if n := len(sends("dry-run", "send_group_msg")); n != 0 {
		t.Errorf("dry run: %d send requests reached SnowLuma", n)
	}
	// The sandbox: a banner, and a success that says it stayed there.
	sb := runs["sandbox"]
	expectOutcome(t, sb, "success", "Sent to the sandbox")
	if !strings.Contains(sb.Before.Banner, "Sandbox") || !strings.Contains(sb.After.Status, "Nothing reached QQ") {
		t.Errorf("sandbox: banner %q, status %q", sb.Before.Banner, sb.After.Status)
	}
	if runs["read"].Preview.Diagnostics.Outcome != "success" || !strings.Contains(string(runs["read"].Preview.Result), `"can_send":false`) {
		t.Errorf("read: preview %s", runs["read"].Preview.Result)
	}

	// The README shows the light and dark panels; refresh them on request.
	if docs := os.Getenv("SNOWLUMA_PANEL_DOCS"); docs != "" {
		for name, file := range map[string]string{"keyboard": "preview-panel-light.png", "double": "preview-panel-dark.png", "zh-host": "preview-panel-zh.png"} {
			b, err := os.ReadFile(runs[name].Shots[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(docs, file), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkPanelBasics checks what every scenario shares: the Apps listing,
// the panel resource, the literal draft and, when taken, the screenshots.
func checkPanelBasics(t *testing.T, r panelRun, shots bool) {
	t.Helper()
	if r.ResourceURI != server.PreviewPanelURI || !slices.Contains(r.Listed, server.PreviewPanelURI) {
		t.Errorf("%s: tool resourceUri %q, listed resources %v", r.Name, r.ResourceURI, r.Listed)
	}
	if r.PanelMime != "text/html;profile=mcp-app" {
		t.Errorf("%s: panel MIME %q", r.Name, r.PanelMime)
	}
	if meta, _ := json.Marshal(r.PanelMeta); !strings.Contains(string(meta), `"csp":{"connectDomains":[],"frameDomains":[],"resourceDomains":[]}`) {
		t.Errorf("%s: panel _meta %s", r.Name, meta)
	}
	if r.Before.Text != hostile || r.Before.Elements != 0 || len(r.Dialogs) != 0 {
		t.Errorf("%s: text %q, %d loading elements, dialogs %v: the draft was not shown literally", r.Name, r.Before.Text, r.Before.Elements, r.Dialogs)
	}
	if r.Before.Type == "" || (!strings.Contains(r.Before.Target, "0001") && r.Name != "sandbox") {
		t.Errorf("%s: type %q, target %q", r.Name, r.Before.Type, r.Before.Target)
	}
	for _, s := range r.Shots {
		if st, err := os.Stat(s); err != nil || st.Size() == 0 {
			t.Errorf("%s: screenshot %s: %v", r.Name, s, err)
		}
	}
	want := 0
	if shots {
		want = 2 + btoi(r.Switched.Lang != "")
	}
	if len(r.Shots) != want {
		t.Errorf("%s: %d screenshots", r.Name, len(r.Shots))
	}
}

// expectOutcome checks one send: one relayed invoke_action, the outcome
// shown, and Send disabled for good.
func expectOutcome(t *testing.T, r panelRun, kind, says string) {
	t.Helper()
	if len(r.Relayed) != 1 || r.Relayed[0].Name != "invoke_action" {
		t.Errorf("%s: relayed %+v, want one invoke_action", r.Name, r.Relayed)
	}
	if r.Before.SendDisabled || r.Before.Reason != "" {
		t.Errorf("%s: Send disabled before the click (%q)", r.Name, r.Before.Reason)
	}
	if r.After.StatusKind != kind || !strings.Contains(r.After.Status, says) {
		t.Errorf("%s: status %s %q, want %s saying %q", r.Name, r.After.StatusKind, r.After.Status, kind, says)
	}
	if !r.After.SendDisabled || !r.Final.SendDisabled || r.Final.Status != r.After.Status {
		t.Errorf("%s: Send enabled again after the outcome (%+v)", r.Name, r.Final)
	}
}

// panelBrowser is the Chromium the browser test drives: $CHROMIUM, else
// Debian's chromium-headless-shell, else Debian's chromium. The shell is
// the same Chromium without the desktop browser around it, and took the
// test from about 49 to 34 CPU-s.
func panelBrowser() (string, error) {
	if c := os.Getenv("CHROMIUM"); c != "" {
		_, err := os.Stat(c)
		return c, err
	}
	shell := "/usr/bin/chromium-headless-shell"
	_, err := os.Stat(shell)
	if err == nil || reference.UnderCI() {
		return shell, err
	}
	full := "/usr/bin/chromium"
	_, err = os.Stat(full)
	return full, err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The panel's own words in each language, as checkPanelLanguages expects
// them: title, static labels (heading, type, to, quotes, note), the text's
// accessible name and the Send button.
var panelWords = map[string]struct {
	title, text, send string
	labels            []string
}{
	"en": {"SnowLuma message preview", "Message text", "Send", []string{"Message preview", "Type", "To", "Quotes",
		"Nothing is sent until you press Send. A failed or uncertain send is never retried; check QQ and draft again."}},
	"zh-CN": {"SnowLuma 消息预览", "消息正文", "发送", []string{"消息预览", "类型", "发给", "引用",
		"按下“发送”之前什么都不会发出。发送失败或结果不明时绝不重试；请先在 QQ 里查看，再重新起草。"}},
}

// checkPanelLanguages: the panel speaks the host's locale when the host
// gives one (Chinese for a zh one, English for any other), else the
// server's SNOWLUMA_MCP_LANG, else English; every word of its own is in
// that language, the draft and SnowLuma's wording stay as they are, and a
// host switching language rewords the panel, its outcome included.
func checkPanelLanguages(t *testing.T, runs map[string]panelRun, wording string) {
	t.Helper()
	// The language of each scenario's panel before any switch.
	for name, want := range map[string]string{
		"keyboard": "en", "double": "en", // host en-US
		"failure": "en", "timeout": "en", "read": "en", // no host locale, server default
		"no-server-tools":  "en",    // host fr-FR beats server zh
		"zh-host":          "zh-CN", // host zh-CN, server default
		"zh-server":        "zh-CN", // no host locale, server zh
		"host-over-server": "en",    // host en-GB beats server zh
	} {
		r := runs[name]
		for when, l := range map[string]panelLook{"before": r.Before, "after": r.After} {
			w := panelWords[want]
			if l.Lang != want || l.Title != w.title || l.TextLabel != w.text || !slices.Equal(l.Labels, w.labels) {
				t.Errorf("%s %s: lang %q, title %q, text label %q, labels %q; want %s", name, when, l.Lang, l.Title, l.TextLabel, l.Labels, want)
			}
		}
		if w := panelWords[want]; r.Before.SendLabel != w.send {
			t.Errorf("%s: Send labelled %q, want %q", name, r.Before.SendLabel, w.send)
		}
	}

	zh := runs["zh-host"]
	if zh.Before.Type != "群消息" || zh.Before.Target != "群 20001" || zh.Before.Reply == nil || *zh.Before.Reply != "消息 -123456" {
		t.Errorf("zh-host: type %q, target %q, reply %v", zh.Before.Type, zh.Before.Target, zh.Before.Reply)
	}
	expectOutcome(t, zh, "success", "已发送：SnowLuma 已接受，消息 ID -123456。这不能证明 QQ 已送达或已显示。")
	if zh.After.Reason != "此面板已尝试过一次，不会再试；要再发一条，请重新起草。" {
		t.Errorf("zh-host: reason after sending %q", zh.After.Reason)
	}

	// The server's language reaches a panel the host gives no locale, with
	// the reason it cannot send worded in it.
	zs := runs["zh-server"]
	if zs.Before.Type != "私聊消息" || zs.Before.Target != "QQ 用户 30001" ||
		!zs.Before.SendDisabled || !strings.HasPrefix(zs.Before.Reason, "此服务器以只读模式（read）运行，不能发送") || !strings.Contains(zs.Before.Reason, "SNOWLUMA_MCP_MODE=write") {
		t.Errorf("zh-server: type %q, target %q, disabled %v, reason %q", zs.Before.Type, zs.Before.Target, zs.Before.SendDisabled, zs.Before.Reason)
	}
	if len(zs.Relayed) != 0 || zs.Final.Status != "" {
		t.Errorf("zh-server: %d calls relayed, status %q", len(zs.Relayed), zs.Final.Status)
	}
	if r := runs["no-server-tools"]; !strings.Contains(r.Before.Reason, "cannot call server tools") {
		t.Errorf("no-server-tools (fr-FR host): reason %q", r.Before.Reason)
	}

	// A host switching to Chinese after the outcome: the labels, the
	// outcome and the reason follow; Send stays disabled and nothing more
	// is relayed.
	for name, says := range map[string]string{
		"host-over-server": "未发送：SnowLuma 答复：" + wording + "（retcode 120）。",
		"timeout":          "结果不明：再次发送之前，请先在 QQ 里查看。",
	} {
		r := runs[name]
		w := panelWords["zh-CN"]
		s := r.Switched
		if s.Lang != "zh-CN" || !slices.Equal(s.Labels, w.labels) || s.Type != "群消息" || s.Text != hostile {
			t.Errorf("%s switched: lang %q, labels %q, type %q, text %q", name, s.Lang, s.Labels, s.Type, s.Text)
		}
		if !strings.HasPrefix(s.Status, says) || s.StatusKind != r.After.StatusKind || !s.SendDisabled || len(r.Relayed) != 1 {
			t.Errorf("%s switched: status %s %q (want %q), disabled %v, %d relayed", name, s.StatusKind, s.Status, says, s.SendDisabled, len(r.Relayed))
		}
	}
	if r := runs["host-over-server"]; !strings.HasPrefix(r.After.Status, "Not sent: SnowLuma said: "+wording) {
		t.Errorf("host-over-server: status before the switch %q", r.After.Status)
	}
}

// sandboxGroup is the number of the group the bot owns in the sandbox's
// world of seed: the fake's world is the sandbox's, seed for seed.
func sandboxGroup(t *testing.T, seed uint64) int64 {
	t.Helper()
	w := simtest.Start(t, simulator.WithWorld(seed))
	for _, g := range w.WorldGroups() {
		if g.Role == "owner" {
			return g.ID
		}
	}
	t.Fatal("the world has no group the bot owns")
	return 0
}
