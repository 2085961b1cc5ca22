package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/snowluma/snowluma-mcp/internal/jsonscan"
	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// A message is one line the server wrote, decoded (or why it is not
// JSON), and, for a response, the method of the client's request it
// answers.
type message struct {
	line    []byte
	doc     any
	notJSON error
	answers string
}

// A toolCall is one tools/call the client made and what answered it.
type toolCall struct {
	tool   string
	result map[string]any // nil when a JSON-RPC error answered it
	line   []byte         // the response
}

// A session is what the recorded lines of one process say: each server
// line with the request it answers, each tool call with its result, and the
// outputSchema of every tool a tools/list answer showed (nil for a tool
// that declares none).
//
// Each line is decoded once, and the checks share that value: under the
// race detector every pass over a line costs, and a test's lines run to
// megabytes.
type session struct {
	messages []message
	calls    []toolCall
	listed   map[string]any
}

// replay pairs the server's responses with the client's requests (by id,
// first come first served, so a reused id pairs with the earliest
// unanswered request).
func replay(sent, received [][]byte) *session {
	type request struct{ method, tool string }
	pending := map[string][]request{}
	for _, l := range sent {
		// One pass that decodes nothing but the id, the method and a tool's
		// name: a test may send lines of megabytes.
		var id, method, tool []byte
		named := func(k, v []byte) error {
			if key, _ := jsonscan.Key(k); string(key) == "name" {
				tool = v
			}
			return nil
		}
		err := jsonscan.Object(l, func(k, v []byte) error {
			switch key, _ := jsonscan.Key(k); string(key) {
			case "id":
				id = v
			case "method":
				method = v
			case "params":
				if v[0] != '{' {
					tool = nil
				}
			}
			return nil
		}, func(k []byte) jsonscan.Visitor {
			if key, _ := jsonscan.Key(k); string(key) == "params" {
				tool = nil // the last params wins, as in encoding/json
				return named
			}
			return nil
		})
		m, _ := jsonscan.String(method)
		if err != nil || id == nil || m == "" {
			continue
		}
		name, _ := jsonscan.String(tool) // the name of a tools/call; absent otherwise
		key := idKey(id)
		pending[key] = append(pending[key], request{m, name})
	}
	s := &session{listed: map[string]any{}}
	for _, l := range received {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(l))
		m, _ := doc.(map[string]any)
		id, hasID := m["id"]
		if method, _ := m["method"].(string); err != nil || method != "" || !hasID {
			s.messages = append(s.messages, message{line: l, doc: doc, notJSON: err})
			continue
		}
		key, _ := json.Marshal(id)
		var req request
		if q := pending[string(key)]; len(q) > 0 {
			req, pending[string(key)] = q[0], q[1:]
		}
		s.messages = append(s.messages, message{line: l, doc: doc, answers: req.method})
		result, _ := m["result"].(map[string]any)
		switch req.method {
		case "tools/call":
			s.calls = append(s.calls, toolCall{tool: req.tool, result: result, line: l})
		case "tools/list":
			tools, _ := result["tools"].([]any)
			for _, t := range tools {
				t, _ := t.(map[string]any)
				if name, ok := t["name"].(string); ok {
					s.listed[name] = t["outputSchema"]
				}
			}
		}
	}
	return s
}

// idKey is the compact JSON of a request id, as the server's decoded
// answer marshals it again.
func idKey(raw json.RawMessage) string {
	id, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(id)
	return string(b)
}

// checkMessages checks every line the server wrote against v's schema and
// returns what fails.
func (s *session) checkMessages(v *Validator) []error {
	var errs []error
	for _, m := range s.messages {
		var err error
		if m.notJSON != nil {
			err = fmt.Errorf("not JSON: %w", m.notJSON)
		} else {
			err = v.checkDecoded(m.doc, m.answers)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("server message fails the %s schema: %v\n%s", v.era, err, quote.Clip(string(m.line), 2000)))
		}
	}
	return errs
}

// checkOutputs checks the structuredContent of every tool result against
// the outputSchema of its tool, as the session's tools/list answers show
// it, and returns what fails. Only the results that carry no
// structuredContent by design are passed over: input-required results and
// task handles (the Tasks extension's CreateTaskResult). A tool that the
// listing leaves out (hidden by the mode or the client's capabilities) may
// only refuse: its result must be null inside the {result, diagnostics}
// envelope every tool shares, so its structuredContent is checked against
// another tool's outputSchema.
func (s *session) checkOutputs() []error {
	var errs []error
	compiled := map[string]*jsonschema.Schema{}
	for _, c := range s.calls {
		if c.result == nil {
			continue
		}
		resultType, _ := c.result["resultType"].(string)
		structured := c.result["structuredContent"]
		if resultType == "input_required" || resultType == "task" {
			continue // no structuredContent: a question for the client, or a task handle
		}
		if structured == nil {
			errs = append(errs, fmt.Errorf("tools/call %s: the result has no structuredContent\n%s", c.tool, quote.Clip(string(c.line), 2000)))
			continue
		}
		if len(s.listed) == 0 {
			errs = append(errs, fmt.Errorf("tools/call %s: no tools/list answer to take its outputSchema from (Close lists the tools through the test's "+
				"go-sdk session or Raw connection; when that fails, as after the server exited, the test must list them itself)", c.tool))
			continue
		}
		schemaOf := c.tool
		out, ok := s.listed[c.tool]
		if !ok {
			if !nullResult(structured) {
				errs = append(errs, fmt.Errorf("tools/call %s: a result from a tool that tools/list does not show (a hidden tool may only refuse)\n%s", c.tool, quote.Clip(string(c.line), 2000)))
				continue
			}
			if schemaOf, out, ok = s.anyOutputSchema(); !ok {
				errs = append(errs, fmt.Errorf("tools/call %s: no listed tool declares an outputSchema to check its refusal against", c.tool))
				continue
			}
		}
		if out == nil {
			errs = append(errs, fmt.Errorf("tools/call %s: structuredContent from a tool that declares no outputSchema\n%s", c.tool, quote.Clip(string(c.line), 2000)))
			continue
		}
		sch, ok := compiled[schemaOf]
		if !ok {
			var err error
			if sch, err = compileSchema(schemaOf, out); err != nil {
				errs = append(errs, fmt.Errorf("tools/call %s: the outputSchema of %s does not compile: %v", c.tool, schemaOf, err))
				continue
			}
			compiled[schemaOf] = sch
		}
		if err := sch.Validate(structured); err != nil {
			errs = append(errs, fmt.Errorf("tools/call %s: structuredContent fails the outputSchema of %s: %v\n%s", c.tool, schemaOf, err, quote.Clip(string(c.line), 2000)))
		}
	}
	return errs
}

// needsListing reports whether a tool result awaits a check that no
// tools/list answer of the session can give its outputSchema for.
func (s *session) needsListing() bool {
	for _, c := range s.calls {
		if _, ok := s.listed[c.tool]; !ok && c.result != nil {
			return true
		}
	}
	return false
}

// listAll lists every page of tools through cs; the exchange is recorded
// like any other. An error (the test closed the session, say) is reported
// by checkOutputs, which then has no listing.
func listAll(cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), Patience)
	defer cancel()
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return
		}
	}
}

// nullResult reports whether structuredContent is a refusal's envelope:
// an object whose result is null.
func nullResult(structured any) bool {
	env, ok := structured.(map[string]any)
	if !ok {
		return false
	}
	result, ok := env["result"]
	return ok && result == nil
}

// anyOutputSchema returns the outputSchema of the first listed tool, by
// name, that declares one.
func (s *session) anyOutputSchema() (string, any, bool) {
	names := make([]string, 0, len(s.listed))
	for n := range s.listed {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if o := s.listed[n]; o != nil {
			return n, o, true
		}
	}
	return "", nil, false
}

func compileSchema(tool string, doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	url := "mem:///tools/" + tool + "/outputSchema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}
