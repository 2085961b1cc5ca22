// Package toolkit is snowluma-mcp's tool framework: one Spec per tool, from
// which registration, the mode gate, visibility in tools/list, annotations
// and the {result, diagnostics} rendering all derive. Feature adapters in
// internal/server declare Specs; Register puts them on a go-sdk server.
package toolkit

// Mode is what the server may do: only describe the catalog, also read from
// SnowLuma, or also write to it.
type Mode string

const (
	ModeDocs  Mode = "docs"
	ModeRead  Mode = "read"
	ModeWrite Mode = "write"
)

// Allows reports whether mode m permits what mode need requires.
func (m Mode) Allows(need Mode) bool {
	switch need {
	case ModeRead:
		return m == ModeRead || m == ModeWrite
	case ModeWrite:
		return m == ModeWrite
	}
	return true
}
