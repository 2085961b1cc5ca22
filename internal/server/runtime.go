package server

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/media"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

type runtimeArgs struct {
	CheckConnection bool `json:"check_connection"`
}

const runtimeInput = `{
  "type": "object",
  "properties": {
    "check_connection": {"type": "boolean", "default": false, "description": "Also run get_login_info, get_status, get_version_info."}
  },
  "additionalProperties": false
}`

const runtimeResult = `{"type": "object", "properties": {"mode": {"enum": ["docs", "read", "write"]}, "server_support": {"const": "unknown"}}, "required": ["mode", "server_support", "transport", "safety", "events", "tasks"]}`

// runtimeInfo is get_runtime_info's answer. It never holds the endpoint,
// the token or any header.
type runtimeInfo struct {
	Mode config.Mode `json:"mode"`
	// Sandbox says SnowLuma is the simulated one of `snowluma-mcp
	// sandbox`; DryRun that writes are checked and not sent (pipeline's dry run).
	Sandbox           bool           `json:"sandbox"`
	DryRun            bool           `json:"dry_run"`
	ExecutionEnabled  bool           `json:"execution_enabled"`
	WriteEnabled      bool           `json:"write_enabled"`
	CatalogVersion    string         `json:"catalog_version"`
	ActionCount       int            `json:"action_count"`
	ServerSupport     string         `json:"server_support"`
	Transport         *transportInfo `json:"transport"`
	Safety            *safetyInfo    `json:"safety"`
	TasksEnabled      bool           `json:"tasks_enabled"`
	Tasks             *tasksInfo     `json:"tasks"`
	ConnectionChecked bool           `json:"connection_checked"`
	EventsEnabled     bool           `json:"events_enabled"`
	Events            *eventsInfo    `json:"events"`
	// Channel is the QQ channel's counters; absent when it is off.
	Channel any `json:"channel,omitempty"`
	// Archive is the message archive's summary; absent without one.
	Archive any `json:"archive,omitempty"`
	// Media is view_media's limits and counters; absent in docs mode.
	Media  *media.Runtime       `json:"media,omitempty"`
	Checks map[string]checkInfo `json:"checks,omitempty"`
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
	Diagnostics outcome.Diagnostics `json:"diagnostics"`
}

// runtimeFeature serves get_runtime_info.
func runtimeFeature(d *deps) (feature, error) {
	return feature{tools: []toolkit.Spec{runtimeTool(d.exec, d.events, d.channel, d.archive)}}, nil
}

// runtimeTool declares get_runtime_info. It runs in every mode and
// contacts SnowLuma only with check_connection, so it is open-world.
func runtimeTool(x *executor, ev *eventService, ch *channelService, ar *archiveService) toolkit.Spec {
	return toolkit.Spec{
		Name:        "get_runtime_info",
		Title:       "Runtime overview",
		Description: "Mode, limits, safety, events, tasks, archive. Failure kinds: " + toolkit.KindsURI + ".",
		Input:       runtimeInput,
		Output:      runtimeResult,
		Needs:       config.ModeDocs,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in runtimeArgs) outcome.Reply {
			r := x.runtimeInfo(ctx, c, in)
			if info, ok := r.Result.(runtimeInfo); ok {
				info.EventsEnabled, info.Events = ev != nil, ev.runtime()
				info.Channel = ch.runtime()
				if ar != nil {
					info.Archive = ar.runtime(ctx)
				}
				r.Result = info
			}
			return r
		}),
	}
}

// runtimeInfo answers get_runtime_info.
func (x *executor) runtimeInfo(ctx context.Context, c *toolkit.Call, in runtimeArgs) outcome.Reply {
	cat, r, loaded := x.catalog.get()
	if !loaded {
		return r
	}
	info := runtimeInfo{
		Mode:             x.mode,
		Sandbox:          x.backend.Sandbox,
		DryRun:           x.backend.DryRun,
		ExecutionEnabled: x.enabled(),
		WriteEnabled:     x.mode.Allows(config.ModeWrite),
		CatalogVersion:   cat.Version(),
		ActionCount:      cat.Len(),
		ServerSupport:    "unknown",
		Safety:           x.safetyInfo(),
	}
	info.Safety.UntrustedSends = cmp.Or(x.backend.UntrustedSends, untrusted.ModeConfirm)
	if c.Req != nil && c.Req.Session != nil && x.backend.Provenance != nil {
		info.Safety.UntrustedRead = untrusted.Strings(x.backend.Provenance.For(c.Req.Session).Chats())
	}
	if x.backend.Provenance != nil {
		info.Safety.UntrustedRecordProblem = x.backend.Provenance.Problem()
	}
	if x.enabled() {
		l := x.backend.Client.Limits()
		info.Transport = &transportInfo{
			RequestTimeoutMS:        l.Timeout.Milliseconds(),
			MaxResponseBytes:        l.MaxResponseBytes,
			MaxStreamBytes:          l.MaxStreamBytes,
			StreamIdleTimeoutMS:     l.StreamIdleTimeout.Milliseconds(),
			MaxCollectedStreamBytes: pipeline.MaxCollectedStream,
			ParamsValidated:         !x.backend.SkipParamsCheck,
		}
		x.describeFiles(info.Transport, l)
	}
	if m := x.backend.Media; m != nil {
		rt := m.Runtime(&x.backend.MediaStats)
		info.Media = &rt
	}
	if run := x.tasks; run != nil {
		info.TasksEnabled = true
		info.Tasks = &tasksInfo{TaskDir: run.Store().Dir(), Running: run.Running(), MaxRunning: tasks.MaxRunning}
	}
	if !in.CheckConnection {
		return outcome.OK(info)
	}
	if !x.enabled() {
		return outcome.Fail(outcome.KindModeGate, "check_connection needs read or write mode; this server runs in docs mode",
			"set SNOWLUMA_MCP_ENDPOINT (and optionally SNOWLUMA_MCP_MODE=read) and restart the server")
	}
	info.ConnectionChecked = true
	info.Checks = map[string]checkInfo{}
	// The three probes are independent reads: run them at once, so that a
	// slow or unreachable SnowLuma costs one timeout, not three.
	checks := []string{"get_login_info", "get_status", "get_version_info"}
	replies := make([]outcome.Reply, len(checks))
	var wg sync.WaitGroup
	for i, name := range checks {
		wg.Go(func() {
			replies[i] = x.call(ctx, &toolkit.Call{Req: c.Req, Trace: c.Trace}, actionArgs{Action: name}, false, false)
		})
	}
	wg.Wait()
	var failed []string
	for i, name := range checks {
		r := replies[i]
		info.Checks[name] = checkInfo{Result: r.Result, Diagnostics: r.Diag}
		if r.Diag.Outcome != outcome.OutcomeSuccess {
			failed = append(failed, name)
		}
	}
	r = outcome.OK(info)
	if len(failed) > 0 {
		first := info.Checks[failed[0]].Diagnostics
		r.Diag = outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: first.Kind,
			Message:  fmt.Sprintf("%d of %d connection checks did not succeed: %s", len(failed), len(checks), strings.Join(failed, ", ")),
			NextStep: "read each entry under result.checks; " + first.NextStep}
	}
	return r
}

// safetyInfo is get_runtime_info's view of the policy.
type safetyInfo struct {
	Sensitive         safety.Sensitive `json:"sensitive"`
	Confirm           safety.Confirm   `json:"confirm"`
	SendMinIntervalMS int64            `json:"send_min_interval_ms"`
	SendPerMinute     int              `json:"send_per_minute"`
	AllowedGroups     []int64          `json:"allowed_groups"`
	AllowedUsers      []int64          `json:"allowed_users"`
	Audit             bool             `json:"audit"`
	// UntrustedSends is the send gate's mode; UntrustedRead the chats
	// whose QQ users' text this connection was handed, where a reply
	// needs no confirmation. UntrustedRecordProblem says why the record
	// of chats read could not be read (every connection then starts
	// armed) or written (a restart forgets what was read since).
	UntrustedSends         untrusted.Mode `json:"untrusted_sends"`
	UntrustedRead          []string       `json:"untrusted_read,omitempty"`
	UntrustedRecordProblem string         `json:"untrusted_record_problem,omitempty"`
}

func (x *executor) safetyInfo() *safetyInfo {
	p := x.safety
	return &safetyInfo{
		Sensitive:         p.Sensitive,
		Confirm:           p.Confirm,
		SendMinIntervalMS: p.Pacer.Interval().Milliseconds(),
		SendPerMinute:     p.Pacer.PerMinute(),
		AllowedGroups:     p.Groups.Sorted(),
		AllowedUsers:      p.Users.Sorted(),
		Audit:             p.Audit != nil,
	}
}

// describeFiles fills get_runtime_info's file and stream fields.
func (x *executor) describeFiles(t *transportInfo, l transfer.Limits) {
	t.MaxStreams = l.MaxStreams
	t.StreamConnectTimeoutMS = l.StreamConnectTimeout.Milliseconds()
	t.MaxFileBytes = transfer.DefaultMaxFileBytes
	t.DownloadQuotaBytes = transfer.DefaultDownloadQuotaBytes
	if x.backend.Downloads != nil {
		dir := x.backend.Downloads.Dir()
		t.DownloadDir = &dir
		t.MaxFileBytes = x.backend.Downloads.MaxFileBytes()
		t.DownloadQuotaBytes = x.backend.Downloads.QuotaBytes()
	}
	if x.backend.Uploads != nil {
		root := x.backend.Uploads.Dir()
		t.UploadRoot = &root
		t.UploadEnabled = true
	}
}
