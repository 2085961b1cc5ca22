package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A message is one line the server wrote and, for a response, the method of
// the client's request it answers.
type message struct {
	line    []byte
	answers string
}

// A toolCall is one tools/call the client made and what answered it.
type toolCall struct {
	tool   string
	result json.RawMessage // nil when a JSON-RPC error answered it
	line   []byte          // the response
}

// A session is what the recorded lines of one process say: each server
// line with the request it answers, each tool call with its result, and the
// outputSchema of every tool a tools/list answer showed (nil for a tool
// that declares none).
type session struct {
	messages []message
	calls    []toolCall
	listed   map[string]json.RawMessage
}

// replay pairs the server's responses with the client's requests (by id,
// first come first served, so a reused id pairs with the earliest
// unanswered request).
func replay(sent, received [][]byte) *session {
	type request struct{ method, tool string }
	pending := map[string][]request{}
	for _, l := range sent {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(l, &m) != nil || m.ID == nil || m.Method == "" {
			continue
		}
		var params struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Params, &params) // the name of a tools/call; absent otherwise
		pending[string(m.ID)] = append(pending[string(m.ID)], request{m.Method, params.Name})
	}
	s := &session{listed: map[string]json.RawMessage{}}
	for _, l := range received {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(l, &m) != nil || m.Method != "" || m.ID == nil {
			s.messages = append(s.messages, message{line: l})
			continue
		}
		var req request
		if q := pending[string(m.ID)]; len(q) > 0 {
			req, pending[string(m.ID)] = q[0], q[1:]
		}
		s.messages = append(s.messages, message{line: l, answers: req.method})
		switch req.method {
		case "tools/call":
			s.calls = append(s.calls, toolCall{tool: req.tool, result: m.Result, line: l})
		case "tools/list":
			var res struct {
				Tools []struct {
					Name         string          `json:"name"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			}
			if json.Unmarshal(m.Result, &res) == nil {
				for _, t := range res.Tools {
					s.listed[t.Name] = t.OutputSchema
				}
			}
		}
	}
	return s
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
		var r struct {
			ResultType string          `json:"resultType"`
			Structured json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(c.result, &r); err != nil {
			errs = append(errs, fmt.Errorf("tools/call %s: result: %v\n%s", c.tool, err, truncate(c.line, 2000)))
			continue
		}
		if r.ResultType == "input_required" || r.ResultType == "task" {
			continue // no structuredContent: a question for the client, or a task handle
		}
		if len(r.Structured) == 0 || string(r.Structured) == "null" {
			errs = append(errs, fmt.Errorf("tools/call %s: the result has no structuredContent\n%s", c.tool, truncate(c.line, 2000)))
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
			if !nullResult(r.Structured) {
				errs = append(errs, fmt.Errorf("tools/call %s: a result from a tool that tools/list does not show (a hidden tool may only refuse)\n%s", c.tool, truncate(c.line, 2000)))
				continue
			}
			if schemaOf, out, ok = s.anyOutputSchema(); !ok {
				errs = append(errs, fmt.Errorf("tools/call %s: no listed tool declares an outputSchema to check its refusal against", c.tool))
				continue
			}
		}
		if len(out) == 0 || string(out) == "null" {
			errs = append(errs, fmt.Errorf("tools/call %s: structuredContent from a tool that declares no outputSchema\n%s", c.tool, truncate(c.line, 2000)))
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
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Structured))
		if err != nil {
			errs = append(errs, fmt.Errorf("tools/call %s: structuredContent: %v", c.tool, err))
			continue
		}
		if err := sch.Validate(inst); err != nil {
			errs = append(errs, fmt.Errorf("tools/call %s: structuredContent fails the outputSchema of %s: %v\n%s", c.tool, schemaOf, err, truncate(c.line, 2000)))
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
func nullResult(structured json.RawMessage) bool {
	var env map[string]json.RawMessage
	return json.Unmarshal(structured, &env) == nil && string(env["result"]) == "null"
}

// anyOutputSchema returns the outputSchema of the first listed tool, by
// name, that declares one.
func (s *session) anyOutputSchema() (string, json.RawMessage, bool) {
	names := make([]string, 0, len(s.listed))
	for n := range s.listed {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if o := s.listed[n]; len(o) > 0 && string(o) != "null" {
			return n, o, true
		}
	}
	return "", nil, false
}

func compileSchema(tool string, schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	url := "mem:///tools/" + tool + "/outputSchema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}
