package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// The Claude Code plugin of the channel (.claude-plugin/marketplace.json,
// plugins/snowluma-channel), checked against the shapes of Claude Code's
// plugin manifest and marketplace references
// (https://code.claude.com/docs/en/plugins/manifest-reference,
// https://code.claude.com/docs/en/plugin-marketplaces) and its channels
// page's managed settings (https://code.claude.com/docs/en/channels):
// `claude plugin validate` of Claude Code 2.1.332 passes both manifests,
// and these tests keep what it checked, plus what it cannot know (the
// variables are this server's, the server starts as the manifest says).

type pluginManifest struct {
	Name        string                                `json:"name"`
	Version     string                                `json:"version"`
	Description string                                `json:"description"`
	UserConfig  map[string]map[string]json.RawMessage `json:"userConfig"`
	MCPServers  map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	} `json:"mcpServers"`
	Channels []map[string]json.RawMessage `json:"channels"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// channelPlugin reads the marketplace and its one plugin's manifest,
// checking their shapes.
func channelPlugin(t *testing.T) (marketplace string, m pluginManifest) {
	t.Helper()
	root := repoRoot(t)
	var mk struct {
		Name  string `json:"name"`
		Owner struct {
			Name string `json:"name"`
		} `json:"owner"`
		Plugins []struct {
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"plugins"`
	}
	readJSON(t, filepath.Join(root, ".claude-plugin", "marketplace.json"), &mk)
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	if !kebab.MatchString(mk.Name) || mk.Owner.Name == "" || len(mk.Plugins) != 1 {
		t.Fatalf("marketplace.json: name %q, owner %q, %d plugins", mk.Name, mk.Owner.Name, len(mk.Plugins))
	}
	entry := mk.Plugins[0]
	if !strings.HasPrefix(entry.Source, "./") || strings.Contains(entry.Source, "..") {
		t.Fatalf("marketplace.json: source %q is not a path inside the marketplace", entry.Source)
	}
	readJSON(t, filepath.Join(root, filepath.FromSlash(entry.Source), ".claude-plugin", "plugin.json"), &m)
	if m.Name != entry.Name || !kebab.MatchString(m.Name) || m.Version == "" || m.Description == "" {
		t.Fatalf("plugin.json: name %q (marketplace entry %q), version %q", m.Name, entry.Name, m.Version)
	}
	// userConfig options: identifier keys, strict objects with a type,
	// title and description.
	known := []string{"type", "title", "description", "required", "default", "multiple", "sensitive", "min", "max", "options"}
	for key, opt := range m.UserConfig {
		if !regexp.MustCompile(`^[A-Za-z_]\w*$`).MatchString(key) {
			t.Errorf("userConfig key %q is not an identifier", key)
		}
		for k := range opt {
			if !slices.Contains(known, k) {
				t.Errorf("userConfig.%s has the unknown key %q (options are strict)", key, k)
			}
		}
		var typ string
		json.Unmarshal(opt["type"], &typ)
		if !slices.Contains([]string{"string", "number", "boolean", "directory", "file"}, typ) || opt["title"] == nil || opt["description"] == nil {
			t.Errorf("userConfig.%s: type %q, title and description needed", key, typ)
		}
	}
	// channels: strict entries naming one of the plugin's servers.
	if len(m.Channels) != 1 {
		t.Fatalf("plugin.json declares %d channels", len(m.Channels))
	}
	for k := range m.Channels[0] {
		if !slices.Contains([]string{"server", "displayName", "userConfig"}, k) {
			t.Errorf("channels[0] has the unknown key %q (entries are strict)", k)
		}
	}
	var server string
	json.Unmarshal(m.Channels[0]["server"], &server)
	if _, ok := m.MCPServers[server]; !ok || len(m.MCPServers) != 1 {
		t.Fatalf("the channel binds to %q, not the plugin's one server (%d)", server, len(m.MCPServers))
	}
	// The server's environment: this server's variables, each option it
	// names declared with a default or required (Claude Code refuses to
	// start a server whose option is not set).
	vars := map[string]bool{}
	for _, v := range config.Variables() {
		vars[v.Name] = true
	}
	ref := regexp.MustCompile(`\$\{user_config\.([^}]+)\}`)
	for name, v := range m.MCPServers[server].Env {
		if !vars[name] {
			t.Errorf("env %s is not a variable of snowluma-mcp", name)
		}
		for _, r := range ref.FindAllStringSubmatch(v, -1) {
			opt, ok := m.UserConfig[r[1]]
			if !ok || (opt["default"] == nil && string(opt["required"]) != "true") {
				t.Errorf("env %s names the option %q, which is not declared with a default or as required", name, r[1])
			}
		}
	}
	return mk.Name, m
}

// TestPluginManifest: the manifests have the shapes Claude Code reads, and
// the managed settings beside the plugin allow exactly it.
func TestPluginManifest(t *testing.T) {
	t.Parallel()
	marketplace, m := channelPlugin(t)
	var managed struct {
		ChannelsEnabled       bool `json:"channelsEnabled"`
		AllowedChannelPlugins []struct {
			Marketplace string `json:"marketplace"`
			Plugin      string `json:"plugin"`
		} `json:"allowedChannelPlugins"`
		ExtraKnownMarketplaces map[string]struct {
			Source struct {
				Source string `json:"source"`
				Repo   string `json:"repo"`
			} `json:"source"`
		} `json:"extraKnownMarketplaces"`
	}
	readJSON(t, filepath.Join(repoRoot(t), "plugins", m.Name, "managed-settings.json"), &managed)
	a := managed.AllowedChannelPlugins
	if !managed.ChannelsEnabled || len(a) != 1 || a[0].Marketplace != marketplace || a[0].Plugin != m.Name {
		t.Errorf("managed settings %+v do not allow %s@%s", managed, m.Name, marketplace)
	}
	if src := managed.ExtraKnownMarketplaces[marketplace].Source; src.Source != "github" || src.Repo == "" {
		t.Errorf("managed settings name no source for the marketplace %s: %+v", marketplace, managed.ExtraKnownMarketplaces)
	}
}

// TestPluginStartsServer: the server starts as the manifest says (its
// command, with the options an operator filled in) and is the channel:
// it declares claude/channel and claude/channel/permission, follows the
// account, declines server/discover, and pushes an at-mention.
func TestPluginStartsServer(t *testing.T) {
	t.Parallel()
	_, m := channelPlugin(t)
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	options := map[string]string{"endpoint": fake.URL, "token": e2e.SecretToken, "events_url": fake.EventsURL(),
		"groups": "20001", "approvers": "30002"}
	var s struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	for _, v := range m.MCPServers {
		s = v
	}
	if s.Command != "snowluma-mcp" || len(s.Args) != 0 {
		t.Fatalf("the plugin starts %q %v, not the snowluma-mcp on PATH", s.Command, s.Args)
	}
	var env []string
	for name, v := range s.Env {
		v = regexp.MustCompile(`\$\{user_config\.([^}]+)\}`).ReplaceAllStringFunc(v, func(ref string) string {
			key := strings.TrimSuffix(strings.TrimPrefix(ref, "${user_config."), "}")
			if o, ok := options[key]; ok {
				return o
			}
			var def any
			json.Unmarshal(m.UserConfig[key]["default"], &def)
			return fmt.Sprint(def)
		})
		env = append(env, name+"="+v)
	}
	p := mcptest.SpawnArgs(t, plainBinary(t), mcptest.Legacy, nil, env...)
	raw, _ := e2e.RawSession(t, p, mcptest.Legacy, "{}")
	if r := raw.Call(1, "server/discover", `{"_meta":`+mcptest.ModernMeta("2026-07-28")+`}`); r["error"] == nil {
		t.Errorf("server/discover offered with the channel on: %v", r)
	}
	if got := strings.Join(p.Received(), "\n"); !strings.Contains(got, `"claude/channel":{}`) || !strings.Contains(got, `"claude/channel/permission":{}`) {
		t.Fatalf("initialize declared no channel:\n%s", got)
	}
	conn := simtest.EventConn(t, fake, 0)
	frame := fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"message","message_type":"group","sub_type":"normal","message_id":7,"group_id":20001,"user_id":30005,"message":[{"type":"at","data":{"qq":"%d"}},{"type":"text","data":{"text":" 插件"}}],"raw_message":"","font":0,"sender":{"user_id":30005,"nickname":"n","card":"","role":"member"}}`, simulator.SelfID, simulator.SelfID)
	e2e.WaitFor(t, "the channel following the account", func() bool { return strings.Contains(p.Stderr(), "channel: following account") })
	if err := conn.Send(frame); err != nil {
		t.Fatal(err)
	}
	for {
		msg := raw.Next()
		if msg["method"] == "notifications/claude/channel" {
			if c := msg["params"].(map[string]any)["content"]; c != "[@我] 插件" {
				t.Errorf("push %v", msg)
			}
			break
		}
	}
}
