// Command bare is the yardstick of scripts/bench: a go-sdk stdio server
// built from the same module and SDK version as snowluma-mcp, with no code
// of its own between the SDK and the answers.
//
// By default it serves one trivial tool. With BARE_REPLAY naming a file
// that scripts/bench recorded from snowluma-mcp (-samebytes), it serves
// the same tool definitions, and answers each recorded tool call and
// resource read with the recorded result, as a plain go-sdk server would:
// the SDK lists the tools, encodes every answer and frames it on stdio. A
// call that was not recorded is a tool error.
package main

import (
	"context"
	"encoding/json"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

// replay is what scripts/bench records: snowluma-mcp's tool definitions
// and its answers to some calls.
type replay struct {
	Tools   []*mcp.Tool `json:"tools"`
	Schemas []schemas   `json:"-"`
	Calls   []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Result    json.RawMessage `json:"result"`
	} `json:"calls"`
	Resources []struct {
		URI    string          `json:"uri"`
		Result json.RawMessage `json:"result"`
	} `json:"resources"`
}

// schemas are a recorded tool's schemas as JSON.
type schemas struct {
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	if file := os.Getenv("BARE_REPLAY"); file != "" {
		if err := serveReplay(s, file); err != nil {
			log.Fatal(err)
		}
	} else {
		mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// serveReplay adds the recorded tools and resources to s.
func serveReplay(s *mcp.Server, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var r replay
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	var raw struct {
		Tools []schemas `json:"tools"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	r.Schemas = raw.Tools
	answers := map[string]map[string]*mcp.CallToolResult{} // tool → arguments → result
	for _, c := range r.Calls {
		var res mcp.CallToolResult
		if err := json.Unmarshal(c.Result, &res); err != nil {
			return err
		}
		// A server that holds its answer as JSON hands it on as
		// json.RawMessage, not as a decoded map.
		var raw struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(c.Result, &raw); err != nil {
			return err
		}
		if raw.StructuredContent != nil {
			res.StructuredContent = raw.StructuredContent
		}
		res.Meta = nil // the SDK adds its own
		if answers[c.Name] == nil {
			answers[c.Name] = map[string]*mcp.CallToolResult{}
		}
		answers[c.Name][string(c.Arguments)] = &res
	}
	for i, t := range r.Tools {
		// The schemas as JSON, as a server that has them as JSON adds
		// them, rather than decoded into maps.
		t.InputSchema = r.Schemas[i].InputSchema
		if out := r.Schemas[i].OutputSchema; out != nil {
			t.OutputSchema = out
		}
		byArgs := answers[t.Name]
		s.AddTool(t, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res := byArgs[string(req.Params.Arguments)]; res != nil {
				answer := *res
				return &answer, nil
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "not recorded"}}}, nil
		})
	}
	for _, rr := range r.Resources {
		var res mcp.ReadResourceResult
		if err := json.Unmarshal(rr.Result, &res); err != nil {
			return err
		}
		res.Meta = nil
		s.AddResource(&mcp.Resource{URI: rr.URI, Name: rr.URI}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			answer := res
			return &answer, nil
		})
	}
	return nil
}
