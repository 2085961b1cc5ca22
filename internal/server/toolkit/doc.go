// Package toolkit is snowluma-mcp's tool framework: one Spec per tool, from
// which registration, the mode gate, visibility in tools/list, annotations
// and the {result, diagnostics} rendering all derive. Feature adapters in
// internal/server declare Specs; Register puts them on a go-sdk server.
package toolkit
