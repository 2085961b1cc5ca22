package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/preview"
	"github.com/snowluma/snowluma-mcp/ui"
)

// The message preview: the preview_message tool (package preview drafts,
// contacting nothing) and its MCP Apps panel (package ui), served as a ui://
// resource to hosts that can show it.

// Identifiers of the MCP Apps extension (ext-apps 2.0.4).
const (
	appsExtension = "io.modelcontextprotocol/ui"
	// PreviewPanelURI is the panel's resource.
	PreviewPanelURI = "ui://snowluma-mcp/message-preview.html"
	// PanelMetaKey is the _meta entry of preview_message's results, for
	// Apps clients only, that tells the panel what the result does not:
	// {"lang": the server's language (SNOWLUMA_MCP_LANG or the locale),
	// "mode": docs, read or write, and "sandbox" and "dry_run" when true}.
	// The panel speaks the host's locale when the host gives one, else this
	// lang; with mode it words, in either language, why it cannot send; it
	// shows a banner in a sandbox or a dry run.
	PanelMetaKey = "snowluma-mcp/panel"
)

const previewInput = `{
  "type": "object",
  "properties": {
    "message_type": {"type": "string", "enum": ["group", "private"]},
    "target_id": {"type": "integer", "minimum": 1, "maximum": 9007199254740991, "description": "Group or QQ number."},
    "text": {"type": "string", "minLength": 1, "maxLength": 4500, "description": "Sent literally: CQ codes stay text."},
    "reply_to": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647, "not": {"const": 0}, "description": "Message id to quote."}
  },
  "required": ["message_type", "target_id", "text"],
  "additionalProperties": false
}`

const previewResult = `{"type": "object", "properties": {"can_send": {"type": "boolean"}}, "required": ["draft", "can_send", "invoke"]}`

// previewTool declares preview_message. It runs in every mode and contacts
// nothing; can_send says whether this server's mode lets the draft be sent.
// Clients that show MCP Apps get the panel's resourceUri in its _meta, and
// in every result's _meta the server's language and mode (PanelMetaKey).
func previewTool(mode config.Mode, l lang.Lang, sandbox, dryRun bool) toolkit.Spec {
	canSend := mode == config.ModeWrite
	cannotSend := ""
	switch mode {
	case config.ModeRead:
		cannotSend = "This server runs in read mode, so it cannot send: set SNOWLUMA_MCP_MODE=write in its environment and restart it."
	case config.ModeDocs:
		cannotSend = "No SnowLuma endpoint is configured (docs mode), so nothing can be sent: set SNOWLUMA_MCP_ENDPOINT and SNOWLUMA_MCP_MODE=write and restart the server."
	}
	return toolkit.Spec{
		Name:        "preview_message",
		Title:       "Preview a QQ message",
		Description: "Draft a text message without sending: readable draft, can_send, invoke_action arguments.",
		Input:       previewInput,
		Output:      previewResult,
		Needs:       config.ModeDocs,
		Idempotent:  true,
		ListMeta: func(caps *mcp.ClientCapabilities) mcp.Meta {
			if !showsApps(caps) {
				return nil
			}
			return mcp.Meta{"ui": map[string]any{"resourceUri": PreviewPanelURI}}
		},
		ResultMeta: func(caps *mcp.ClientCapabilities) mcp.Meta {
			if !showsApps(caps) {
				return nil
			}
			m := map[string]any{"lang": string(l), "mode": string(mode)}
			if sandbox {
				m["sandbox"] = true
			}
			if dryRun {
				m["dry_run"] = true
			}
			return mcp.Meta{PanelMetaKey: m}
		},
		Handler: toolkit.Handle(func(_ context.Context, _ *toolkit.Call, in preview.Args) outcome.Reply {
			p, problems := preview.Prepare(in, canSend, cannotSend)
			if problems != nil {
				parts := make([]string, len(problems))
				for i, pr := range problems {
					parts[i] = "argument /" + pr.String()
				}
				return outcome.Fail(outcome.KindInvalidArguments, "preview_message: "+strings.Join(parts, "; "), "fix the named arguments and call again; nothing was sent")
			}
			return outcome.OK(p)
		}),
	}
}

// previewFeature serves preview_message and its MCP Apps panel.
func previewFeature(d *deps) (feature, error) {
	return feature{tools: []toolkit.Spec{previewTool(d.mode, d.exec.lang, d.backend.Sandbox, d.backend.DryRun)}, attach: func(s *mcp.Server) error { return addPreviewPanel(s, d.dispatch) }}, nil
}

// addPreviewPanel serves the panel as a ui:// resource. Apps hosts see it in
// resources/list; anyone may read it (hosts prefetch), and reads carry the
// public five-minute cache hints of every bundled asset (setCacheable). It
// fails when the embedded panel is not a usable build, so a broken package
// is seen at start rather than as a blank view.
func addPreviewPanel(s *mcp.Server, dispatch *mcpseam.Dispatch) error {
	html, err := ui.Panel()
	if err != nil {
		return err
	}
	meta := panelMeta()
	s.AddResource(&mcp.Resource{
		URI:         PreviewPanelURI,
		Name:        "message-preview",
		Title:       "Message preview panel",
		Description: "The MCP Apps panel of preview_message: shows the draft as text and sends it with invoke_action after one click.",
		MIMEType:    ui.MIMEType,
		Meta:        meta,
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: PreviewPanelURI, MIMEType: ui.MIMEType, Text: html, Meta: meta}}}, nil
	})
	dispatch.On("resources/list", panelListing)
	return nil
}

// panelMeta is the panel resource's MCP Apps metadata: a content security
// policy with no external domain at all (no connections, scripts, styles,
// fonts, images or frames from anywhere), and a request for a border.
func panelMeta() mcp.Meta {
	return mcp.Meta{"ui": map[string]any{
		"csp": map[string]any{
			"connectDomains":  []string{},
			"resourceDomains": []string{},
			"frameDomains":    []string{},
		},
		"prefersBorder": true,
	}}
}

// showsApps reports whether the client advertised the MCP Apps extension
// with the HTML view type: per request for 2026-07-28 clients, in initialize
// for legacy ones (the SDK's ClientCapabilities reads both).
func showsApps(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	settings, found := caps.Extensions[appsExtension]
	if !found {
		return false
	}
	var s struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	b, err := json.Marshal(settings)
	if err != nil || json.Unmarshal(b, &s) != nil {
		return false
	}
	return slices.Contains(s.MIMETypes, ui.MIMEType)
}

// panelListing leaves the panel out of resources/list for clients that
// cannot show it. The list is one page, so filtering the page filters it.
func panelListing(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		lr, isList := res.(*mcp.ListResourcesResult)
		lreq, isReq := req.(*mcp.ListResourcesRequest)
		if err != nil || !isList || !isReq || showsApps(lreq.ClientCapabilities()) {
			return res, err
		}
		lr.Resources = slices.DeleteFunc(slices.Clone(lr.Resources), func(r *mcp.Resource) bool { return r.URI == PreviewPanelURI })
		return lr, nil
	}
}
