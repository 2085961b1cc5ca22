package server

// Stream actions through invoke_action: the arguments. How each stream
// runs (a download to disk, an automatic upload of execution.input_file, a
// generic stream's frames) is the catalog's StreamKind for the action, and
// the pipeline's (internal/pipeline/stream.go) over transfer.Transfer;
// progress goes to the caller through mcpClient.Progress (exec.go).

// executionArgs is invoke_action's optional execution object.
type executionArgs struct {
	InputFile string `json:"input_file"`
}

// invokeInput is invoke_action's input: actionInput plus execution.
const invokeInput = `{
  "type": "object",
  "properties": {
    ` + actionProp + `,
    "params": {"type": "object", "description": "` + paramsHelp + ` With execution: filename, file_retention."},
    "execution": {
      "type": "object",
      "description": "upload_file_stream: the server uploads input_file.",
      "properties": {
        "input_file": {"type": "string", "minLength": 1, "description": "Absolute path in SNOWLUMA_MCP_UPLOAD_ROOT."}
      },
      "required": ["input_file"],
      "additionalProperties": false
    }
  },
  "required": ["action"],
  "additionalProperties": false
}`

// backgroundInput is invokeInput without the descriptions, for
// invoke_action_background, whose description sends the model to
// invoke_action's.
const backgroundInput = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "minLength": 1},
    "params": {"type": "object"},
    "execution": {"type": "object", "properties": {"input_file": {"type": "string", "minLength": 1}}, "required": ["input_file"], "additionalProperties": false}
  },
  "required": ["action"],
  "additionalProperties": false
}`

// invokeResult is invoke_action's payload schema: an envelope, a generic
// stream's frames, a saved download or a sent upload.
const invokeResult = `{"type": "object", "description": "The envelope as sent; a stream's {frames, count, terminal}; a download's {saved, terminal}; an upload's {sent, terminal}."}`
