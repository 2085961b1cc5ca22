package toolkit

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

func echo(ctx context.Context, c *Call) outcome.Reply { return outcome.OK(json.RawMessage(c.Args)) }

func spec(name string, mut func(*Spec)) Spec {
	s := Spec{Name: name, Title: "T " + name, Description: "D " + name,
		Input:  `{"type":"object","properties":{"n":{"type":"integer","description":"a number"}},"additionalProperties":false}`,
		Output: `{"type":"object"}`, Needs: config.ModeDocs, Handler: echo}
	if mut != nil {
		mut(&s)
	}
	return s
}

func newServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
}

func TestRegisterRefusesBadSpecs(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name string
		spec Spec
		say  string
	}{
		{"input not an object", spec("a", func(s *Spec) { s.Input = `{"type":"string"}` }), "input schema"},
		{"input not JSON", spec("a", func(s *Spec) { s.Input = `{` }), "input schema"},
		{"property schema broken", spec("a", func(s *Spec) { s.Input = `{"type":"object","properties":{"x":{"type":7}}}` }), "input schema"},
		{"output schema broken", spec("a", func(s *Spec) { s.Output = `{"type":"object","properties":{"x":{"type":7}}}` }), "output schema"},
		{"no handler", spec("a", func(s *Spec) { s.Handler = nil }), "no handler"},
		{"no title", spec("a", func(s *Spec) { s.Title = "" }), "required"},
		{"bad mode", spec("a", func(s *Spec) { s.Needs = "root" }), "needs mode"},
		{"destructive read", spec("a", func(s *Spec) { s.Destructive = true }), "destructive"},
	} {
		err := Register(newServer(), Config{Mode: config.ModeWrite, Log: quiet}, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if err := Register(newServer(), Config{Mode: config.ModeWrite, Log: quiet}, spec("a", nil), spec("a", nil)); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate: %v", err)
	}
}

func TestAnnotationsFollowSpec(t *testing.T) {
	for _, tc := range []struct {
		s                     Spec
		readOnly, open        bool
		destructive, hasDestr bool
	}{
		{spec("docs", nil), true, false, false, false},
		{spec("read", func(s *Spec) { s.Needs, s.OpenWorld = config.ModeRead, true }), true, true, false, false},
		{spec("write", func(s *Spec) { s.Needs, s.Writes, s.Destructive, s.OpenWorld = config.ModeWrite, true, true, true }), false, true, true, true},
		{spec("local", func(s *Spec) { s.Writes = true }), false, false, false, true},
	} {
		a := tc.s.Annotations()
		if a.ReadOnlyHint != tc.readOnly || OpenWorld(a) != tc.open || (a.OpenWorldHint != nil) == tc.open || a.Title != tc.s.Title {
			t.Errorf("%s: %+v (openWorldHint is written only when false)", tc.s.Name, a)
		}
		if (a.DestructiveHint != nil) != tc.hasDestr || (a.DestructiveHint != nil && *a.DestructiveHint != tc.destructive) {
			t.Errorf("%s: destructiveHint %v", tc.s.Name, a.DestructiveHint)
		}
	}
}

// TestGateHidesAndRefuses: a tool a client may not call is neither listed
// nor runnable, and the refusal names the reason.
func TestGateHidesAndRefuses(t *testing.T) {
	const ext = "io.example/ext"
	specs := []Spec{
		spec("docs_tool", nil),
		spec("write_tool", func(s *Spec) { s.Needs, s.Writes = config.ModeWrite, true }),
		spec("off_tool", func(s *Spec) {
			s.Unavailable = &outcome.Refusal{Kind: outcome.KindNotConfigured, Message: "off_tool needs X", NextStep: "set X"}
		}),
		spec("forms_tool", func(s *Spec) { s.NeedsForms = true }),
		spec("ext_tool", func(s *Spec) { s.NeedsExtension = ext }),
		spec("meta_tool", func(s *Spec) {
			s.ListMeta = func(caps *mcp.ClientCapabilities) mcp.Meta {
				if HasExtension(caps, ext) {
					return mcp.Meta{"x": 1}
				}
				return nil
			}
			s.ResultMeta = func(caps *mcp.ClientCapabilities) mcp.Meta {
				if HasExtension(caps, ext) {
					return mcp.Meta{"y": 2}
				}
				return nil
			}
		}),
	}
	for _, tc := range []struct {
		name   string
		mode   config.Mode
		caps   *mcp.ClientCapabilities
		listed []string
		kinds  map[string]outcome.Kind
	}{
		{"read, plain", config.ModeRead, nil, []string{"docs_tool", "meta_tool"},
			map[string]outcome.Kind{"write_tool": outcome.KindModeGate, "off_tool": outcome.KindNotConfigured, "forms_tool": outcome.KindElicitationUnsupported, "ext_tool": outcome.KindCapability}},
		{"write, all caps", config.ModeWrite, &mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
			Extensions:  map[string]any{ext: map[string]any{}}},
			[]string{"docs_tool", "ext_tool", "forms_tool", "meta_tool", "write_tool"},
			map[string]outcome.Kind{"off_tool": outcome.KindNotConfigured}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer()
			if err := Register(s, Config{Mode: tc.mode}, specs...); err != nil {
				t.Fatal(err)
			}
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{Capabilities: tc.caps}).Connect(context.Background(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { cs.Close(); ss.Wait() }()
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				if tool.Name == "meta_tool" && (tool.Meta["x"] != nil) != HasExtension(tc.caps, ext) {
					t.Errorf("meta_tool _meta %v", tool.Meta)
				}
			}
			if !slices.Equal(names, tc.listed) {
				t.Errorf("listed %v, want %v", names, tc.listed)
			}
			for name, kind := range tc.kinds {
				r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
				if err != nil {
					t.Fatal(err)
				}
				var sc struct{ Diagnostics outcome.Diagnostics }
				b, _ := json.Marshal(r.StructuredContent)
				json.Unmarshal(b, &sc)
				if !r.IsError || sc.Diagnostics.Kind != kind || sc.Diagnostics.NextStep == "" {
					t.Errorf("%s: %+v", name, sc.Diagnostics)
				}
			}
			for _, name := range tc.listed {
				r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"n": 1}})
				if err != nil || r.IsError {
					t.Errorf("%s refused: %v %+v", name, err, r)
					continue
				}
				// ResultMeta adds to the trace context, for the clients it
				// chooses, on success and on a refused argument alike.
				bad, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"n": "x"}})
				if err != nil || !bad.IsError {
					t.Fatalf("%s with a bad argument: %v %+v", name, err, bad)
				}
				for _, res := range []*mcp.CallToolResult{r, bad} {
					want := name == "meta_tool" && HasExtension(tc.caps, ext)
					if (res.Meta["y"] != nil) != want || res.Meta["traceparent"] == nil {
						t.Errorf("%s: result _meta %v", name, res.Meta)
					}
				}
			}
			r, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "docs_tool", Arguments: map[string]any{"n": "x", "m": 1}})
			if b, _ := json.Marshal(r.StructuredContent); !r.IsError || !strings.Contains(string(b), "argument /m: is not accepted") || !strings.Contains(string(b), "argument /n") {
				t.Errorf("bad arguments: %s", b)
			}
		})
	}
}

// TestRender: no HTML escaping, the text block repeats small results only,
// and an oversized result is refused with too_large.
func TestRender(t *testing.T) {
	small := toolResult(outcome.OK(map[string]string{"s": "<b>&"}))
	if got := string(small.StructuredContent.(json.RawMessage)); got != `{"result":{"s":"<b>&"},"diagnostics":{"outcome":"success"}}` {
		t.Errorf("structured: %s", got)
	}
	if small.Content[0].(*mcp.TextContent).Text != string(small.StructuredContent.(json.RawMessage)) {
		t.Error("small result: text block differs")
	}
	for _, tc := range []struct {
		r    outcome.Reply
		want string
	}{
		{outcome.OK(Encoded(`{"a":"<&>"}`)), `{"result":{"a":"<&>"},"diagnostics":{"outcome":"success"}}`},
		// Appended: into the buffer, a size that is too small (it grows)
		// and a failure's diagnostics after it.
		{outcome.OK(Appended{Size: 2, Append: func(b []byte) []byte { return append(b, `{"page":["群","<&>"]}`...) }}),
			`{"result":{"page":["群","<&>"]},"diagnostics":{"outcome":"success"}}`},
		{outcome.Reply{Result: Appended{Size: 64, Append: func(b []byte) []byte { return append(b, `[]`...) }}, Diag: outcome.Diagnostics{Outcome: outcome.OutcomeSuccess, Match: "weak"}},
			`{"result":[],"diagnostics":{"outcome":"success","match":"weak"}}`},
		{outcome.OK(json.RawMessage("{\n  \"a\": [1, -2]\n}")), `{"result":{"a":[1,-2]},"diagnostics":{"outcome":"success"}}`},
		{outcome.OK(json.RawMessage(nil)), `{"result":null,"diagnostics":{"outcome":"success"}}`},
		{outcome.Fail(outcome.KindBusiness, "a<b", "c&d"), `{"result":null,"diagnostics":{"outcome":"failed","kind":"business","message":"a<b","next_step":"c&d"}}`},
		{outcome.Reply{Result: json.RawMessage(`{"retcode":1}`), Diag: outcome.Diagnostics{Outcome: outcome.OutcomeUnknown, Kind: outcome.KindUnconfirmed}},
			`{"result":{"retcode":1},"diagnostics":{"outcome":"unknown","kind":"unconfirmed"}}`},
	} {
		res := toolResult(tc.r)
		got := string(res.StructuredContent.(json.RawMessage))
		if got != tc.want || res.Content[0].(*mcp.TextContent).Text != got || res.IsError != tc.r.IsError {
			t.Errorf("rendered %s, want %s", got, tc.want)
		}
	}
	if bad := toolResult(outcome.OK(json.RawMessage(`{"a":`))); !bad.IsError || !strings.Contains(string(bad.StructuredContent.(json.RawMessage)), `"kind":"internal"`) {
		t.Errorf("invalid raw result: %s", bad.StructuredContent)
	}
	big := toolResult(outcome.OK(strings.Repeat("x", TextLimit)))
	if text := big.Content[0].(*mcp.TextContent).Text; len(text) > 200 || !strings.Contains(text, "structuredContent") {
		t.Errorf("big result text block: %.200s", text)
	}
	huge := toolResult(outcome.OK(strings.Repeat("<", MaxResultBytes)))
	if !huge.IsError || !strings.Contains(string(huge.StructuredContent.(json.RawMessage)), `"kind":"too_large"`) {
		t.Errorf("huge result: %.300s", huge.StructuredContent)
	}
}

// TestKindsJSON: the kinds resource's document is the vocabulary.
func TestKindsJSON(t *testing.T) {
	doc, err := KindsJSON()
	if err != nil {
		t.Fatal(err)
	}
	var listed []outcome.KindDoc
	if err := json.Unmarshal(doc, &listed); err != nil || !slices.Equal(listed, outcome.Kinds()) {
		t.Errorf("KindsJSON is not Kinds (%v): %.300s", err, doc)
	}
}

// TestListCachedPerClient: one server answers clients of both eras and of
// different capabilities, each listing twice; every answer is that
// client's own list, so the per-client cache never hands one client's list
// to another.
func TestListCachedPerClient(t *testing.T) {
	const ext = "io.example/ext"
	s := newServer()
	specs := []Spec{
		spec("docs_tool", nil),
		spec("forms_tool", func(s *Spec) { s.NeedsForms = true }),
		spec("ext_tool", func(s *Spec) { s.NeedsExtension = ext }),
		spec("modern_tool", func(s *Spec) { s.ModernOnly = true }),
		spec("meta_tool", func(s *Spec) {
			s.ListMeta = func(caps *mcp.ClientCapabilities) mcp.Meta {
				if HasExtension(caps, ext) {
					return mcp.Meta{"x": 1}
				}
				return nil
			}
		}),
	}
	if err := Register(s, Config{Mode: config.ModeWrite}, specs...); err != nil {
		t.Fatal(err)
	}
	forms := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	withExt := &mcp.ClientCapabilities{Extensions: map[string]any{ext: map[string]any{}}}
	for _, tc := range []struct {
		era  string
		caps *mcp.ClientCapabilities
		want string
	}{
		{"2025-11-25", nil, "docs_tool meta_tool"},
		{"2025-11-25", forms, "docs_tool forms_tool meta_tool"},
		{"2026-07-28", nil, "docs_tool meta_tool modern_tool"},
		{"2025-11-25", withExt, "docs_tool ext_tool meta_tool+x"},
		{"2026-07-28", withExt, "docs_tool ext_tool meta_tool+x modern_tool"},
		{"2026-07-28", forms, "docs_tool forms_tool meta_tool modern_tool"},
		{"2025-11-25", nil, "docs_tool meta_tool"},
	} {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{Capabilities: tc.caps}).
			Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: tc.era})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range res.Tools {
				name := tool.Name
				if tool.Meta["x"] != nil {
					name += "+x"
				}
				if tool.InputSchema == nil || tool.Annotations == nil || tool.Description == "" {
					t.Errorf("%s: incomplete definition %+v", tool.Name, tool)
				}
				got = append(got, name)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("%s %+v: listed %v, want %s", tc.era, tc.caps, got, tc.want)
			}
		}
		cs.Close()
		ss.Wait()
	}
}

// TestListedSchemasWhole: the SDK holds stand-in schemas (see
// mcpseam.StandIn), yet every tools/list answer, paged or not, carries
// each tool's whole input and output schemas.
func TestListedSchemasWhole(t *testing.T) {
	norm := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		b, _ = json.Marshal(x)
		return string(b)
	}
	specs := []Spec{spec("a_tool", nil), spec("b_tool", func(s *Spec) {
		s.Output = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	})}
	for _, pageSize := range []int{0, 1} {
		s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}, PageSize: pageSize})
		if err := Register(s, Config{Mode: config.ModeWrite}, specs...); err != nil {
			t.Fatal(err)
		}
		cs := connectClient(t, s)
		var listed []*mcp.Tool
		for tool, err := range cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, tool)
		}
		if len(listed) != len(specs) {
			t.Fatalf("page size %d: %d tools listed", pageSize, len(listed))
		}
		for i, tool := range listed {
			if got, want := norm(tool.InputSchema), norm(json.RawMessage(specs[i].Input)); got != want {
				t.Errorf("page size %d: %s input schema %s, want %s", pageSize, tool.Name, got, want)
			}
			if got, want := norm(tool.OutputSchema), norm(OutputSchema(specs[i].Output)); got != want {
				t.Errorf("page size %d: %s output schema %s, want %s", pageSize, tool.Name, got, want)
			}
		}
	}
}

// connectClient connects a 2026-07-28 client without capabilities to s.
func connectClient(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// TestCheckOutputAsWhole: checking an output schema by its two properties
// accepts and refuses exactly what compiling the whole envelope does, with
// the same error, even for a payload schema that reaches outside its place.
func TestCheckOutputAsWhole(t *testing.T) {
	for _, result := range []string{
		`{"type":"object"}`,
		`{}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		`{"type":7}`,
		`{"type":"strin"}`,
		`{"$ref":"https://example.com/s.json"}`,
		`{`,
		`{}], "x": [{}`, // still one value: an unknown keyword of result
		`{}], "description": "x"}, "sneaky": {"anyOf": [{}`, // an extra property
		`{}], "description": "x"}, "sneaky": {"type": 7, "anyOf": [{}`,
	} {
		var ss schemaSet
		got := ss.checkOutput(result)
		_, want := (&schemaSet{}).compile(string(OutputSchema(result)))
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Errorf("%s: checked %v, compiled whole %v", result, got, want)
		}
	}
}

// TestCheckOutputsLater: with Config.CheckOutputsLater, Register serves
// without checking output schemas and hands over a check that fails as
// Register itself would have.
func TestCheckOutputsLater(t *testing.T) {
	bad := spec("b_tool", func(s *Spec) { s.Output = `{"type":"object","properties":{"x":{"type":"strin"}}}` })
	for _, specs := range [][]Spec{{spec("a_tool", nil)}, {spec("a_tool", nil), bad}} {
		want := Register(newServer(), Config{Mode: config.ModeWrite}, specs...)
		var checks []func() error
		if err := Register(newServer(), Config{Mode: config.ModeWrite, CheckOutputsLater: func(c func() error) { checks = append(checks, c) }}, specs...); err != nil {
			t.Fatalf("%d specs: %v", len(specs), err)
		}
		if len(checks) != 1 {
			t.Fatalf("%d specs: %d checks handed over", len(specs), len(checks))
		}
		got := checks[0]()
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Errorf("%d specs: checked later %v, by Register %v", len(specs), got, want)
		}
	}
	// A bad input schema still fails Register at once.
	in := spec("c_tool", func(s *Spec) { s.Input = `{"type":"object","properties":{"x":{"type":7}}}` })
	if err := Register(newServer(), Config{Mode: config.ModeWrite, CheckOutputsLater: func(func() error) {}}, in); err == nil || !strings.Contains(err.Error(), "input schema") {
		t.Errorf("bad input schema: %v", err)
	}
}
