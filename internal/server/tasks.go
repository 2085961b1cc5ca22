package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/tasks"
)

// Durable background transfers: invoke_action_background starts a stream
// action as a task of the tasks package and answers with a task handle
// (resultType "task"); tasks/get, tasks/cancel and tasks/update are the
// Tasks extension's methods; list_tasks lists what the store holds. All of
// it is served only to 2026-07-28 clients that advertise the extension.

// backgroundTool is the tool whose sends become tasks.
const backgroundTool = "invoke_action_background"

// TasksExtension is the id of the Tasks extension.
const TasksExtension = "io.modelcontextprotocol/tasks"

// pollIntervalMs is how often clients are asked to poll a task.
const pollIntervalMs = 1000

// taskService answers the task tools and methods.
type taskService struct {
	x      *executor
	runner *tasks.Runner // nil: tasks are off, for the reason in off
	off    *outcome.Refusal
}

// tasksFeature serves invoke_action_background, list_tasks and the task
// methods over the backend's task runner, and pushes its status changes to
// the listen streams when opts.TaskStreams is set.
func tasksFeature(d *deps) (feature, error) {
	t := newTaskService(d.exec, d.tasks, d.tasksOff)
	if d.tasks != nil && d.opts.TaskStreams != nil {
		d.tasks.OnChange(t.pushTo(d.opts.TaskStreams, d.log))
	}
	return feature{tools: t.specs(), attach: t.addTaskMethods}, nil
}

func newTaskService(x *executor, runner *tasks.Runner, problem string) *taskService {
	t := &taskService{x: x, runner: runner}
	switch {
	case runner == nil && problem != "":
		t.off = &outcome.Refusal{Kind: outcome.KindNotConfigured, Message: "background tasks are unavailable: " + problem,
			NextStep: "fix SNOWLUMA_MCP_TASK_DIR as the message says and restart the server, or use invoke_action"}
	case runner == nil:
		t.off = &outcome.Refusal{Kind: outcome.KindNotConfigured, Message: "background tasks are not configured",
			NextStep: "set SNOWLUMA_MCP_TASK_DIR to an absolute private directory (write mode) and restart the server, or use invoke_action"}
	}
	return t
}

type listTasksArgs struct {
	Cursor string `json:"cursor"`
	Limit  *int   `json:"limit"`
}

const listTasksInput = `{
  "type": "object",
  "properties": {
    "cursor": {"type": "string", "minLength": 1, "description": "Previous page's nextCursor."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}
  },
  "additionalProperties": false
}`

const listTasksResult = `{"type": "object", "properties": {"tasks": {"type": "array"}, "nextCursor": {"type": "string"}}, "required": ["tasks"]}`

// taskHandleResult is the schema of invoke_action_background's declared
// output: the tool answers with a task handle, never a tool result, except
// for a refusal before any task exists.
const taskHandleResult = `{"type": "object", "description": "Never set: a started task answers with its handle."}`

func (t *taskService) specs() []toolkit.Spec {
	return []toolkit.Spec{{
		Name:           "invoke_action_background",
		Title:          "Background transfer",
		Description:    "invoke_action for a stream action (download, input_file upload) as a task; answers with a task handle.",
		Input:          backgroundInput,
		Output:         taskHandleResult,
		Needs:          config.ModeWrite,
		Writes:         true,
		Destructive:    true,
		OpenWorld:      true,
		ModernOnly:     true,
		NeedsExtension: TasksExtension,
		Unavailable:    t.off,
		Handler:        toolkit.Handle(t.start),
	}, {
		Name:           "list_tasks",
		Title:          "List background tasks",
		Description:    "Background tasks, newest first, without results (tasks/get).",
		Input:          listTasksInput,
		Output:         listTasksResult,
		Needs:          config.ModeWrite,
		ModernOnly:     true,
		NeedsExtension: TasksExtension,
		Unavailable:    t.off,
		Handler:        toolkit.Handle(t.list),
	}}
}

// start checks the arguments exactly as invoke_action does, through the
// same pipeline (catalog, params, safety policy, confirmation round); the
// pipeline then launches the send as a task instead of running it.
func (t *taskService) start(ctx context.Context, c *toolkit.Call, in actionArgs) outcome.Reply {
	return t.x.call(ctx, c, in, true, true)
}

// launchTask returns the pipeline's Launch hook over runner, nil when
// tasks are off: it writes the task record, naming bot (the label of the
// account the send acts as, "" with one bot), and starts job, the checked
// send, as the task's job. The job outlives the request (see
// pipeline.Launch); its result is saved as the tool result it would have
// been.
func launchTask(runner *tasks.Runner, sandbox bool, bot string) pipeline.Launch {
	if runner == nil {
		return nil
	}
	return func(_ context.Context, action string, job func(context.Context) outcome.Reply) outcome.Reply {
		rec, err := runner.StartFor(bot, backgroundTool, action, func(ctx context.Context) (json.RawMessage, error) {
			reply := job(ctx)
			reply.Diag.Sandbox = sandbox // as every tool result says it
			saved, err := json.Marshal(toolkit.Render(reply))
			if err != nil {
				return nil, fmt.Errorf("the transfer's result could not be encoded: %w", err)
			}
			if reply.IsError {
				return saved, fmt.Errorf("%s: %s", reply.Diag.Message, reply.Diag.NextStep)
			}
			return saved, nil
		})
		if errors.Is(err, tasks.ErrBusy) {
			return outcome.Fail(outcome.KindBusy, err.Error(), "poll the running tasks with tasks/get or list_tasks and start this one when one has ended")
		}
		if err != nil {
			return outcome.Fail(outcome.KindTaskStore, "the task could not be recorded, so nothing was started: "+err.Error(),
				"check that SNOWLUMA_MCP_TASK_DIR is writable and has free space")
		}
		return outcome.Substitute(&taskHandle{ResultType: "task", taskView: view(rec)}, outcome.Diagnostics{Outcome: outcome.OutcomeSuccess})
	}
}

func (t *taskService) list(_ context.Context, _ *toolkit.Call, in listTasksArgs) outcome.Reply {
	limit := 50
	if in.Limit != nil {
		limit = *in.Limit
	}
	p, err := t.runner.Store().List(in.Cursor, limit)
	if errors.Is(err, tasks.ErrBadCursor) {
		return outcome.Fail(outcome.KindInvalidArguments, "argument /cursor: "+err.Error(), "call list_tasks without cursor")
	}
	if err != nil {
		return outcome.Fail(outcome.KindTaskStore, err.Error(), "check SNOWLUMA_MCP_TASK_DIR")
	}
	type entry struct {
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage,omitempty"`
		CreatedAt     string `json:"createdAt"`
		LastUpdatedAt string `json:"lastUpdatedAt"`
		Tool          string `json:"tool"`
		Action        string `json:"action"`
		Bot           string `json:"bot,omitempty"` // with several bots
	}
	type corrupt struct {
		TaskID string `json:"taskId"`
		Error  string `json:"error"`
	}
	out := struct {
		Tasks      []entry   `json:"tasks"`
		NextCursor string    `json:"nextCursor,omitempty"`
		Corrupted  []corrupt `json:"corrupted,omitempty"`
	}{Tasks: make([]entry, 0, len(p.Tasks)), NextCursor: p.Next}
	for _, r := range p.Tasks {
		out.Tasks = append(out.Tasks, entry{r.ID, string(r.Status), r.StatusMessage, stamp(r.CreatedAt), stamp(r.UpdatedAt), r.Tool, r.Action, r.Bot})
	}
	for _, c := range p.Corrupt {
		out.Corrupted = append(out.Corrupted, corrupt{c.ID, c.Error()})
	}
	return outcome.OK(out)
}

// A TaskNotifier writes notifications/tasks to the listen streams that
// asked for a task (see internal/listen).
type TaskNotifier interface {
	NotifyTask(ctx context.Context, id string, params map[string]any) error
}

// pushTo returns the runner's change hook: each status change goes to the
// streams that follow the task. A failed delivery is logged; the task's
// state stays readable with tasks/get.
func (t *taskService) pushTo(n TaskNotifier, log *slog.Logger) func(tasks.Record) {
	return func(r tasks.Record) {
		var params map[string]any
		b, _ := json.Marshal(view(r))
		json.Unmarshal(b, &params)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := n.NotifyTask(ctx, r.ID, params); err != nil {
			log.Warn("notifications/tasks", slog.String("task", r.ID), slog.String("error", err.Error()))
		}
	}
}

// taskView is a task as the extension shows it.
type taskView struct {
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"` // always null: results are kept until deleted
	PollIntervalMs int             `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *taskError      `json:"error,omitempty"`
}

type taskError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// taskFailedCode is the error code of a failed task: a server error in
// JSON-RPC's implementation-defined range.
const taskFailedCode = -32000

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// view shows a record; detail adds the saved result or the error.
func view(r tasks.Record) taskView {
	return taskView{TaskID: r.ID, Status: string(r.Status), StatusMessage: r.StatusMessage,
		CreatedAt: stamp(r.CreatedAt), LastUpdatedAt: stamp(r.UpdatedAt), PollIntervalMs: pollIntervalMs}
}

func detail(r *tasks.Record) taskView {
	v := view(*r)
	switch r.Status {
	case tasks.StatusCompleted:
		v.Result = r.Result
	case tasks.StatusFailed:
		e := &taskError{Code: taskFailedCode, Message: r.Error}
		if len(r.Result) > 0 {
			e.Data = r.Result
		}
		v.Error = e
	}
	return v
}

// taskHandle answers invoke_action_background: resultType task.
type taskHandle struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskView
}

// taskResult answers tasks/get and tasks/cancel.
type taskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskView
}

// emptyTaskResult answers tasks/update.
type emptyTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

type taskIDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

type updateTaskParams struct {
	mcp.ParamsBase
	TaskID         string         `json:"taskId"`
	InputResponses map[string]any `json:"inputResponses"`
}

// addTaskMethods serves tasks/get, tasks/cancel and tasks/update.
func (t *taskService) addTaskMethods(s *mcp.Server) error {
	if err := mcp.AddReceivingCustomMethod(s, "tasks/get", func(_ context.Context, _ *mcp.ServerSession, p *taskIDParams) (*taskResult, error) {
		if err := t.admit(p.Meta, p.TaskID); err != nil {
			return nil, err
		}
		r, err := t.runner.Store().Get(p.TaskID)
		if err != nil {
			return nil, taskLookupError(p.TaskID, err)
		}
		return &taskResult{ResultType: "complete", taskView: detail(r)}, nil
	}); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s, "tasks/cancel", func(_ context.Context, _ *mcp.ServerSession, p *taskIDParams) (*taskResult, error) {
		if err := t.admit(p.Meta, p.TaskID); err != nil {
			return nil, err
		}
		r, err := t.runner.Cancel(p.TaskID)
		if err != nil {
			return nil, taskLookupError(p.TaskID, err)
		}
		return &taskResult{ResultType: "complete", taskView: view(r)}, nil
	}); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s, "tasks/update", func(_ context.Context, _ *mcp.ServerSession, p *updateTaskParams) (*emptyTaskResult, error) {
		if err := t.admit(p.Meta, p.TaskID); err != nil {
			return nil, err
		}
		if _, err := t.runner.Store().Get(p.TaskID); err != nil {
			return nil, taskLookupError(p.TaskID, err)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("task %s has no outstanding input requests: background transfers never ask for input, so there is nothing to update", p.TaskID)}
	})
}

// admit refuses a task method to a client that may not use tasks: tasks
// off, a legacy session, or a client without the extension.
func (t *taskService) admit(meta mcp.Meta, id string) error {
	invalid := func(msg string) error { return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg} }
	if t.off != nil {
		return invalid(t.off.Message + "; " + t.off.NextStep)
	}
	if v, _ := meta["io.modelcontextprotocol/protocolVersion"].(string); v < toolkit.ModernRevision {
		return invalid("task methods are served to 2026-07-28 clients only; this request carries no 2026-07-28 protocol version (a legacy initialize session)")
	}
	var caps struct {
		Extensions map[string]any `json:"extensions"`
	}
	if raw, ok := meta["io.modelcontextprotocol/clientCapabilities"]; ok {
		b, _ := json.Marshal(raw)
		json.Unmarshal(b, &caps)
	}
	if _, ok := caps.Extensions[TasksExtension]; !ok {
		return invalid("task methods need a client that advertises the " + TasksExtension + " extension in its capabilities")
	}
	if id == "" {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "params.taskId is required"}
	}
	return nil
}

// taskLookupError turns a store error into a JSON-RPC error naming the task.
func taskLookupError(id string, err error) error {
	var ce *tasks.CorruptError
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no task %q in this task directory; list_tasks shows the tasks it holds", id)}
	case errors.As(err, &ce):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: ce.Error()}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %s: %v", id, err)}
}
