package server

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/tasks"
)

type runtimeArgs struct {
	CheckConnection bool `json:"check_connection"`
}

const runtimeInput = `{
  "type": "object",
  "properties": {
    "check_connection": {"type": "boolean", "default": false, "description": "Read and write modes only: also run get_login_info, get_status and get_version_info against SnowLuma through the read-only gate and report each answer. Without it nothing is contacted."}
  },
  "additionalProperties": false
}`

const runtimeResult = `{
  "type": "object",
  "properties": {
    "mode": {"type": "string", "enum": ["docs", "read", "write"]},
    "execution_enabled": {"type": "boolean"},
    "write_enabled": {"type": "boolean"},
    "catalog_version": {"type": "string", "description": "SnowLuma release the bundled catalog describes."},
    "action_count": {"type": "integer"},
    "server_support": {"const": "unknown", "description": "Always unknown, by design: the catalog describes SnowLuma 1.11.1, and the connected SnowLuma may be another release, so this server does not claim that any action is available there. Call the action (or use check_connection) to find out."},
    "transport": {
      "type": ["object", "null"],
      "description": "Effective limits of calls to SnowLuma; null in docs mode. Paths, when present, are on the MCP host.",
      "properties": {
        "request_timeout_ms": {"type": "integer"},
        "max_response_bytes": {"type": "integer"},
        "max_stream_bytes": {"type": "integer"},
        "stream_idle_timeout_ms": {"type": "integer"},
        "max_collected_stream_bytes": {"type": "integer"},
        "params_validated": {"type": "boolean"},
        "download_dir": {"type": ["string", "null"], "description": "Where downloads are saved, on the MCP host."},
        "upload_root": {"type": ["string", "null"], "description": "The only directory automatic uploads read from; null when automatic upload is off."},
        "upload_enabled": {"type": "boolean", "description": "Whether execution.input_file works; stream actions still need write mode."},
        "max_file_bytes": {"type": "integer", "description": "Largest file a download saves or an upload sends."},
        "download_quota_bytes": {"type": "integer", "description": "Most bytes the download directory may hold."},
        "max_streams": {"type": "integer", "description": "Stream calls that may run at once; one more fails with busy."},
        "stream_connect_timeout_ms": {"type": "integer"}
      }
    },
    "safety": ` + safetySchema + `,
    "tasks_enabled": {"type": "boolean", "description": "true when background transfers are available (write mode, SNOWLUMA_MCP_TASK_DIR set and usable)."},
    "tasks": {"type": ["object", "null"], "description": "The background task store; null when tasks are off.", "properties": {
      "task_dir": {"type": "string", "description": "The task directory on the MCP host."},
      "running": {"type": "integer", "minimum": 0},
      "max_running": {"type": "integer"}
    }},
    "connection_checked": {"type": "boolean", "description": "true only when check_connection ran; local configuration is not proof of a live login."},
    "events_enabled": {"type": "boolean", "description": "true when subscribe_events is offered (SNOWLUMA_MCP_EVENTS_URL set, read or write mode)."},
    "events": {
      "type": ["object", "null"],
      "description": "The event connection; null when events are off. Never shows its URL or the token.",
      "properties": {
        "status": {"type": "string", "enum": ["not_connected", "connected", "disconnected", "stopped"]},
        "status_reason": {"type": "string"},
        "resources": {"type": "integer", "description": "Live event resources (at most 16)."},
        "greeting_wait_ms": {"type": "integer", "description": "How long subscribe_events waits after the upgrade for SnowLuma's greeting (a close in it is the answer, 1008 being unauthorized)."},
        "stall_after_heartbeats": {"type": "integer", "description": "Heartbeat intervals without any frame after which the connection counts as stalled and is dropped (disconnected)."},
        "default_heartbeat_interval_ms": {"type": "integer", "description": "The interval assumed until a heartbeat announces one."}
      }
    },
    "checks": {"type": "object", "description": "With check_connection: each action's {result, diagnostics}.", "additionalProperties": {"type": "object"}}
  },
  "required": ["mode", "execution_enabled", "write_enabled", "catalog_version", "action_count", "server_support", "transport", "safety", "connection_checked", "events_enabled", "events", "tasks_enabled", "tasks"]
}`

// runtimeInfo is get_runtime_info's answer. It never holds the endpoint,
// the token or any header.
type runtimeInfo struct {
	Mode              Mode                 `json:"mode"`
	ExecutionEnabled  bool                 `json:"execution_enabled"`
	WriteEnabled      bool                 `json:"write_enabled"`
	CatalogVersion    string               `json:"catalog_version"`
	ActionCount       int                  `json:"action_count"`
	ServerSupport     string               `json:"server_support"`
	Transport         *transportInfo       `json:"transport"`
	Safety            *safetyInfo          `json:"safety"`
	TasksEnabled      bool                 `json:"tasks_enabled"`
	Tasks             *tasksInfo           `json:"tasks"`
	ConnectionChecked bool                 `json:"connection_checked"`
	EventsEnabled     bool                 `json:"events_enabled"`
	Events            *eventsInfo          `json:"events"`
	Checks            map[string]checkInfo `json:"checks,omitempty"`
}

type transportInfo struct {
	RequestTimeoutMS        int64 `json:"request_timeout_ms"`
	MaxResponseBytes        int64 `json:"max_response_bytes"`
	MaxStreamBytes          int64 `json:"max_stream_bytes"`
	StreamIdleTimeoutMS     int64 `json:"stream_idle_timeout_ms"`
	MaxCollectedStreamBytes int64 `json:"max_collected_stream_bytes"`
	ParamsValidated         bool  `json:"params_validated"`

	DownloadDir            *string `json:"download_dir"`
	UploadRoot             *string `json:"upload_root"`
	UploadEnabled          bool    `json:"upload_enabled"`
	MaxFileBytes           int64   `json:"max_file_bytes"`
	DownloadQuotaBytes     int64   `json:"download_quota_bytes"`
	MaxStreams             int     `json:"max_streams"`
	StreamConnectTimeoutMS int64   `json:"stream_connect_timeout_ms"`
}

type tasksInfo struct {
	TaskDir    string `json:"task_dir"`
	Running    int    `json:"running"`
	MaxRunning int    `json:"max_running"`
}

type checkInfo struct {
	Result      any                 `json:"result"`
	Diagnostics toolkit.Diagnostics `json:"diagnostics"`
}

// runtimeTool declares get_runtime_info. It runs in every mode and
// contacts SnowLuma only with check_connection, so it is open-world.
func runtimeTool(x *executor, ev *eventService) toolkit.Spec {
	return toolkit.Spec{
		Name:        "get_runtime_info",
		Title:       "SnowLuma MCP runtime overview",
		Description: "Describe this server as configured: mode, whether execution and writes are enabled, the catalog version and size, the effective transport limits, the account-safety policy, and whether live events are enabled with their connection status. server_support is always \"unknown\": the catalog is a snapshot of SnowLuma 1.11.1, not proof of what the connected SnowLuma supports. Contacts nothing unless check_connection is true (read and write modes), which runs get_login_info, get_status and get_version_info at once and reports each answer. Never shows the endpoint or token.",
		Input:       runtimeInput,
		Output:      runtimeResult,
		Needs:       toolkit.ModeDocs,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in runtimeArgs) toolkit.Reply {
			r := x.runtimeInfo(ctx, c, in)
			if info, ok := r.Result.(runtimeInfo); ok {
				info.EventsEnabled, info.Events = ev != nil, ev.runtime()
				r.Result = info
			}
			return r
		}),
	}
}

// runtimeInfo answers get_runtime_info.
func (x *executor) runtimeInfo(ctx context.Context, c *toolkit.Call, in runtimeArgs) toolkit.Reply {
	cat, r, loaded := x.catalog.get()
	if !loaded {
		return r
	}
	info := runtimeInfo{
		Mode:             x.mode,
		ExecutionEnabled: x.enabled(),
		WriteEnabled:     x.mode.Allows(ModeWrite),
		CatalogVersion:   cat.Version(),
		ActionCount:      cat.Len(),
		ServerSupport:    "unknown",
		Safety:           x.safetyInfo(),
	}
	if x.enabled() {
		l := x.client.Limits()
		info.Transport = &transportInfo{
			RequestTimeoutMS:        l.Timeout.Milliseconds(),
			MaxResponseBytes:        l.MaxResponseBytes,
			MaxStreamBytes:          l.MaxStreamBytes,
			StreamIdleTimeoutMS:     l.StreamIdleTimeout.Milliseconds(),
			MaxCollectedStreamBytes: MaxCollectedStream,
			ParamsValidated:         x.validate,
		}
		x.describeFiles(info.Transport, l)
	}
	if x.tasks != nil {
		info.TasksEnabled = true
		info.Tasks = &tasksInfo{TaskDir: x.tasks.Store().Dir(), Running: x.tasks.Running(), MaxRunning: tasks.MaxRunning}
	}
	if !in.CheckConnection {
		return toolkit.OK(info)
	}
	if !x.enabled() {
		return toolkit.Fail(toolkit.KindModeGate, "check_connection needs read or write mode; this server runs in docs mode",
			"set SNOWLUMA_MCP_ENDPOINT (and optionally SNOWLUMA_MCP_MODE=read) and restart the server")
	}
	info.ConnectionChecked = true
	info.Checks = map[string]checkInfo{}
	// The three probes are independent reads: run them at once, so that a
	// slow or unreachable SnowLuma costs one timeout, not three.
	checks := []string{"get_login_info", "get_status", "get_version_info"}
	replies := make([]toolkit.Reply, len(checks))
	var wg sync.WaitGroup
	for i, name := range checks {
		wg.Go(func() {
			replies[i] = x.run(ctx, &toolkit.Call{Req: c.Req, Trace: c.Trace}, actionArgs{Action: name}, false)
		})
	}
	wg.Wait()
	var failed []string
	for i, name := range checks {
		r := replies[i]
		info.Checks[name] = checkInfo{Result: r.Result, Diagnostics: r.Diag}
		if r.Diag.Outcome != toolkit.OutcomeSuccess {
			failed = append(failed, name)
		}
	}
	r = toolkit.OK(info)
	if len(failed) > 0 {
		first := info.Checks[failed[0]].Diagnostics
		r.Diag = toolkit.Diagnostics{Outcome: toolkit.OutcomeFailed, Kind: first.Kind,
			Message:  fmt.Sprintf("%d of %d connection checks did not succeed: %s", len(failed), len(checks), strings.Join(failed, ", ")),
			NextStep: "read each entry under result.checks; " + first.NextStep}
	}
	return r
}
