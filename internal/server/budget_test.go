package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/prompts"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// definitionBudget is the most bytes a tool definition may take on
// average, in every mode and for every client: the definitions are loaded
// into the context of every session a client opens.
const definitionBudget = 1024

// TestDefinitionBudget lists the tools for every mode (with every optional
// service configured in read and write modes: events, tasks) and every
// client capability set, and fails when the definitions, as the server
// writes them, average more than definitionBudget bytes a tool, or when an
// output schema gives a property a list of types (MCP Inspector warns on
// those, and some clients refuse them).
func TestDefinitionBudget(t *testing.T) {
	t.Parallel()
	forms := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	apps := &mcp.ClientCapabilities{Extensions: map[string]any{appsExtension: map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}}
	withTasks := &mcp.ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}}
	every := &mcp.ClientCapabilities{
		Elicitation: forms.Elicitation,
		Extensions:  map[string]any{TasksExtension: map[string]any{}, appsExtension: apps.Extensions[appsExtension]},
	}
	for _, mode := range []config.Mode{config.ModeDocs, config.ModeRead, config.ModeWrite} {
		for _, cs := range []struct {
			name string
			caps *mcp.ClientCapabilities
		}{{"plain", nil}, {"forms", forms}, {"apps", apps}, {"tasks", withTasks}, {"every feature", every}} {
			t.Run(fmt.Sprintf("%s/%s", mode, cs.name), func(t *testing.T) {
				b := &backend.Backend{}
				opts := Options{Catalog: sharedCatalog, Mode: mode, Backend: b}
				if mode != config.ModeDocs {
					c, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
					if err != nil {
						t.Fatal(err)
					}
					b.Client = c
					// Nothing connects: no call subscribes.
					b.Events = events.New(events.Options{URL: "ws://127.0.0.1:9/event"})
					t.Cleanup(b.Events.Close)
				}
				if mode == config.ModeWrite {
					b.Tasks = taskRunner(t)
				}
				s, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				res, err := connect(t, s, &mcp.ClientOptions{Capabilities: cs.caps}).ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				wire, err := mcpseam.PlainJSON(res.Tools)
				if err != nil {
					t.Fatal(err)
				}
				n := len(res.Tools)
				if n == 0 || len(wire) > definitionBudget*n {
					t.Errorf("%d tools take %d bytes, %d a tool: over the budget of %d a tool", n, len(wire), len(wire)/max(n, 1), definitionBudget)
				}
				t.Logf("%d tools, %d bytes, %d a tool", n, len(wire), len(wire)/max(n, 1))
				for _, tool := range res.Tools {
					var schema any
					b, err := json.Marshal(tool.OutputSchema)
					if err != nil || json.Unmarshal(b, &schema) != nil {
						t.Fatalf("%s: output schema %s: %v", tool.Name, b, err)
					}
					if where := typeList(schema, "outputSchema"); where != "" {
						t.Errorf("%s: %s is a list of types", tool.Name, where)
					}
				}
			})
		}
	}
}

// typeList returns the path of the first "type" in schema whose value is
// an array, or "".
func typeList(schema any, path string) string {
	switch v := schema.(type) {
	case map[string]any:
		if _, isList := v["type"].([]any); isList {
			return path + "/type"
		}
		for k, sub := range v {
			if where := typeList(sub, path+"/"+k); where != "" {
				return where
			}
		}
	case []any:
		for i, sub := range v {
			if where := typeList(sub, fmt.Sprintf("%s/%d", path, i)); where != "" {
				return where
			}
		}
	}
	return ""
}

// hostListBudget is the most bytes the tool list may take as Claude Code
// hands it to a model, with every feature of the server on: Claude Code
// passes only each tool's name, description and input schema (outputSchema
// and annotations stay with the host: anthropics/claude-code#54197).
const hostListBudget = 8 << 10

// TestHostListBudget lists the tools of a write-mode server with every
// optional service configured (events, tasks, the archive) to a client
// declaring what Claude Code declares (form elicitation, since 2.1.76; no
// Tasks extension, no MCP Apps), and fails when their names, descriptions
// and input schemas, as compact JSON, pass hostListBudget. It logs the
// same for a client with every capability, which also sees the two task
// tools.
func TestHostListBudget(t *testing.T) {
	t.Parallel()
	forms := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	every := &mcp.ClientCapabilities{Elicitation: forms.Elicitation, Extensions: map[string]any{TasksExtension: map[string]any{}}}
	for _, c := range []struct {
		name   string
		caps   *mcp.ClientCapabilities
		tools  int
		budget int
	}{{"Claude Code", forms, 18, hostListBudget}, {"every capability", every, 20, 0}} {
		tools, err := definitions(config.ModeWrite, t.TempDir(), c.caps)
		if err != nil {
			t.Fatal(err)
		}
		n, whole := hostBytes(t, tools)
		if len(tools) != c.tools {
			t.Errorf("%s: %d tools, want %d: is every feature on?", c.name, len(tools), c.tools)
		}
		if c.budget > 0 && n > c.budget {
			t.Errorf("%s: %d tools as the host passes them take %d bytes, over the budget of %d", c.name, len(tools), n, c.budget)
		}
		t.Logf("%s: %d tools, %d bytes as a host passes them, %d whole", c.name, len(tools), n, whole)
		// Two bots: each tool that reaches SnowLuma gains the bot argument.
		two, err := botDefinitions(config.ModeWrite, t.TempDir(), c.caps, []string{"alt"})
		if err != nil {
			t.Fatal(err)
		}
		n2, whole2 := hostBytes(t, two)
		if len(two) != len(tools) || n2 <= n {
			t.Errorf("%s with two bots: %d tools, %d bytes; one bot: %d tools, %d bytes", c.name, len(two), n2, len(tools), n)
		}
		t.Logf("%s, two bots: %d bytes as a host passes them (+%d), %d whole", c.name, n2, n2-n, whole2)
	}
}

// hostBytes returns the bytes of tools as a host that passes only name,
// description and input schema sends them, and as the server lists them.
func hostBytes(t *testing.T, tools []*mcp.Tool) (host, whole int) {
	t.Helper()
	type seen struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema any    `json:"inputSchema"`
	}
	list := make([]seen, len(tools))
	for i, tool := range tools {
		list[i] = seen{tool.Name, tool.Description, tool.InputSchema}
	}
	b, err := mcpseam.PlainJSON(list)
	if err != nil {
		t.Fatal(err)
	}
	all, err := mcpseam.PlainJSON(tools)
	if err != nil {
		t.Fatal(err)
	}
	return len(b), len(all)
}

// TestInstructionsEveryConfiguration builds the features of every
// configuration that changes the server's instructions (mode; events;
// confirmation; the archive; the QQ channel, with and without approvers;
// the sandbox; the dry run), as New does, and fails when the instructions
// of any pass prompts.MaxInstructions or leave out what every session
// needs: the route to an action, the failure kinds, and that QQ users'
// text is data.
func TestInstructionsEveryConfiguration(t *testing.T) {
	t.Parallel()
	hub := events.New(events.Options{URL: "ws://127.0.0.1:9/event"})
	t.Cleanup(hub.Close)
	client, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
	if err != nil {
		t.Fatal(err)
	}
	approvers, _ := safety.ParseIDs("30002")
	longest, configs := "", 0
	for _, mode := range []config.Mode{config.ModeDocs, config.ModeRead, config.ModeWrite} {
		for bits := range 1 << 6 {
			ev, confirm, arch, sandbox, dry := bits&1 != 0, bits&2 != 0, bits&4 != 0, bits&8 != 0, bits&16 != 0
			for _, ch := range []string{"off", "on", "approvers"} {
				if mode == config.ModeDocs && (ev || arch || ch != "off") || ch != "off" && !ev || bits&32 != 0 && mode != config.ModeWrite {
					continue // not a configuration: no such server starts
				}
				b := &backend.Backend{Sandbox: sandbox, DryRun: dry}
				if mode != config.ModeDocs {
					b.Client = client
					withStores(t, b)
				}
				if bits&32 != 0 {
					b.Tasks = taskRunner(t)
				}
				if ev {
					b.Events = hub
				}
				if confirm {
					b.Safety = &safety.Policy{Sensitive: safety.SensitiveDeny, Confirm: safety.ConfirmDestructive}
				}
				if arch {
					b.ArchivePath, b.ArchiveProblem = filepath.Join(t.TempDir(), "archive.db"), errors.New("not opened")
				}
				opts := Options{Catalog: sharedCatalog, Mode: mode, Backend: b}
				if ch != "off" {
					b.Channel = &channel.Config{Mode: channel.ModeAll}
					if ch == "approvers" {
						b.Channel.Approvers = approvers
					}
					opts.Channel = &recordingWire{}
				}
				d, err := newDeps(opts)
				if err != nil {
					t.Fatal(err)
				}
				fs, err := features(d)
				if err != nil {
					t.Fatal(err)
				}
				text := instructions(fs)
				configs++
				about := fmt.Sprintf("%s mode, events %v, confirm %v, archive %v, tasks %v, channel %s, sandbox %v, dry run %v", mode, ev, confirm, arch, bits&32 != 0, ch, sandbox, dry)
				if len(text) > prompts.MaxInstructions {
					t.Errorf("%s: %d bytes, over %d: %s", about, len(text), prompts.MaxInstructions, text)
				}
				for _, want := range []string{"search_actions", "get_action", toolkit.KindsURI, "never as instructions"} {
					if !strings.Contains(text, want) {
						t.Errorf("%s: no %q in %s", about, want, text)
					}
				}
				if len(text) > len(longest) {
					longest = text
				}
			}
		}
	}
	t.Logf("%d configurations; the longest instructions, %d bytes: %s", configs, len(longest), longest)
}
