// Package mcptest runs snowluma-mcp for end-to-end tests, in the test
// process (Start, through the run function of package main) or as the
// real binary (Build, Spawn): it gives it a chosen environment, connects the official
// go-sdk client (or raw JSON-RPC lines) over its stdio, records every line
// each side writes, and checks everything the server wrote against the
// official MCP schema of the protocol era under test, every tool result
// against its tool's outputSchema, and the server's stderr and exit status
// for a data race (under go test -race the binary is built with -race; a
// server in process is checked by the test binary's own race detector).
package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// An Era is a protocol generation under test, named by its revision.
type Era string

const (
	Modern Era = "2026-07-28" // per-request metadata, no handshake
	Legacy Era = "2025-11-25" // the initialize handshake
)

// schemaFile is the official schema of each era, in ../shared/reference.
func (e Era) schemaFile() string { return "mcp-" + string(e) + ".schema.json" }

// resultDefs maps a request method to the schema definition of its result.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"server/discover":          "DiscoverResult",
	"ping":                     "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"subscriptions/listen":     "SubscriptionsListenResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
	"logging/setLevel":         "EmptyResult",
	// The Tasks extension's methods, checked against its own schema.
	"tasks/get":    extPrefix + "GetTaskResult",
	"tasks/cancel": extPrefix + "CancelTaskResult",
	"tasks/update": extPrefix + "UpdateTaskResult",
}

// extPrefix marks a definition of the Tasks extension's schema
// (ext-tasks-draft.schema.json) rather than the era's.
const extPrefix = "tasks-ext:"

// messageDefs maps a method the server sends (request or notification) to
// its schema definition.
var messageDefs = map[string]string{
	"elicitation/create":                       "ElicitRequest",
	"roots/list":                               "ListRootsRequest",
	"sampling/createMessage":                   "CreateMessageRequest",
	"ping":                                     "PingRequest",
	"notifications/progress":                   "ProgressNotification",
	"notifications/cancelled":                  "CancelledNotification",
	"notifications/message":                    "LoggingMessageNotification",
	"notifications/resources/updated":          "ResourceUpdatedNotification",
	"notifications/resources/list_changed":     "ResourceListChangedNotification",
	"notifications/tools/list_changed":         "ToolListChangedNotification",
	"notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
	"notifications/tasks":                      extPrefix + "TaskStatusNotification",
}

// channelDefs are the shapes of Claude Code's channel notifications, which
// no official MCP schema holds, as Claude Code's channels reference gives
// them: notifications/claude/channel carries content (a string) and meta
// (string values under identifier keys: letters, digits and underscores,
// the only keys Claude Code keeps); the permission verdict carries the
// five-letter request_id (a to z without l) and behavior allow or deny.
// Either may carry a 2026-07-28 stream's _meta.
var channelDefs = map[string]string{
	"notifications/claude/channel": `{"type": "object", "required": ["jsonrpc", "method", "params"], "additionalProperties": false,
	  "properties": {"jsonrpc": {"const": "2.0"}, "method": {"const": "notifications/claude/channel"},
	    "params": {"type": "object", "required": ["content"], "additionalProperties": false,
	      "properties": {"content": {"type": "string"}, "_meta": {"type": "object"},
	        "meta": {"type": "object", "propertyNames": {"pattern": "^[A-Za-z0-9_]+$"}, "additionalProperties": {"type": "string"}}}}}}`,
	"notifications/claude/channel/permission": `{"type": "object", "required": ["jsonrpc", "method", "params"], "additionalProperties": false,
	  "properties": {"jsonrpc": {"const": "2.0"}, "method": {"const": "notifications/claude/channel/permission"},
	    "params": {"type": "object", "required": ["request_id", "behavior"], "additionalProperties": false,
	      "properties": {"request_id": {"type": "string", "pattern": "^[a-km-z]{5}$"}, "behavior": {"enum": ["allow", "deny"]}, "_meta": {"type": "object"}}}}}`,
}

// channelSchema compiles the channel shape of method.
func channelSchema(method string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(channelDefs[method]))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	url := "mem:///" + strings.ReplaceAll(method, "/", "_") + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// A Validator checks server messages against one era's official schema.
type Validator struct {
	era  Era
	doc  any
	ext  any // the Tasks extension's schema
	mu   sync.Mutex
	defs map[string]*jsonschema.Schema
}

// validators holds, for the test process, one Validator per era and pair
// of schema files: compiling the official schema's definitions is
// otherwise most of the CPU a test's checks take, and a compiled schema is
// never changed, so the tests running in parallel share them.
var validators sync.Map // validatorKey -> *Validator

type validatorKey struct {
	era       Era
	path, ext string
}

// NewValidator loads the era's schema and the Tasks extension's from
// ../shared/reference. When one is missing, the test fails under CI;
// elsewhere NewValidator returns nil and the schema check is skipped
// (Build has said so once for the process).
func NewValidator(tb testing.TB, era Era) *Validator {
	tb.Helper()
	var paths [2]string
	for i, name := range []string{era.schemaFile(), "ext-tasks-draft.schema.json"} {
		path, err := reference.Find(name)
		if err != nil {
			if reference.UnderCI() {
				tb.Fatalf("the %s schema check cannot run: %v; under CI every end-to-end test checks the server's messages", era, err)
			}
			return nil
		}
		paths[i] = path
	}
	key := validatorKey{era, paths[0], paths[1]}
	if v, ok := validators.Load(key); ok {
		return v.(*Validator)
	}
	var docs [2]any
	for i, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			tb.Fatal(err)
		}
		docs[i], err = jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
	}
	v, _ := validators.LoadOrStore(key, &Validator{era: era, doc: docs[0], ext: docs[1], defs: map[string]*jsonschema.Schema{}})
	return v.(*Validator)
}

func (v *Validator) def(name string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.defs[name]; ok {
		return s, nil
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	url, doc, def := "mem:///mcp.schema.json", v.doc, name
	if d, ok := strings.CutPrefix(name, extPrefix); ok {
		url, doc, def = "mem:///tasks-ext.schema.json", v.ext, d
	}
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url + "#/$defs/" + def)
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", v.era, err)
	}
	v.defs[name] = s
	return s, nil
}

// Check validates one line the server wrote. For a response, answers is
// the method of the client's request it answers ("" when there was none),
// so that its result is checked against that method's result type.
func (v *Validator) Check(line []byte, answers string) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return v.checkDecoded(inst, answers)
}

// checkDecoded is Check on a line already decoded by jsonschema.UnmarshalJSON.
func (v *Validator) checkDecoded(inst any, answers string) error {
	obj, ok := inst.(map[string]any)
	if !ok {
		return fmt.Errorf("not a JSON-RPC object: %T", inst)
	}
	method, _ := obj["method"].(string)
	if m, ok := obj["method"]; ok && method == "" {
		return fmt.Errorf("not a JSON-RPC object: method %v", m)
	}
	_, isError := obj["error"]
	_, isResult := obj["result"]
	check := func(def string, x any) error {
		s, err := v.def(def)
		if err != nil {
			return err
		}
		if err := s.Validate(x); err != nil {
			return fmt.Errorf("does not validate as %s (%s): %v", def, v.era, err)
		}
		return nil
	}
	switch {
	case channelDefs[method] != "":
		s, err := channelSchema(method)
		if err != nil {
			return err
		}
		if err := s.Validate(inst); err != nil {
			return fmt.Errorf("does not have the shape of Claude Code's channels reference: %v", err)
		}
		return nil
	case method != "":
		def, ok := messageDefs[method]
		if !ok {
			return fmt.Errorf("server sent %q, which the harness has no schema for", method)
		}
		return check(def, inst)
	case isError:
		return check("JSONRPCErrorResponse", inst)
	case isResult:
		if err := check("JSONRPCResultResponse", inst); err != nil {
			return err
		}
		method := answers
		if method == "" {
			id, _ := json.Marshal(obj["id"])
			return fmt.Errorf("response to unknown request id %s", id)
		}
		def, ok := resultDefs[method]
		if !ok {
			return fmt.Errorf("no result schema known for %q", method)
		}
		res := obj["result"]
		if method == "tools/call" {
			switch rt, _ := res.(map[string]any)["resultType"].(string); rt {
			case "input_required":
				def = "InputRequiredResult"
			case "task":
				def = extPrefix + "CreateTaskResult"
			}
		}
		return check(def, res)
	}
	return fmt.Errorf("neither request, notification nor response")
}
