// Package mcpseam holds every place where snowluma-mcp relies on behaviour
// of the go-sdk (github.com/modelcontextprotocol/go-sdk, SDKVersion) that
// the SDK does not promise in its API, each with a contract test
// (contract_test.go, TestSeamSDK…) that fails, by name, when an SDK
// upgrade changes the behaviour it relies on.
//
// Workarounds for what the SDK lacks:
//
//   - Dispatch: the server's one receiving middleware, which hands each
//     request to the one wrapper that acts on its method and lets every
//     tools/call result leave through Finish.
//   - Dispatch.Placeholder: a tool answer that is not a CallToolResult (a
//     task handle) travels as a placeholder found again by pointer
//     identity.
//   - Wrap and Tap: the one transport wrapper that carries methods the SDK
//     has no API for (task notifications on listen streams, Claude Code's
//     channel).
//   - DeclineDiscover (discover.go): server/discover answered with Method
//     not found, without the SDK's handler, so that Claude Code falls back
//     to the legacy lifecycle where its channel has a path.
//
// Speed tricks, measured in docs/performance.md; the hand-off to the
// transport and the stack growth are switched on by the binary alone
// (server.Speed):
//
//   - StandIn: tools registered with stand-in schemas, since AddTool
//     decodes a JSON schema again only to read its type.
//   - PlainToolResult, EncodedList and EncodedRead: results encoded by this
//     server, without the HTML escapes the SDK's encoder writes, and the
//     tool list and the catalog resource encoded once rather than per
//     answer.
//   - Handoff and Frame: an answer the server encoded handed to the stdio
//     transport past the SDK's encoder, which would check and compact it
//     again, into a buffer the transport lends and takes back once the
//     answer is written, and a response framed without re-encoding its
//     result.
//   - Dispatch.GrowStack (stack.go): the stack of the goroutine the SDK
//     starts for each request grown once, up front.
//
// Nothing else in the project may depend on these behaviours; a domain
// package knows none of them.
package mcpseam

// SDKVersion is the go-sdk release whose behaviour this package relies on.
// The contract tests check that behaviour; go.mod pins the release.
const SDKVersion = "v1.8.0"
