package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/media"
	"github.com/snowluma/snowluma-mcp/qqmsg"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// view_media: the pictures of a message as image content a model can see,
// a voice message as its text, other media as what they are and how to
// download them. The message comes from get_msg; pictures download through
// the download stream (quota, hash, no partial file) into the download
// directory, are read and removed, and are prepared by package media.
// Every action goes through the pipeline.

// maxShown is how many pictures one call shows at most.
const maxShown = 4

type viewArgs struct {
	MessageID json.RawMessage `json:"message_id"`
	Index     int             `json:"index"`
}

const viewInput = `{
  "type": "object",
  "properties": {
    "message_id": {"type": ["integer", "string"]},
    "index": {"type": "integer", "minimum": 1, "description": "N of [图片 #N]; default: up to 4 pictures."}
  },
  "required": ["message_id"],
  "additionalProperties": false
}`

const viewResult = `{"type": "object", "description": "{message_id, chat, media_count, items: [{index, kind, ...}], not_shown, trust}; images follow this block."}`

// mediaFeature serves view_media.
func mediaFeature(d *deps) (feature, error) {
	spec := viewTool(d.exec)
	if d.backend.Media == nil || d.backend.Downloads == nil {
		// Open gives both in read and write modes; a backend built
		// without them has no way to fetch and prepare a picture.
		spec.Unavailable = &outcome.Refusal{Kind: outcome.KindNotConfigured,
			Message:  "view_media needs a download directory and a picture decoder, and this server has none",
			NextStep: "run the server in read or write mode with SNOWLUMA_MCP_ENDPOINT set"}
	}
	f := feature{tools: []toolkit.Spec{spec}}
	if d.mode != config.ModeDocs {
		// Kept short: the whole of the instructions stays under 1 KB.
		f.instructions = " view_media shows a message's [图片 #N] or voice."
	}
	return f, nil
}

func viewTool(x *executor) toolkit.Spec {
	return toolkit.Spec{
		Name:        "view_media",
		Title:       "View a message's media",
		Description: "A QQ message's pictures as images with OCR text, voice as text, or how to download a video or file.",
		Input:       viewInput,
		Output:      viewResult,
		Needs:       config.ModeRead,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in viewArgs) outcome.Reply {
			return (&viewer{x: x, c: c}).view(ctx, in)
		}),
	}
}

// viewer is one view_media call.
type viewer struct {
	x *executor
	c *toolkit.Call
}

// viewItem is one media segment in view_media's answer.
type viewItem struct {
	Index int        `json:"index"`
	Kind  qqmsg.Kind `json:"kind"`
	// A picture: the source's format, size and bytes, and what is shown.
	Format string     `json:"format,omitempty"`
	Width  int        `json:"width,omitempty"`
	Height int        `json:"height,omitempty"`
	Bytes  int64      `json:"bytes,omitempty"`
	Shown  *shownInfo `json:"shown,omitempty"`
	// OCRText is the text QQ's OCR found in the picture; OCR says why
	// there is none when it failed.
	OCRText *string `json:"ocr_text,omitempty"`
	OCR     string  `json:"ocr,omitempty"`
	// A voice message's text, or why there is none.
	Text    *string `json:"text,omitempty"`
	Seconds int     `json:"seconds,omitempty"`
	// A video's or file's name and size.
	Name string `json:"name,omitempty"`
	Size int64  `json:"size,omitempty"`
	// File is a picture's file, which the answer's download takes.
	File string `json:"file,omitempty"`
	// Download says how to get the media itself (a picture: the answer's
	// download, said once for all of them).
	Download string `json:"download,omitempty"`
	// Error is why this item could not be shown.
	Error *outcome.Diagnostics `json:"error,omitempty"`
}

// shownInfo is the image a picture is shown as; its width and height are
// given only when they are not the picture's own (a picture scaled down).
type shownInfo struct {
	MIMEType string `json:"mime_type"`
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
	Bytes    int    `json:"bytes"`
}

type viewAnswer struct {
	MessageID  int64      `json:"message_id"`
	Chat       string     `json:"chat"`
	MediaCount int        `json:"media_count"`
	Items      []viewItem `json:"items"`
	NotShown   string     `json:"not_shown,omitempty"`
	// Download says how to save a picture's original, when items hold
	// any: each picture names its file.
	Download string `json:"download,omitempty"`
	Trust    string `json:"trust"`
}

// pictureDownload is view_media's download of a picture, whose file each
// picture item names.
const pictureDownload = `invoke_action download_file_image_stream {"file": <a picture's file>} saves its original`

func (v *viewer) view(ctx context.Context, in viewArgs) outcome.Reply {
	b := v.x.backend
	b.MediaStats.Calls.Add(1)
	id, ok := messageID(in.MessageID)
	if !ok {
		return outcome.Fail(outcome.KindInvalidArguments, "/message_id: not a message id: give the id as an integer or a string of digits",
			"pass message_id exactly as an event, a push or get_msg gives it")
	}
	r := v.read(ctx, "get_msg", map[string]any{"message_id": id})
	if r.Diag.Outcome != outcome.OutcomeSuccess {
		r.Diag.Message = "view_media: get_msg: " + r.Diag.Message
		return r
	}
	msg, err := readMessage(r.Result)
	if err != nil {
		return outcome.Fail(outcome.KindProtocol, "view_media: get_msg's answer holds no message: "+err.Error(), "check the message_id with query_action get_msg")
	}
	// The allowlists apply to the chat the message belongs to.
	var t safety.Targets
	// The chat is named as the archive tools name it.
	chat := archive.ChatKey(archive.Chat{ID: msg.UserID})
	if msg.MessageType == "group" || msg.GroupID != 0 {
		t.Groups, chat = []int64{msg.GroupID}, archive.ChatKey(archive.Chat{Group: true, ID: msg.GroupID})
	} else {
		t.Users = []int64{msg.UserID}
	}
	if out := v.x.safety.CheckTargets(t); out != nil {
		return outcome.Fail(outcome.KindTargetNotAllowed, fmt.Sprintf("the message is in %s, outside this server's allowed targets", strings.Join(out, ", ")),
			"view only messages of the groups and users in get_runtime_info's safety.allowed_groups and allowed_users")
	}
	items := qqmsg.Items(msg.Segments)
	if len(items) == 0 {
		return outcome.Fail(outcome.KindInvalidArguments, "the message has no pictures, voice, videos or files", "pass the message_id of a message whose text shows [图片 #N] or another media placeholder")
	}
	picked, notShown, r, ok := pick(items, in.Index)
	if !ok {
		return r
	}
	ans := viewAnswer{MessageID: id, Chat: chat, MediaCount: len(items), NotShown: notShown, Trust: channel.TrustUntrusted}
	var attach []outcome.Attachment
	var firstErr *outcome.Diagnostics
	for _, it := range picked {
		item, img := v.item(ctx, msg, it)
		if img != nil {
			attach = append(attach, outcome.Attachment{Data: img.Data, MIMEType: img.MIMEType})
		}
		if item.Error != nil && firstErr == nil {
			firstErr = item.Error
		}
		ans.Items = append(ans.Items, item)
		if item.File != "" {
			ans.Download = pictureDownload
		}
	}
	if len(attach) == 0 && firstErr != nil && picked[0].Kind.Visual() {
		// No picture could be shown: the call failed, for the first
		// reason. (A voice without text is an answer, not a failure.)
		return outcome.Fail(firstErr.Kind, firstErr.Message, firstErr.NextStep)
	}
	out := outcome.OK(ans)
	out.Attach = attach
	return out
}

// pick chooses the items one call shows: the one at index, or the
// pictures (any media when there is no picture), at most maxShown.
func pick(items []qqmsg.Item, index int) (picked []qqmsg.Item, notShown string, r outcome.Reply, ok bool) {
	if index > 0 {
		if index > len(items) {
			return nil, "", outcome.Fail(outcome.KindInvalidArguments,
				fmt.Sprintf("/index: the message has %d media, numbered 1 to %d; there is no #%d", len(items), len(items), index),
				"pass an index from a placeholder of this message, or none for its pictures"), false
		}
		return items[index-1 : index], "", outcome.Reply{}, true
	}
	var visual []qqmsg.Item
	for _, it := range items {
		if it.Kind.Visual() {
			visual = append(visual, it)
		}
	}
	if len(visual) == 0 {
		visual = items
	}
	if len(visual) > maxShown {
		var rest []string
		for _, it := range visual[maxShown:] {
			rest = append(rest, "#"+strconv.Itoa(it.Index))
		}
		notShown = fmt.Sprintf("%d more not shown (%s): call view_media with their index", len(rest), strings.Join(rest, ", "))
		visual = visual[:maxShown]
	}
	return visual, notShown, outcome.Reply{}, true
}

// item views one media segment.
func (v *viewer) item(ctx context.Context, msg *qqmsg.Event, it qqmsg.Item) (viewItem, *media.Image) {
	out := viewItem{Index: it.Index, Kind: it.Kind}
	switch it.Kind {
	case qqmsg.KindImage, qqmsg.KindSticker:
		return v.picture(ctx, it, out)
	case qqmsg.KindVoice:
		return v.voice(ctx, msg, it, out), nil
	case qqmsg.KindVideo:
		out.Name = it.Data["file"]
		out.Seconds = qqmsg.Seconds(it.Data)
		out.Download = fmt.Sprintf("invoke_action download_file_stream {\"file\": %q} saves it to the download directory", qqmsg.Source(it))
	case qqmsg.KindFile:
		out.Name = strings.TrimSpace(it.Data["name"])
		if out.Name == "" {
			out.Name = it.Data["file"]
		}
		out.Size, _ = strconv.ParseInt(strings.TrimSpace(cmpOr(it.Data["file_size"], it.Data["size"])), 10, 64)
		id := cmpOr(it.Data["file_id"], it.Data["id"])
		if msg.GroupID != 0 {
			out.Download = fmt.Sprintf("query_action get_group_file_url {\"group_id\": %d, \"file_id\": %q} gives its URL; invoke_action download_file_stream {\"file\": <that url>} saves it", msg.GroupID, id)
		} else {
			out.Download = fmt.Sprintf("query_action get_private_file_url {\"file_id\": %q} gives its URL; invoke_action download_file_stream {\"file\": <that url>} saves it", id)
		}
	}
	return out, nil
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// picture downloads, prepares and reads the text of one picture.
func (v *viewer) picture(ctx context.Context, it qqmsg.Item, out viewItem) (viewItem, *media.Image) {
	b := v.x.backend
	src := qqmsg.Source(it)
	out.File = src
	download := fmt.Sprintf("invoke_action download_file_image_stream {\"file\": %q} saves the original", src)
	data, fail := v.fetch(ctx, "download_file_image_stream", src)
	if fail != nil {
		out.Error = fail
		return out, nil
	}
	out.Bytes = int64(len(data))
	img, err := b.Media.Prepare(ctx, data)
	switch {
	case errors.Is(err, media.ErrUnreadable):
		b.MediaStats.Unreadable.Add(1)
		out.Error = &outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: outcome.KindMediaUnreadable,
			Message:  fmt.Sprintf("picture #%d: %v", it.Index, err),
			NextStep: "tell the user the picture could not be read; " + download + " for a person to open"}
		return out, nil
	case ctx.Err() != nil:
		out.Error = &outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: outcome.KindCancelled, Message: "the call was cancelled", NextStep: "call again if still needed"}
		return out, nil
	case err != nil:
		out.Error = &outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: outcome.KindTooLarge,
			Message: fmt.Sprintf("picture #%d: %v", it.Index, err), NextStep: "raise SNOWLUMA_MCP_MAX_IMAGE_BYTES, or " + download}
		return out, nil
	}
	b.MediaStats.Images.Add(1)
	out.Format, out.Width, out.Height = img.Format, img.Width, img.Height
	out.Shown = &shownInfo{MIMEType: img.MIMEType, Bytes: len(img.Data)}
	if img.OutWidth != img.Width || img.OutHeight != img.Height {
		out.Shown.Width, out.Shown.Height = img.OutWidth, img.OutHeight
	}
	// QQ's OCR, when it answers: some hosts do not show a tool's image to
	// the model at once, and the text keeps it from guessing.
	r := v.read(ctx, "ocr_image", map[string]any{"image": src})
	if text, ok := ocrText(r); ok {
		b.MediaStats.OCRTexts.Add(1)
		out.OCRText = &text
	} else {
		b.MediaStats.OCRFailed.Add(1)
		out.OCR = "no OCR text: " + cmpOr(r.Diag.Message, "ocr_image gave no texts")
	}
	return out, img
}

// fetch downloads a picture or a voice message through the download
// stream action, reads it and removes the saved file: only what view_media
// makes of it leaves this server.
func (v *viewer) fetch(ctx context.Context, action, src string) ([]byte, *outcome.Diagnostics) {
	// The download writes the host's disk, so it is no read; the server
	// runs it on its own behalf (no confirmation round: the file only
	// passes through), with every other step of the pipeline.
	params, _ := json.Marshal(map[string]string{"file": src})
	r := v.x.Own(ctx, v.x.callOf(v.c), action, params)
	if r.Diag.Outcome != outcome.OutcomeSuccess {
		d := r.Diag
		d.Message = action + ": " + d.Message
		return nil, &d
	}
	// The pipeline's download payload names the file.
	var saved *transfer.Saved
	if dl, ok := r.Result.(interface{ SavedFile() *transfer.Saved }); ok {
		saved = dl.SavedFile()
	}
	if r.Diag.Kind == outcome.KindDryRun {
		return nil, &outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: outcome.KindDryRun,
			Message:  "SNOWLUMA_MCP_DRY_RUN holds back downloads, so the picture was not fetched",
			NextStep: "the operator sets SNOWLUMA_MCP_DRY_RUN=false to view pictures"}
	}
	if saved == nil {
		return nil, &outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: outcome.KindInternal, Message: "the download left no file", NextStep: "report this to the snowluma-mcp maintainers"}
	}
	defer os.Remove(saved.Path)
	if saved.Bytes > media.MaxInputBytes {
		return nil, &outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: outcome.KindMediaUnreadable,
			Message:  fmt.Sprintf("the file has %d bytes, more than the %d MiB read", saved.Bytes, media.MaxInputBytes>>20),
			NextStep: "invoke_action " + action + " saves it for a person to open"}
	}
	data, err := os.ReadFile(saved.Path)
	if err != nil {
		return nil, &outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: outcome.KindLocalIO, Message: "the downloaded file could not be read back", NextStep: "check the download directory's disk, then call again"}
	}
	return data, nil
}

// voice gives a voice message's text from QQ's speech recognition.
func (v *viewer) voice(ctx context.Context, msg *qqmsg.Event, it qqmsg.Item, out viewItem) viewItem {
	b := v.x.backend
	b.MediaStats.Voices.Add(1)
	out.Seconds = qqmsg.Seconds(it.Data)
	out.Download = fmt.Sprintf("invoke_action download_file_record_stream {\"file\": %q} saves the audio", qqmsg.Source(it))
	if out.Seconds == 0 {
		// SnowLuma's record segments carry no duration: count the
		// audio's frames.
		if data, fail := v.fetch(ctx, "download_file_record_stream", qqmsg.Source(it)); fail == nil {
			if sec, ok := media.VoiceSeconds(data); ok {
				out.Seconds = max(1, int(sec+0.5))
			}
		}
	}
	// SnowLuma's catalog takes this id as a decimal string.
	r := v.read(ctx, "fetch_ptt_text", map[string]any{"message_id": strconv.FormatInt(msg.MessageID, 10)})
	var text string
	if r.Diag.Outcome == outcome.OutcomeSuccess {
		var env struct {
			Data struct {
				Text string `json:"text"`
			} `json:"data"`
		}
		if raw, ok := r.Result.(json.RawMessage); ok && json.Unmarshal(raw, &env) == nil {
			text = qqmsg.Clean(env.Data.Text, true) // as every text from QQ
		}
	}
	if text == "" {
		why := cmpOr(r.Diag.Message, "QQ's speech recognition gave no text")
		out.Error = &outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: cmpKind(r.Diag.Kind), Message: "no text for the voice message: " + why, NextStep: out.Download}
		return out
	}
	b.MediaStats.VoiceTexts.Add(1)
	out.Text = &text
	return out
}

func cmpKind(k outcome.Kind) outcome.Kind {
	if k == "" {
		return outcome.KindBusiness
	}
	return k
}

// ocrText joins the texts of an ocr_image answer, one a line.
func ocrText(r outcome.Reply) (string, bool) {
	raw, ok := r.Result.(json.RawMessage)
	if r.Diag.Outcome != outcome.OutcomeSuccess || !ok {
		return "", false
	}
	var env struct {
		Data struct {
			Texts []struct {
				Text string `json:"text"`
			} `json:"texts"`
		} `json:"data"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return "", false
	}
	var lines []string
	for _, t := range env.Data.Texts {
		if s := strings.TrimSpace(qqmsg.Clean(t.Text, false)); s != "" {
			lines = append(lines, s)
		}
	}
	return strings.Join(lines, "\n"), true
}

// messageID reads a message id given as a JSON integer or a string of
// digits (SnowLuma's ids are signed 32-bit, often negative).
func messageID(raw json.RawMessage) (int64, bool) {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return id, err == nil && id != 0
}

// readMessage reads the message out of get_msg's envelope.
func readMessage(result any) (*qqmsg.Event, error) {
	raw, ok := result.(json.RawMessage)
	if !ok {
		return nil, errors.New("not an envelope")
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, err
	}
	return qqmsg.ParseEvent(env.Data)
}

// read runs a read-only catalog action through the pipeline, as a part of
// this call.
func (v *viewer) read(ctx context.Context, action string, params map[string]any) outcome.Reply {
	raw, err := json.Marshal(params)
	if err != nil {
		return outcome.Fail(outcome.KindInternal, "view_media: "+err.Error(), "report this to the snowluma-mcp maintainers")
	}
	return v.x.Read(ctx, v.x.callOf(v.c), action, raw)
}
