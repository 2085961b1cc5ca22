// Package ui holds the message preview panel: an MCP Apps view
// (text/html;profile=mcp-app) built from src/ into panel.html, one
// self-contained file with its script and style inlined, and embedded here.
// scripts/build-ui rebuilds it; CI checks that the committed file matches
// its sources. The package knows nothing of MCP; internal/server serves the
// panel as a ui:// resource.
package ui

import (
	_ "embed" // the panel is embedded
	"errors"
	"strings"
)

// MIMEType is the MCP Apps resource type of the panel.
const MIMEType = "text/html;profile=mcp-app"

//go:embed panel.html
var panel string

// Panel returns the built panel, or an error when the embedded file is not a
// usable build (empty, or without its inlined script): a packaging defect
// that the server reports at start instead of serving a blank view.
func Panel() (string, error) {
	switch {
	case strings.TrimSpace(panel) == "":
		return "", errors.New("ui: the embedded panel.html is empty; run scripts/build-ui and rebuild snowluma-mcp")
	case !strings.Contains(panel, "<script>") || strings.Contains(panel, "/*PANEL_JS*/") || strings.Contains(panel, "/*PANEL_CSS*/"):
		return "", errors.New("ui: the embedded panel.html is not a complete build (its script or style is not inlined); run scripts/build-ui and rebuild snowluma-mcp")
	}
	return panel, nil
}
