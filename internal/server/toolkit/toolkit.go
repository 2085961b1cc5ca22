// Package toolkit is snowluma-mcp's tool framework: one Spec per tool, from
// which registration, the mode gate, visibility in tools/list, annotations
// and the {result, diagnostics} rendering all derive. Feature adapters in
// internal/server declare Specs; Register puts them on a go-sdk server.
package toolkit

import "github.com/snowluma/snowluma-mcp/internal/config"

// Mode is what the server may do: only describe the catalog, also read from
// SnowLuma, or also write to it. It is the configuration's mode.
type Mode = config.Mode

// The modes.
const (
	ModeDocs  = config.ModeDocs
	ModeRead  = config.ModeRead
	ModeWrite = config.ModeWrite
)
