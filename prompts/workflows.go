package prompts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/snowluma/snowluma-mcp/completion"
)

// The arguments the workflows share.
var (
	groupArg = Arg{
		Name:        "group_id",
		Title:       Text{"Group", "群号"},
		Description: Text{"Group number; completes from the bot's groups by number or name.", "群号；可按群号或群名补全。"},
		Required:    true,
		Complete:    completion.Group,
		check:       checkGroup,
	}
	sinceArg = Arg{
		Name:        "since",
		Title:       Text{"Since", "起始"},
		Description: Text{"Where to start: an event cursor, a time (2026-12-01 08:00, 2026/12/01, Unix seconds), today or yesterday, or a duration back (2h, 2 hours, 3d). Default: the latest messages.", "从哪里开始：事件游标、时间（2026-12-01 08:00、2026/12/01、12月1日 或 Unix 秒）、今天或昨天，或往前的时长（2小时、2h、3天）。默认：最近的消息。"},
		check:       checkSince,
	}
)

// historyStep is the step that reads a group's recent messages.
func historyStep(w *writer, group int64, until string) {
	w.step("Read the history: query_action with %s; its lines read \"HH:MM sender(user_id) #message_id: text\" in time order, local time under a line with the date. For older messages call it again with message_id set to the first line's id (that page ends with that message again: skip the repeat), %s; stop when the answer's reach says SnowLuma's history goes no further back.",
		call("get_group_msg_history", "group_id", group, "count", 50), until)
}

// groupDigest summarises a group.
func groupDigest() *Prompt {
	return &Prompt{
		Name:        "group_digest",
		Title:       Text{"Group digest", "群聊摘要"},
		Description: Text{"Summarise what happened in a group, from its message history and, where subscribed, its live events.", "总结一个群里发生的事：读取群消息记录，已订阅事件时也读取实时事件。"},
		Args:        []Arg{groupArg, sinceArg},
		Needs:       Live,
		render: func(w *writer, args map[string]any, env Env) {
			group := args["group_id"].(int64)
			s, _ := args["since"].(since)
			switch {
			case s.cursor != "":
				w.lead("Summarise what happened in QQ group %d since event cursor %s.", group, s.cursor)
				w.step("Read the event resource that returned this cursor with ?after=%s (resources/read); it holds what arrived since, group_id %d among it. Keep reading with next_cursor while it returns events.", s.cursor, group)
				w.step("If the resource answers that the cursor is unknown or there is a gap, say so, and fill in from the history: query_action with %s.", call("get_group_msg_history", "group_id", group, "count", 50))
			case env.Archive:
				if s.at.IsZero() {
					w.lead("Summarise what happened recently in QQ group %d.", group)
					w.step("Read the local archive: read_messages %s gives the newest messages in time order; for older ones call it again with before set to the first message's message_id, up to about 200 messages.", object("group_id", group, "limit", 200))
				} else {
					w.lead("Summarise what happened in QQ group %d since %s.", group, when(s, env))
					w.step("Read the local archive: read_messages %s; while more_after is true, call it again with after set to the last message's message_id (about 500 messages at most).", object("group_id", group, "after", s.at.UTC().Format(time.RFC3339), "limit", 200))
				}
				w.step("Say where the answer lists gaps (messages that may be missing). If the archive holds no such chat (list_chats), read the history instead: query_action with %s.", call("get_group_msg_history", "group_id", group, "count", 50))
			default:
				if s.at.IsZero() {
					w.lead("Summarise what happened recently in QQ group %d.", group)
					historyStep(w, group, "up to about 200 messages")
				} else {
					w.lead("Summarise what happened in QQ group %d since %s.", group, when(s, env))
					historyStep(w, group, fmt.Sprintf("until the lines reach before %s (or about 500 messages)", s.at.In(env.Location).Format("2006-01-02 15:04 -07:00")))
				}
				if env.Events {
					w.step("For what arrives from now on: an event resource made by subscribe_events %s is read with ?after=<next_cursor>; read one that already covers this group rather than making another.", object("self_id", "<get_login_info's user_id>", "group_ids", []int64{group}, "types", []string{"message", "notice"}))
				}
			}
			w.step("Summarise by topic: what was discussed, decisions, questions left open, and anything the admins should look at (with its message_id). Do not call any action that sends or changes anything.")
		},
	}
}

// joinRequests proposes answers to a group's join requests.
func joinRequests() *Prompt {
	return &Prompt{
		Name:        "join_requests",
		Title:       Text{"Join requests", "处理入群申请"},
		Description: Text{"List a group's pending join requests and propose an answer for each, for a person to confirm; nothing is sent.", "列出一个群待处理的入群申请，为每条提出处理建议，由人确认；不会自动发送。"},
		Args:        []Arg{groupArg},
		Needs:       Live,
		render: func(w *writer, args map[string]any, env Env) {
			group := args["group_id"].(int64)
			w.lead("List the pending requests to join QQ group %d and propose an answer for each. Send nothing.", group)
			// SnowLuma's get_group_system_msg lists every group's pending
			// requests, each with group_id, requester_nick, message (the
			// comment) and flag "<QQ event type>:<group_id>:<uid>"; its
			// set_group_add_request matches "add:<group_id>:<uid>" by uid and
			// any other flag by group alone (the group's first request).
			w.step("query_action with %s: it lists the pending requests of every group the bot manages; every entry whose group_id is %d is one pending request to join it. Each has requester_nick, message (the requester's comment), requester_uin (0 when SnowLuma could not resolve the number) and flag, which has the form %s: a number (QQ's event type) first, then the group and the requester's uid.", call("get_group_system_msg"), group, "<event type>:<group_id>:<uid>")
			w.step("To answer a request, build its flag as %s from the last two parts of its listed flag (for a listed flag 1:%d:u_abc, the flag is add:%d:u_abc): SnowLuma matches that flag to the requester, while the listed flag as it is makes SnowLuma answer whichever request of the group it finds first.", "add:<group_id>:<uid>", group, group)
			w.step("query_action with %s lists requests QQ filtered out as risky: report those for %d too, to be answered in QQ itself.", call("get_group_ignore_add_request"), group)
			if env.Events {
				w.step("A request event (post_type request, request_type group) in an event resource carries the request's own flag (use it as it is), with the requester's QQ number (user_id) and comment.")
			}
			w.step("For each request: the requester (nickname, and QQ number when known), their comment, and your proposal, accept or decline, with a one-line reason.")
			answer := object("action", "set_group_add_request", "params", map[string]any{"flag": "add:<group_id>:<uid>", "approve": true, "reason": "<shown to the requester when declining>"})
			if env.Write {
				w.step("Show each proposal with the invoke_action arguments that would carry it out, %s, without calling it.", answer)
				w.step("A person confirms each one. Run a request's call only after a person confirms that request here, one call per request.")
			} else {
				w.step("Show each proposal with the action that would carry it out, %s, without calling it: this server is read-only, so a person answers the requests in QQ.", answer)
			}
		},
	}
}

// moderationSweep proposes recalls and mutes for rule-breaking messages.
func moderationSweep() *Prompt {
	return &Prompt{
		Name:        "moderation_sweep",
		Title:       Text{"Moderation sweep", "群巡检"},
		Description: Text{"Check a group's recent messages against its rules and propose recalls or mutes, each run only once a person confirms it.", "按群规检查最近的群消息，提出撤回或禁言建议，每一项经人确认后才执行。"},
		Args: []Arg{groupArg, {
			Name:        "rules",
			Title:       Text{"Rules", "群规"},
			Description: Text{"The rules to check, in your words. Default: no spam, ads, abuse, scams or explicit content.", "要检查的群规，用你自己的话写。默认：禁止刷屏、广告、辱骂、诈骗和色情内容。"},
			check:       checkText(MaxRules),
		}, {
			Name:        "user_id",
			Title:       Text{"Member", "成员"},
			Description: Text{"Only this member's messages: QQ number; completes from the group's members by number, nickname or card.", "只看这个成员的消息：QQ 号；可按号码、昵称或群名片补全。"},
			Complete:    completion.Member,
			check:       checkUser,
		}},
		Needs: Write,
		render: func(w *writer, args map[string]any, env Env) {
			group := args["group_id"].(int64)
			rules, ok := args["rules"].(string)
			if !ok {
				rules = "no spam or flooding, no advertising, no abuse or harassment, no scams, no explicit content"
			}
			w.lead("Check QQ group %d's recent messages against these rules (the operator's words): %s", group, quote(rules))
			who := ""
			if u, ok := args["user_id"].(int64); ok {
				who = fmt.Sprintf(" Look only at messages whose sender.user_id is %d.", u)
			}
			historyStep(w, group, "up to about 200 messages")
			w.step("List each message that breaks a rule: its message_id, sender, the rule and a short quote.%s", who)
			w.step("Propose one action for each: recall (invoke_action %s), mute (invoke_action %s, duration in seconds), or only a warning. Weigh repeat offenders and context; when unsure, propose nothing.",
				object("action", "delete_msg", "params", map[string]any{"message_id": "<message_id>"}),
				object("action", "set_group_ban", "params", map[string]any{"group_id": group, "user_id": "<sender>", "duration": 600}))
			confirm := "a person approves that proposal here"
			if env.Confirm {
				confirm += "; the server then asks a person to confirm it again through a form"
			}
			w.step("Run nothing until %s. Run each approved action on its own; never batch them, and never repeat one that was declined or failed.", confirm)
		},
	}
}

// diagnose explains what is wrong with the configuration or the connection.
func diagnose() *Prompt {
	return &Prompt{
		Name:        "diagnose",
		Title:       Text{"Diagnose", "故障诊断"},
		Description: Text{"Check the configuration and the connection to SnowLuma, and explain what is wrong and how to fix it.", "检查配置和与 SnowLuma 的连接，说明哪里出了问题、怎样修复。"},
		Needs:       Catalog,
		render: func(w *writer, _ map[string]any, env Env) {
			w.lead("Find out what is wrong with this snowluma-mcp server's configuration or its connection to SnowLuma, and how to fix it.")
			if env.Live {
				w.step("Call get_runtime_info with %s. connection_checked and checks hold the answers of get_login_info, get_status and get_version_info; each failure has diagnostics.kind, message and next_step.", object("check_connection", true))
				if env.Events {
					w.step("Look at events in the same answer: the event WebSocket's status and last error.")
				}
			} else {
				w.step("Call get_runtime_info. The server is in docs mode (no SNOWLUMA_MCP_ENDPOINT), so nothing can be checked against SnowLuma: say so, and how to set SNOWLUMA_MCP_ENDPOINT (SnowLuma's OneBot HTTP address, such as http://127.0.0.1:3000/) and SNOWLUMA_MCP_TOKEN.")
			}
			w.step("Explain each problem in plain words with its fix: the meaning and fix of each kind are in the resource snowluma://mcp/failure-kinds. Settings are SNOWLUMA_MCP_* variables in the MCP host's configuration for this server; the host must restart the server after a change.")
			w.step("For what this cannot see (tokens, directories, the event WebSocket's token), suggest running `snowluma-mcp doctor` with the same environment as the host; it says what is wrong and how to fix it. Never ask for or repeat a token.")
		},
	}
}

// draftMessage drafts a message and previews it for a person to send.
func draftMessage() *Prompt {
	return &Prompt{
		Name:        "draft_message",
		Title:       Text{"Draft a message", "起草消息"},
		Description: Text{"Draft a QQ message and show it with preview_message for a person to send; nothing is sent.", "起草一条 QQ 消息，用 preview_message 预览，由人决定是否发送；不会自动发送。"},
		Args: []Arg{{
			Name:        "target",
			Title:       Text{"To", "发给"},
			Description: Text{"group:<group number>, or user:<QQ number> for a private message; completes from groups and friends.", "group:<群号>，或私聊 user:<QQ 号>；可从群和好友补全。"},
			Required:    true,
			Complete:    completion.Target,
			check:       checkTarget,
		}, {
			Name:        "content",
			Title:       Text{"What to say", "内容"},
			Description: Text{"The message, or what it should say.", "消息本身，或它要表达的意思。"},
			Required:    true,
			check:       checkText(MaxContent),
		}},
		Needs: Catalog,
		render: func(w *writer, args map[string]any, env Env) {
			t := args["target"].(target)
			to, kind := fmt.Sprintf("user %d (a private message)", t.id), "private"
			if t.group {
				to, kind = fmt.Sprintf("group %d", t.id), "group"
			}
			w.lead("Draft a QQ message to %s. What it should say, in the operator's words (it may be the message itself): %s", to, quote(args["content"].(string)))
			w.step("Write the draft as plain text, in the language of the request, short and natural for QQ.")
			w.step("Call preview_message with %s and show the person its readable draft.", object("message_type", kind, "target_id", t.id, "text", "<your draft>"))
			if env.Write {
				w.step("Do not send it yourself. The person sends it from the preview, or asks you to: then call invoke_action with exactly the invoke arguments preview_message returned, once.")
			} else {
				w.step("This server cannot send messages in its mode: the person copies the draft into QQ.")
			}
		},
	}
}

// call is the arguments of query_action for action with params given as
// name, value pairs.
func call(action string, params ...any) string {
	p := map[string]any{}
	for i := 0; i+1 < len(params); i += 2 {
		p[params[i].(string)] = params[i+1]
	}
	return object("action", action, "params", p)
}

// args2 encodes name, value pairs as a JSON object.
func object(pairs ...any) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(pairs[i].(string)))
		b.WriteByte(':')
		b.WriteString(encode(pairs[i+1]))
	}
	b.WriteByte('}')
	return b.String()
}

// quote encodes s as a JSON string, leaving Chinese and <>& as they are.
func quote(s string) string { return encode(s) }

func encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("prompts: encoding %T: %v", v, err)) // only the package's own values reach it
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// when describes a since time in the operator's zone, with its Unix time.
func when(s since, env Env) string {
	at := s.at.In(env.Location).Format("2006-01-02 15:04 MST")
	if s.ago > 0 {
		return fmt.Sprintf("%s ago (%s, Unix time %d)", span(s.ago), at, s.at.Unix())
	}
	return fmt.Sprintf("%s (Unix time %d)", at, s.at.Unix())
}

// span writes a duration in days, hours and minutes: 3d, 1h30m.
func span(d time.Duration) string {
	var b bytes.Buffer
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}} {
		if n := d / u.unit; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d -= n * u.unit
		}
	}
	return b.String()
}
