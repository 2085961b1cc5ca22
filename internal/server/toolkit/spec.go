package toolkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/trace"
	"github.com/snowluma/snowluma-mcp/internal/validate"
)

// A Spec declares one tool. Its definition, the mode gate, whether a client
// sees it in tools/list, and its annotations all derive from it, so a tool
// cannot be listed where its handler refuses it, or annotated as safer than
// it is.
type Spec struct {
	Name, Title, Description string
	// Input is the closed JSON Schema of the arguments; Output the schema
	// of structuredContent.result, which Register wraps in the
	// {result, diagnostics} envelope every tool returns.
	Input, Output string

	// Needs is the least mode the tool runs in.
	Needs config.Mode
	// Writes marks a tool that may change state on SnowLuma, in a QQ chat
	// or on the host's disk (readOnlyHint false); Destructive and Idempotent
	// refine it.
	Writes, Destructive, Idempotent bool
	// OpenWorld marks a tool any of whose calls may contact SnowLuma.
	OpenWorld bool

	// NeedsForms hides and refuses the tool (elicitation_unsupported) for
	// clients that did not advertise form elicitation, in either era: the
	// legacy initialize capabilities or a 2026-07-28 request's own.
	NeedsForms bool
	// WithoutForms, with NeedsForms, names the tool such a client calls
	// instead, for the refusal's next step.
	WithoutForms string
	// NeedsExtension, when set, hides and refuses the tool for clients that
	// did not advertise that extension.
	NeedsExtension string
	// ModernOnly hides and refuses the tool for clients of the legacy
	// initialize era.
	ModernOnly bool
	// Unavailable, when set, hides the tool and refuses every call with it,
	// for a tool whose service is not configured.
	Unavailable *outcome.Refusal
	// ListMeta, when set, gives the tool's _meta for one client, by its
	// capabilities; nil meta lists the tool without any.
	ListMeta func(caps *mcp.ClientCapabilities) mcp.Meta
	// ResultMeta, when set, gives _meta entries for every result of the
	// tool sent to one client, by its capabilities, beside the trace
	// context: what a view showing the result needs and the model does
	// not. Nil adds none.
	ResultMeta func(caps *mcp.ClientCapabilities) mcp.Meta

	Handler Handler
}

// A Handler runs one call whose arguments already passed Input. Failures
// are Replies (Fail), never Go errors, so the model can read and correct
// them.
type Handler func(ctx context.Context, c *Call) outcome.Reply

// A Call is what a handler learns about one invocation.
type Call struct {
	// Req is the request: its session (for progress notifications), its
	// _meta and its continuation fields.
	Req *mcp.CallToolRequest
	// Args are the arguments, checked against the tool's Input; "{}" when
	// none were sent.
	Args json.RawMessage
	// Trace is the call's W3C trace context; Trace.Header() goes on every
	// HTTP request the call makes.
	Trace trace.Context
	// Action is the catalog action the call drove, for the log line.
	Action string
	// Bot is the label of the bot the call ran as, or of every bot it
	// asked, when the server drives several; for the log line.
	Bot string
}

// Annotations derives the tool's annotations from the spec. openWorldHint
// is written only when false: true is MCP's default for it
// (ToolAnnotations in the schema of both eras), and a client loads every
// tool's definition into each session. destructiveHint is written for
// every tool that writes, whichever its value.
func (s *Spec) Annotations() *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: s.Title, ReadOnlyHint: !s.Writes, IdempotentHint: s.Idempotent}
	if !s.OpenWorld {
		a.OpenWorldHint = new(bool)
	}
	if s.Writes {
		d := s.Destructive
		a.DestructiveHint = &d
	}
	return a
}

// OpenWorld reports a's openWorldHint, true when it is absent (MCP's
// default).
func OpenWorld(a *mcp.ToolAnnotations) bool {
	return a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint
}

// compiled is a Spec ready to serve: its wire definition and its compiled
// input schema.
type compiled struct {
	*Spec
	tool  *mcp.Tool
	input *validate.ObjectSchema
}

// schemaSet compiles each distinct schema once: several tools share an
// input schema or an output schema, and compiling them is most of a
// server's start-up. Its compiler, in turn, compiles each distinct property
// schema once, such as the diagnostics of every output schema. It is safe
// for concurrent use.
type schemaSet struct {
	props validate.Compiler
	mu    sync.Mutex
	m     map[string]func() (*validate.ObjectSchema, error)

	diagnostics func() string // diagnosticsProperty, made once
}

func (ss *schemaSet) compile(schema string) (*validate.ObjectSchema, error) {
	ss.mu.Lock()
	f := ss.m[schema]
	if f == nil {
		f = sync.OnceValues(func() (*validate.ObjectSchema, error) { return ss.props.CompileObject(json.RawMessage(schema)) })
		if ss.m == nil {
			ss.m = map[string]func() (*validate.ObjectSchema, error){}
		}
		ss.m[schema] = f
	}
	ss.mu.Unlock()
	return f()
}

// checkOutput checks OutputSchema(result) as compiling it would: it fails
// exactly when that does, with the same error. Its two properties compile as
// any object's do, so it compiles those alone, the diagnostics property
// once for all tools, and spares decoding each whole envelope; only a
// schema that fails is compiled whole, for the error.
func (ss *schemaSet) checkOutput(result string) error {
	if ss.props.CheckProperty(json.RawMessage(resultProperty(result))) == nil &&
		ss.props.CheckProperty(json.RawMessage(ss.diagnosticsProperty())) == nil {
		return nil
	}
	_, err := ss.compile(string(ss.outputSchema(result)))
	return err
}

// outputSchema is OutputSchema(result), its diagnostics made once per set.
func (ss *schemaSet) outputSchema(result string) json.RawMessage {
	return envelope(resultProperty(result), ss.diagnosticsProperty())
}

// diagnosticsProperty returns diagnosticsProperty(), made once per set.
func (ss *schemaSet) diagnosticsProperty() string {
	ss.mu.Lock()
	if ss.diagnostics == nil {
		ss.diagnostics = sync.OnceValue(diagnosticsProperty)
	}
	made := ss.diagnostics
	ss.mu.Unlock()
	return made()
}

// checkOutput checks the spec's output schema. One that does not compile is
// a defect, reported when the server is built or, with
// Config.CheckOutputsLater, once it has started.
func (s *Spec) checkOutput(schemas *schemaSet) error {
	if err := schemas.checkOutput(s.Output); err != nil {
		return fmt.Errorf("tool %s: output schema: %w", s.Name, err)
	}
	return nil
}

// compile checks the spec, compiles its input schema and builds its
// definition; checkOutput checks its output schema. A schema that does not
// compile is a defect, reported when the server is built.
func (s *Spec) compile(schemas *schemaSet) (*compiled, error) {
	switch {
	case s.Name == "" || s.Description == "" || s.Title == "":
		return nil, fmt.Errorf("tool %q: name, title and description are required", s.Name)
	case s.Handler == nil:
		return nil, fmt.Errorf("tool %s: no handler", s.Name)
	case s.Needs != config.ModeDocs && s.Needs != config.ModeRead && s.Needs != config.ModeWrite:
		return nil, fmt.Errorf("tool %s: needs mode %q", s.Name, s.Needs)
	case (s.Destructive) && !s.Writes:
		return nil, fmt.Errorf("tool %s: destructive but not writing", s.Name)
	}
	in, err := schemas.compile(s.Input)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", s.Name, err)
	}
	out := schemas.outputSchema(s.Output)
	// The schemas are written indented for people; the wire carries them
	// compact, and compacting once here spares every tools/list answer.
	input, err := compact(s.Input)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", s.Name, err)
	}
	if out, err = compact(string(out)); err != nil {
		return nil, fmt.Errorf("tool %s: output schema: %w", s.Name, err)
	}
	return &compiled{
		Spec:  s,
		input: in,
		tool: &mcp.Tool{
			Name:         s.Name,
			Description:  s.Description,
			InputSchema:  input,
			OutputSchema: out,
			Annotations:  s.Annotations(),
		},
	}, nil
}

// compact returns schema without insignificant white space.
func compact(schema string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(schema)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// OutputSchema wraps the schema of a tool's payload in the {result,
// diagnostics} envelope every tool returns. result is null on a tool error.
// The schema is lean, since a client loads every tool's into each session:
// of diagnostics it names outcome, the one field every answer has; its
// values and kind, message, next_step and retry_after_ms are documented
// once, in docs/tools.md,
// and the failure kinds, a closed vocabulary, in Kinds (the table there
// and the resource KindsURI), not in every tool.
func OutputSchema(result string) json.RawMessage {
	return envelope(resultProperty(result), diagnosticsProperty())
}

// KindsURI is the resource that lists the failure kinds, as Kinds does.
const KindsURI = "snowluma://mcp/failure-kinds"

// envelope is the output schema whose properties are result and
// diagnostics.
func envelope(result, diagnostics string) json.RawMessage {
	return json.RawMessage(`{"type": "object", "properties": {"result": ` + result + `, "diagnostics": ` + diagnostics + `}, "required": ["result", "diagnostics"]}`)
}

// resultProperty is the envelope's result property around the payload's
// schema: the payload, or null.
func resultProperty(result string) string {
	return `{"anyOf": [` + result + `, {"type": "null"}]}`
}

// diagnosticsProperty is the envelope's diagnostics property, the same for
// every tool.
func diagnosticsProperty() string {
	return `{"type": "object", "required": ["outcome"]}`
}

// KindsJSON returns outcome.Kinds as a JSON array of {kind, meaning, fix},
// the document of the resource KindsURI.
func KindsJSON() ([]byte, error) { return mcpseam.PlainJSON(outcome.Kinds()) }
