package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// dryRunEnv is a write-mode server on fake under SNOWLUMA_MCP_DRY_RUN, with
// an audit file, an upload root holding one file and no pacing, so that
// every write action can be tried in a row.
func dryRunEnv(t *testing.T, fake *simulator.Server) (env []string, audit, input string) {
	t.Helper()
	dir := t.TempDir()
	audit = filepath.Join(dir, "audit.jsonl")
	root := filepath.Join(dir, "uploads")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	input = filepath.Join(root, "报名表.txt")
	if err := os.WriteFile(input, []byte("张三、李四\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_MODE=write",
		"SNOWLUMA_MCP_DRY_RUN=true", "SNOWLUMA_MCP_AUDIT_FILE=" + audit, "SNOWLUMA_MCP_UPLOAD_ROOT=" + root,
		"SNOWLUMA_MCP_DOWNLOAD_DIR=" + filepath.Join(dir, "downloads"), "SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=0",
		"SNOWLUMA_MCP_SEND_PER_MINUTE=0", "SNOWLUMA_MCP_TASK_DIR=" + filepath.Join(dir, "tasks")}, audit, input
}

// sentWrites lists the requests fake received for actions that are not
// read-only: under a dry run there must be none.
func sentWrites(fake *simulator.Server, cat *catalog.Catalog) []string {
	var out []string
	for _, r := range fake.Requests() {
		if a, ok := cat.Lookup(r.Action); !ok || !a.ReadOnly {
			out = append(out, r.Method+" "+r.Path+" "+r.Action)
		}
	}
	return out
}

// dryRunAnswer is result.dry_run of a dry run's answer.
type dryRunAnswer struct {
	DryRun *struct {
		Action    string  `json:"action"`
		Groups    []int64 `json:"groups"`
		Users     []int64 `json:"users"`
		InputFile string  `json:"input_file"`
	} `json:"dry_run"`
}

// TestDryRunSendsNoWrite: in both eras, with SNOWLUMA_MCP_DRY_RUN, every
// write action of the catalog called through invoke_action (its first
// example's params), the *_with_input variant and an automatic upload pass
// the checks and are answered with kind dry_run naming the action and its
// targets, or are refused as they would be; SnowLuma receives none of
// them (the fake's log shows it), each is audited as a dry run, and reads
// still reach SnowLuma and answer.
func TestDryRunSendsNoWrite(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(5))
		env, audit, input := dryRunEnv(t, fake)
		// The group list read below hands the model the world's group
		// names, which arms the send gate (issue 49) against the examples'
		// groups; the gate is not what this test is about.
		env = append(env, "SNOWLUMA_MCP_UNTRUSTED_SENDS=off")
		p := serve(t, era, env...)
		t.Cleanup(func() { e2e.NoLeak(t, p) })
		// Forms, for invoke_action_with_input below; a dry run asks nothing.
		cs := p.Connect(&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}})

		// A read goes through and answers from SnowLuma.
		_, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_group_list"})
		if r.Diagnostics.Outcome != "success" || !strings.Contains(string(r.Result), `"group_name"`) || len(fake.Requests()) != 1 {
			t.Fatalf("a read in a dry run: %+v %s (%d requests)", r.Diagnostics, r.Result, len(fake.Requests()))
		}
		_, r = mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
		if info := mcptest.Decode[struct {
			DryRun  bool `json:"dry_run"`
			Sandbox bool `json:"sandbox"`
		}](t, r.Result); !info.DryRun || info.Sandbox {
			t.Errorf("get_runtime_info: %s", r.Result)
		}

		dry, refused := 0, map[string]int{}
		for _, a := range cat.Actions() {
			if a.ReadOnly {
				continue
			}
			params := json.RawMessage(`{}`)
			if len(a.Examples) > 0 {
				params = a.Examples[0].Params
			}
			_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": a.Name, "params": params})
			if r.Diagnostics.Kind != "dry_run" {
				if r.Diagnostics.Outcome != "failed" {
					t.Errorf("%s: %+v %s", a.Name, r.Diagnostics, r.Result)
				}
				refused[r.Diagnostics.Kind]++
				continue
			}
			dry++
			got := mcptest.Decode[dryRunAnswer](t, r.Result)
			if r.Diagnostics.Outcome != "success" || got.DryRun == nil || got.DryRun.Action != a.Name || strings.Contains(string(r.Result), "message_id") {
				t.Errorf("%s: dry run answered %+v %s", a.Name, r.Diagnostics, r.Result)
			}
			if a.Name == "set_group_kick" && (fmt.Sprint(got.DryRun.Groups) != "[20001]" || fmt.Sprint(got.DryRun.Users) != "[30001]") {
				t.Errorf("set_group_kick's targets: %s (params %s)", r.Result, params)
			}
		}
		// Almost every write action has an example that passes its
		// checks; a credential action is refused by the fence.
		if dry < 100 {
			t.Errorf("only %d write actions answered dry_run; refused: %v", dry, refused)
		}

		_, r = mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi"}})
		if r.Diagnostics.Kind != "dry_run" {
			t.Errorf("invoke_action_with_input: %+v", r.Diagnostics)
		}
		_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "upload_file_stream", "params": map[string]any{},
			"execution": map[string]any{"input_file": input}})
		if got := mcptest.Decode[dryRunAnswer](t, r.Result); r.Diagnostics.Kind != "dry_run" || got.DryRun == nil || got.DryRun.InputFile != input {
			t.Errorf("automatic upload: %+v %s", r.Diagnostics, r.Result)
		}
		_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "upload_file_stream", "params": map[string]any{},
			"execution": map[string]any{"input_file": filepath.Join(filepath.Dir(input), "..", "audit.jsonl")}})
		if r.Diagnostics.Outcome != "failed" || r.Diagnostics.Kind != "path_refused" {
			t.Errorf("an upload from outside the root: %+v", r.Diagnostics)
		}
		_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "set_group_kick", "params": map[string]any{"group_id": "x"}})
		if r.Diagnostics.Kind != "invalid_params" {
			t.Errorf("bad params in a dry run: %+v", r.Diagnostics)
		}

		if sent := sentWrites(fake, cat); len(sent) > 0 {
			t.Errorf("a dry run sent %d writes to SnowLuma: %v", len(sent), sent)
		}
		lines := e2e.AuditLines(t, audit)
		audited := 0
		for _, l := range lines {
			if l["dry_run"] != true {
				t.Errorf("audit line without dry_run: %v", l)
			}
			if l["kind"] == "dry_run" && l["outcome"] == "success" {
				audited++
			}
		}
		if audited != dry+2 {
			t.Errorf("%d dry-run audit lines for %d dry-run answers", audited, dry+2)
		}
		// The binary writes its call lines from a queue, after the answers.
		e2e.WaitFor(t, "the dry runs' log lines", func() bool { return strings.Count(p.Stderr(), "kind=dry_run") >= dry+2 })
		if n := strings.Count(p.Stderr(), "kind=dry_run"); n != dry+2 {
			t.Errorf("%d log lines with kind=dry_run for %d dry-run answers", n, dry+2)
		}
	})
}

// TestDryRunBackground: a background transfer in a dry run completes as a
// dry run in its task, without reaching SnowLuma.
func TestDryRunBackground(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(5))
	env, _, _ := dryRunEnv(t, fake)
	p := serve(t, mcptest.Modern, env...)
	t.Cleanup(func() { e2e.NoLeak(t, p) })
	c := e2e.NewTaskClient(t, p)
	h := c.Start("download_file_stream", `{"file_id":"/0123"}`)
	end := c.Wait(h["taskId"].(string))
	sc, _ := end["result"].(map[string]any)["structuredContent"].(map[string]any)
	if end["status"] != "completed" || sc["diagnostics"].(map[string]any)["kind"] != "dry_run" || sc["result"].(map[string]any)["dry_run"] == nil {
		t.Errorf("the task ended %v", end)
	}
	if sent := sentWrites(fake, cat); len(sent) > 0 {
		t.Errorf("a background dry run sent %v", sent)
	}
}

// TestDryRunConfirmFirst: a destructive action in a dry run still asks the
// person first (a refusal stops it), and once confirmed it is answered as
// a dry run and not sent.
func TestDryRunConfirmFirst(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(5))
		env, _, _ := dryRunEnv(t, fake)
		c := &confirmer{}
		p := serve(t, era, append(env, "SNOWLUMA_MCP_CONFIRM=destructive")...)
		t.Cleanup(func() { e2e.NoLeak(t, p) })
		cs := p.Connect(&mcp.ClientOptions{ElicitationHandler: c.handle})
		c.answer(confirmAnswer(false))
		if _, r := mcptest.CallTool(t, cs, "invoke_action", kick); r.Diagnostics.Kind != "not_confirmed" || len(c.forms()) != 1 {
			t.Errorf("refused: %+v, %d forms", r.Diagnostics, len(c.forms()))
		}
		c.answer(confirmAnswer(true))
		if _, r := mcptest.CallTool(t, cs, "invoke_action", kick); r.Diagnostics.Kind != "dry_run" || r.Diagnostics.Outcome != "success" || len(c.forms()) != 1 {
			t.Errorf("confirmed: %+v, %d forms", r.Diagnostics, len(c.forms()))
		}
		if sent := sentWrites(fake, cat); len(sent) > 0 {
			t.Errorf("a confirmed dry run sent %v", sent)
		}
	})
}
