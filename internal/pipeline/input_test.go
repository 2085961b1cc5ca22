package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// formClient is a client with forms that carries a continuation and an
// answer to the form named key.
type formClient struct {
	state  string
	key    string
	answer *Answer
}

func (formClient) Forms() bool                                       { return true }
func (f formClient) RequestState() string                            { return f.state }
func (formClient) Progress(context.Context) func(int64, int64) error { return nil }
func (formClient) Ledger() *untrusted.Ledger                         { return nil }
func (f formClient) Answer(key string) *Answer {
	if key != f.key {
		return nil
	}
	return f.answer
}

// TestRunWithInputAuditsEveryRefusal: the second round of a *_with_input
// write refuses an answer that was never given, or whose params break the
// action's schema (checked once, by Run's params step, and reported as
// the answer's), and writes an audit line for each, as Run does for its
// own refusals; nothing reaches SnowLuma until a good answer runs the
// action, which is audited too.
func TestRunWithInputAuditsEveryRefusal(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t)
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New(seal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	auditFile := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := safety.OpenAudit(auditFile)
	if err != nil {
		t.Fatal(err)
	}
	b := &backend.Backend{Client: client, Safety: &safety.Policy{Sensitive: safety.SensitiveDeny, Confirm: safety.ConfirmNone,
		Pacer: safety.NewPacer(0, 0, nil), Audit: audit}}
	x := New(Options{Backend: b, Catalog: catalog.Preload(), Sealer: sealer})
	a, _, _ := x.lookup("delete_msg")
	args := json.RawMessage(`{"action":"delete_msg","params":{}}`)
	plan := Plan{Action: a, Params: json.RawMessage(`{}`)}

	// ask runs the first round and returns its state and the form.
	ask := func() (string, outcome.Form) {
		t.Helper()
		r := x.RunWithInput(context.Background(), &Call{Tool: "invoke_action_with_input", Args: args, Client: formClient{}}, plan)
		if r.Input == nil || r.Input.State == "" {
			t.Fatalf("first round: %+v", r)
		}
		return r.Input.State, r.Input.Forms[paramsKey]
	}
	answer := func(ans *Answer) outcome.Reply {
		state, _ := ask()
		c := &Call{Tool: "invoke_action_with_input", Args: args, Client: formClient{state: state, key: paramsKey, answer: ans}}
		resumed := plan
		resumed.Answers = true
		return x.RunWithInput(context.Background(), c, resumed)
	}

	if _, form := ask(); form.Schema["properties"].(map[string]any)["message_id"] == nil {
		t.Errorf("the form does not ask for message_id: %+v", form)
	}
	for _, tc := range []struct {
		name string
		ans  *Answer
		kind outcome.Kind
	}{
		{"expired", &Answer{Action: "cancel", Unanswered: Expired}, outcome.KindContinuation},
		{"cancelled", &Answer{Action: "cancel", Unanswered: Cancelled}, outcome.KindCancelled},
		// The form cannot say "not 0": the schema check says it.
		{"misfit", &Answer{Action: "accept", Content: map[string]any{"message_id": float64(0)}}, outcome.KindInvalidAnswer},
	} {
		r := answer(tc.ans)
		if r.Diag.Kind != tc.kind || !r.IsError {
			t.Errorf("%s: %+v", tc.name, r.Diag)
		}
		if tc.name == "misfit" && !strings.Contains(r.Diag.Message, "does not fit the action's schema") {
			t.Errorf("misfit: %q", r.Diag.Message)
		}
	}
	if got := fake.Requests(); len(got) != 0 {
		t.Fatalf("SnowLuma received %+v before a good answer", got)
	}
	answer(&Answer{Action: "accept", Content: map[string]any{"message_id": float64(123)}})
	if got := fake.Requests(); len(got) == 0 || got[0].Action != "delete_msg" || string(got[0].Params) != `{"message_id":123}` {
		t.Errorf("SnowLuma received %+v", got)
	}

	data, err := os.ReadFile(auditFile)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for line := range strings.Lines(string(data)) {
		var rec safety.Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		kinds = append(kinds, rec.Outcome+"/"+rec.Kind)
	}
	want := "failed/continuation failed/cancelled failed/invalid_answer"
	if len(kinds) != 4 || strings.Join(kinds[:3], " ") != want {
		t.Errorf("audit lines %q, want %q", strings.Join(kinds, " "), want)
	}
}
