package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// connClient is a client without forms on one connection, whose ledger
// it holds.
type connClient struct{ ledger *untrusted.Ledger }

func (connClient) Forms() bool                                       { return false }
func (connClient) RequestState() string                              { return "" }
func (connClient) Answer(string) *Answer                             { return nil }
func (connClient) Progress(context.Context) func(int64, int64) error { return nil }
func (c connClient) Ledger() *untrusted.Ledger                       { return c.ledger }

// TestSendGateStep: the gate is a step of Run. A read of group 1's history
// arms the connection that made it, and a connection made after it (the
// record outlives a connection: a reconnect inherits it); then a send to
// group 2 is refused (refuse) on either, a send to group 1 runs, and the
// server's own calls (no connection) pass; a client without forms and without approvers cannot
// confirm (confirm); off runs everything.
func TestSendGateStep(t *testing.T) {
	t.Parallel()
	for _, mode := range []untrusted.Mode{untrusted.ModeRefuse, untrusted.ModeConfirm, untrusted.ModeOff} {
		fake := simtest.Start(t)
		fake.Handle("get_group_msg_history", func(json.RawMessage) simulator.Reply { return simulator.OK(json.RawMessage(`{"messages":[]}`)) })
		client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
		if err != nil {
			t.Fatal(err)
		}
		sealer, err := seal.New(seal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := &backend.Backend{Client: client, UntrustedSends: mode, Provenance: &untrusted.Registry{},
			Safety: &safety.Policy{Sensitive: safety.SensitiveDeny, Confirm: safety.ConfirmNone, Pacer: safety.NewPacer(0, 0, nil)}}
		x := New(Options{Backend: b, Catalog: catalog.Preload(), Sealer: sealer})
		a := &Call{Tool: "t", Client: connClient{b.Provenance.For("a")}}
		if r := x.Read(context.Background(), a, "get_group_msg_history", json.RawMessage(`{"group_id":1}`)); r.Diag.Outcome != outcome.OutcomeSuccess {
			t.Fatalf("read: %+v", r.Diag)
		}
		// The later connection's ledger is made after the read, from the
		// registry's record, as the server makes one for a new session.
		b2 := &Call{Tool: "t", Client: connClient{b.Provenance.For("b")}}
		send := func(c *Call, group string) outcome.Reply {
			a, _, _ := x.lookup("send_group_msg")
			return x.Run(context.Background(), c, Plan{Action: a, Params: json.RawMessage(`{"group_id":` + group + `,"message":"hi"}`)})
		}
		gated := map[untrusted.Mode]outcome.Kind{untrusted.ModeRefuse: outcome.KindUntrustedContext, untrusted.ModeConfirm: outcome.KindUntrustedContext}[mode]
		if r := send(a, "2"); r.Diag.Kind != gated || (gated != "" && !strings.Contains(r.Diag.Message, "from group:1")) {
			t.Errorf("%s: send to group 2 after reading group 1: %+v", mode, r.Diag)
		}
		if mode == untrusted.ModeConfirm && !strings.Contains(send(a, "2").Diag.Message, "no form and no QQ approver") {
			t.Errorf("confirm without a way to ask: %+v", send(a, "2").Diag)
		}
		if r := send(b2, "2"); r.Diag.Kind != gated {
			t.Errorf("%s: send to group 2 on a later connection: %+v", mode, r.Diag)
		}
		for _, c := range []*Call{a, b2, {Tool: "channel"}} {
			group := "1"
			if c.Client == nil {
				group = "2" // the server's own call
			}
			if r := send(c, group); r.Diag.Outcome != outcome.OutcomeSuccess {
				t.Errorf("%s: send to group %s by %+v: %+v", mode, group, c.Client, r.Diag)
			}
		}
	}
}

// TestGateTextReasons: the form says each of the gate's reasons in the
// person's language, the public write and the carried message included.
func TestGateTextReasons(t *testing.T) {
	t.Parallel()
	d := untrusted.Decision{Armed: true, Read: []untrusted.Chat{untrusted.GroupChat(1)}, Reasons: []untrusted.Reason{
		{Kind: untrusted.Public},
		{Kind: untrusted.Carries, Detail: "22", Chats: []untrusted.Chat{untrusted.GroupChat(2)}},
	}}
	en, zh := gateText(lang.En, d), gateText(lang.Zh, d)
	if !strings.Contains(en, "publishes what it carries outside any chat") || !strings.Contains(en, "carries message 22 of group 2") {
		t.Errorf("en: %s", en)
	}
	if !strings.Contains(zh, "公开发布") || !strings.Contains(zh, "会带出消息 22（来自群 2）") {
		t.Errorf("zh: %s", zh)
	}
}
