package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/config"
)

// A setting is one SNOWLUMA_MCP_* variable as the bundle's settings form
// asks for it. Its English help is the variable's own meaning, read from
// config.Variables(), so that the form says what --help and the README say;
// the title and the Chinese texts are the bundle's.
type setting struct {
	key       string // the user_config key
	typ       string // string, number, boolean or directory (MCPB user_config types)
	title     string
	titleZh   string
	descZh    string
	sensitive bool // a token: the host masks it and keeps it in the OS keychain
}

// settings are the variables a bundle asks for, by full name.
func settings() map[string]setting {
	return map[string]setting{
		"SNOWLUMA_MCP_ENDPOINT": {key: "endpoint", typ: "string", title: "SnowLuma OneBot HTTP endpoint",
			titleZh: "SnowLuma OneBot HTTP 地址",
			descZh:  "SnowLuma 的 OneBot HTTP 地址，例如 http://127.0.0.1:3000/，不带账号密码、查询串或片段。留空：docs 模式，只提供动作目录，什么也不执行。"},
		"SNOWLUMA_MCP_TOKEN": {key: "token", typ: "string", title: "Access token", sensitive: true,
			titleZh: "访问令牌",
			descZh:  "SnowLuma OneBot HTTP 的访问令牌，只放在 Authorization 请求头里发送；填令牌本身，不要加 Bearer 前缀。不会写进日志、结果或文件。"},
		"SNOWLUMA_MCP_MODE": {key: "mode", typ: "string", title: "Mode",
			titleZh: "模式",
			descZh:  "docs、read 或 write。留空：有地址时为 read（只读动作），否则为 docs。write 允许任何动作，包括发消息。"},
		"SNOWLUMA_MCP_TIMEOUT_MS": {key: "timeout_ms", typ: "number", title: "Call timeout (ms)",
			titleZh: "调用超时（毫秒）",
			descZh:  "一次普通动作调用的超时，单位毫秒（1 到 86400000）。"},
		"SNOWLUMA_MCP_EVENTS_URL": {key: "events_url", typ: "string", title: "SnowLuma WebSocket server (live events)",
			titleZh: "SnowLuma WebSocket 服务（实时事件）",
			descZh:  "可选：承载事件的 SnowLuma WebSocket 服务，ws:// 或 wss:// 地址，例如 ws://127.0.0.1:3001/（SnowLuma 默认端口 3001，路径 /）。设置后 read 和 write 模式提供 subscribe_events 和 unsubscribe_events。留空：没有事件工具。"},
		"SNOWLUMA_MCP_EVENTS_TOKEN": {key: "events_token", typ: "string", title: "WebSocket access token", sensitive: true,
			titleZh: "WebSocket 访问令牌",
			descZh:  "可选：SnowLuma WebSocket 服务的访问令牌；SnowLuma 生成的配置里它和 HTTP 的令牌不同。留空：发送上面的访问令牌。保密规则与访问令牌相同。"},
		"SNOWLUMA_MCP_TASK_DIR": {key: "task_dir", typ: "directory", title: "Background task directory",
			titleZh: "后台任务目录",
			descZh:  "可选，write 模式：记录后台传输任务的私有目录（以 0700 创建），为支持 Tasks 扩展的 2026-07-28 客户端启用 invoke_action_background 和 list_tasks。与当前模式、地址和令牌绑定。"},
		"SNOWLUMA_MCP_LANG": {key: "lang", typ: "string", title: "Language (zh or en)",
			titleZh: "语言（zh 或 en）",
			descZh:  "zh 或 en：人读的内容所用的语言，包括缺参数和确认表单、doctor、启动错误和警告，以及宿主没给语言时的预览面板。留空：按系统区域设置。工具描述和结果始终是英文。"},
		"SNOWLUMA_MCP_SENSITIVE": {key: "sensitive_actions", typ: "string", title: "Sensitive actions (deny, redact or allow)",
			titleZh: "敏感动作（deny、redact 或 allow）",
			descZh:  "应答是账号凭据的动作（get_cookies、get_clientkey 等）：deny 拒绝执行；redact 执行但遮盖应答数据里的每个字符串和数字；allow 原样返回。"},
		"SNOWLUMA_MCP_CONFIRM": {key: "confirm", typ: "string", title: "Confirmation (none, destructive or writes)",
			titleZh: "确认（none、destructive 或 writes）",
			descZh:  "哪些动作运行前要由人在表单里确认：none 不要确认；destructive 为踢人、退群、撤回、删除等；writes 为每个写动作。"},
		"SNOWLUMA_MCP_UNTRUSTED_SENDS": {key: "untrusted_sends", typ: "string", title: "Sends after reading QQ messages (confirm, refuse or off)",
			titleZh: "读过 QQ 消息后的外发（confirm、refuse 或 off）",
			descZh:  "模型读过 QQ 用户写的消息后，发往没读过的会话、带网址、上传本地文件或发到任何会话之外的写动作：confirm 要由人确认（表单或 QQ 审批人），refuse 以 untrusted_context 拒绝，off 照常执行。在消息来源的会话里回复不受影响。"},
		"SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS": {key: "send_min_interval_ms", typ: "number", title: "Least interval between sends to one chat (ms)",
			titleZh: "同一会话两次发送的最小间隔（毫秒）",
			descZh:  "向同一个群或用户两次发消息之间至少相隔的毫秒数（0 到 86400000，0 为关闭）。更快的发送以 rate_limited 拒绝。"},
		"SNOWLUMA_MCP_SEND_PER_MINUTE": {key: "send_per_minute", typ: "number", title: "Most sends per minute",
			titleZh: "每分钟最多发送条数",
			descZh:  "任意一分钟内、所有目标合计最多发送的消息条数（0 到 100000，0 为关闭）。超出的发送以 rate_limited 拒绝。"},
		"SNOWLUMA_MCP_ALLOWED_GROUPS": {key: "allowed_groups", typ: "string", title: "Allowed groups",
			titleZh: "允许的群",
			descZh:  "逗号分隔的群号：动作只能在 group_id（或目录角色为 group_id 的参数）里写这些群，其他群以 target_not_allowed 拒绝，读取也一样。留空：任何群。"},
		"SNOWLUMA_MCP_ALLOWED_USERS": {key: "allowed_users", typ: "string", title: "Allowed users",
			titleZh: "允许的用户",
			descZh:  "逗号分隔的 QQ 号：动作只能在 user_id（或目录角色为 user_id、member_id 的参数，如 target_id）里写这些用户，其他用户以 target_not_allowed 拒绝，读取也一样。留空：任何用户。"},
		"SNOWLUMA_MCP_DRY_RUN": {key: "dry_run", typ: "boolean", title: "Dry run",
			titleZh: "演练（dry run）",
			descZh:  "开启后，每个写动作和上传照常通过所有检查（模式、参数、白名单、节奏、确认），然后不发送：记入审计和日志，并以 dry_run 应答，写明动作和目标；只读动作仍然发给 SnowLuma。"},
		"SNOWLUMA_MCP_AUDIT_FILE": {key: "audit_file", typ: "string", title: "Audit file (absolute path)",
			titleZh: "审计文件（绝对路径）",
			descZh:  "可选：一个文件的绝对路径，每次尝试写动作都追加一行 JSON（只有编号和结果），以 0600 创建，所在文件夹不存在时会创建。写不进去时拒绝写动作。留空：不审计。"},
		"SNOWLUMA_MCP_DOWNLOAD_DIR": {key: "download_dir", typ: "directory", title: "Download directory",
			titleZh: "下载目录",
			descZh:  "可选：下载保存到的目录，不存在时以 0700 创建；已存在且其他用户可写的目录会让服务器拒绝启动（Windows 不检查）。留空：Windows 上是“下载”文件夹里的 snowluma-mcp（%USERPROFILE%\\Downloads\\snowluma-mcp），其他系统是用户缓存目录下的私有文件夹。"},
		"SNOWLUMA_MCP_UPLOAD_ROOT": {key: "upload_root", typ: "directory", title: "Upload folder",
			titleZh: "上传文件夹",
			descZh:  "可选：自动上传唯一可以读取文件的已有目录（解析符号链接）。留空：关闭自动上传。"},
		"SNOWLUMA_MCP_MAX_FILE_BYTES": {key: "max_file_bytes", typ: "number", title: "Largest file (bytes)",
			titleZh: "最大文件（字节）",
			descZh:  "一次下载保存或一次自动上传发送的最大文件，单位字节。"},
		"SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES": {key: "download_quota_bytes", typ: "number", title: "Download directory quota (bytes)",
			titleZh: "下载目录配额（字节）",
			descZh:  "整个下载目录最多容纳的字节数；会超出的下载以 quota 失败。"},
		"SNOWLUMA_MCP_ARCHIVE": {key: "archive", typ: "string", title: "Message archive file (absolute path)",
			titleZh: "消息归档文件（绝对路径）",
			descZh:  "可选，read 和 write 模式：一个 SQLite 文件的绝对路径（以 0600 创建，目录 0700），保存所选会话的消息（实时事件、SnowLuma 历史补齐、机器人自己发出的消息），提供 search_messages、read_messages、list_chats 和 mark_read，推送通道也靠它补上错过的消息。一个文件同时只能由一个服务器使用；不保存令牌。留空：不归档。"},
		"SNOWLUMA_MCP_ARCHIVE_GROUPS": {key: "archive_groups", typ: "string", title: "Archived groups",
			titleZh: "归档的群",
			descZh:  "用逗号分隔的群号，或 * 表示允许名单内的所有群。"},
		"SNOWLUMA_MCP_ARCHIVE_USERS": {key: "archive_users", typ: "string", title: "Archived private chats",
			titleZh: "归档的私聊",
			descZh:  "用逗号分隔的 QQ 号，或 * 表示允许名单内的所有人。"},
		"SNOWLUMA_MCP_ARCHIVE_DAYS": {key: "archive_days", typ: "number", title: "Archive retention (days)",
			titleZh: "归档保留天数",
			descZh:  "消息保留的天数（1 到 36500），更早的从最旧的开始删除。"},
		"SNOWLUMA_MCP_ARCHIVE_MAX_BYTES": {key: "archive_max_bytes", typ: "number", title: "Archive size limit (bytes)",
			titleZh: "归档大小上限（字节）",
			descZh:  "归档数据最多占用的字节数；超过时从最旧的消息开始删除。"},
		"SNOWLUMA_MCP_ARCHIVE_KEEP_RECALLED": {key: "archive_keep_recalled", typ: "boolean", title: "Keep recalled messages' text",
			titleZh: "保留已撤回消息的文字",
			descZh:  "开启后保留被撤回消息的文字（无论如何都会标记为已撤回）；关闭时从文件和检索索引中删除文字。"},
		"SNOWLUMA_MCP_ARCHIVE_READER": {key: "archive_reader", typ: "string", title: "Archive reader name",
			titleZh: "归档读者名",
			descZh:  "共用的 PostgreSQL 归档里，已读标记按读者名各自独立；留空用操作系统的用户名。"},
		"SNOWLUMA_MCP_TZ": {key: "time_zone", typ: "string", title: "Time zone",
			titleZh: "时区",
			descZh:  "操作者的时区：归档显示的时间带上它的时差（2026-12-03T09:40:00+08:00），不带时差的 since/until/before/after 按它读。IANA 名（例如 Asia/Shanghai）或时差（例如 +08:00）；留空用系统时区。"},
		"SNOWLUMA_MCP_MAX_IMAGE_BYTES": {key: "max_image_bytes", typ: "number", title: "Largest picture shown (bytes)",
			titleZh: "返回图片的最大字节数",
			descZh:  "view_media 交给模型的一张图片重新编码后的最大字节数（1 到 16777216）：更大的先降低质量，再缩小尺寸，直到放得下。"},
	}
}

// sandboxOnly is why the sandbox's variables are not in the bundle.
const sandboxOnly = "read only by snowluma-mcp sandbox, which a bundle does not start"

// channelOnly is why the channel's variables are not in the bundle.
const channelOnly = "the QQ channel serves Claude Code sessions, and Claude Code does not install bundles (claude mcp add)"

// leftOut are the variables a bundle does not ask for, each with the reason.
// They keep their defaults; an operator who needs one configures the server
// in the host's own configuration file instead (README, Host
// configurations). A variable in neither list fails the release, so that a
// new one is placed on purpose.
func leftOut() map[string]string {
	return map[string]string{
		"SNOWLUMA_MCP_MAX_REQUEST_BYTES":         "a limit on the host's own protocol lines, which the default fits; not a choice about the bot",
		"SNOWLUMA_MCP_MAX_BODY_BYTES":            "the default is SnowLuma's own body limit; raising it only helps a different OneBot server",
		"SNOWLUMA_MCP_VALIDATE_PARAMS":           "for a SnowLuma newer than the catalog; a bundle is replaced together with its catalog",
		"SNOWLUMA_MCP_MAX_STREAMS":               "transfer tuning with a safe default (SnowLuma's own stream limit bounds it)",
		"SNOWLUMA_MCP_STREAM_CONNECT_TIMEOUT_MS": "transfer tuning with a safe default",
		"SNOWLUMA_MCP_STREAM_IDLE_TIMEOUT_MS":    "transfer tuning with a safe default; a stream that keeps moving never times out",
		"SNOWLUMA_MCP_BOTS":                      "several bots are configured in the host's JSON: each further bot's variables are named after a label the operator chooses (SNOWLUMA_MCP_ENDPOINT_ALT), which a fixed form cannot hold",
		"SNOWLUMA_MCP_SANDBOX_SEED":              sandboxOnly,
		"SNOWLUMA_MCP_SANDBOX_TRICKLE_MS":        sandboxOnly,
		"SNOWLUMA_MCP_SANDBOX_REPORT_SELF":       sandboxOnly,
		// The channel pushes QQ messages into a Claude Code session; Claude
		// Code is set up with claude mcp add, not with a bundle.
		"SNOWLUMA_MCP_CHANNEL":           channelOnly,
		"SNOWLUMA_MCP_CHANNEL_GROUPS":    channelOnly,
		"SNOWLUMA_MCP_CHANNEL_USERS":     channelOnly,
		"SNOWLUMA_MCP_CHANNEL_APPROVERS": channelOnly,
	}
}

// A userField is one field of the bundle's user_config, in the order of
// config.Variables().
type userField struct {
	v config.Variable
	setting
}

// userFields lists the bundle's settings. Every variable the server reads
// must be in settings or in leftOut, and each list may name only real
// variables: a release fails otherwise.
func userFields() ([]userField, error) {
	return placeVariables(config.Variables(), settings(), leftOut())
}

// placeVariables is userFields over the given variables and lists.
func placeVariables(vars []config.Variable, in map[string]setting, out map[string]string) ([]userField, error) {
	var fields []userField
	seen := map[string]bool{}
	var missing []string
	for _, v := range vars {
		seen[v.Name] = true
		s, ok := in[v.Name]
		_, skipped := out[v.Name]
		switch {
		case ok && skipped:
			return nil, fmt.Errorf("%s is both in the bundle's settings and left out (scripts/release/bundle.go)", v.Name)
		case ok:
			fields = append(fields, userField{v, s})
		case !skipped:
			missing = append(missing, v.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the bundle neither asks for %s nor says why not: add each to settings or leftOut in scripts/release/bundle.go", strings.Join(missing, ", "))
	}
	for _, m := range []map[string]string{keys(in), out} {
		for name := range m {
			if !seen[name] {
				return nil, fmt.Errorf("scripts/release/bundle.go names %s, which the server does not read", name)
			}
		}
	}
	return fields, nil
}

func keys(m map[string]setting) map[string]string {
	out := map[string]string{}
	for k := range m {
		out[k] = ""
	}
	return out
}

// object is a JSON object whose members keep their order: a host shows
// user_config's fields as the manifest lists them.
type object []member

type member struct {
	key   string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// The bundle's own texts, in English and in Chinese (mcpb-resources).
const (
	displayName       = "SnowLuma OneBot"
	bundleDescription = "SnowLuma's OneBot action catalog for any MCP client and, when configured, a safe way to drive a running SnowLuma QQ bot."
	bundleLong        = "Without an endpoint the server only describes SnowLuma's actions. With one it runs read-only actions (mode read) or any action (mode write). " +
		"For an agent left alone in write mode, set a confirmation level, allowlists of groups and users, send pacing and an audit file; " +
		"credential actions are refused unless you choose otherwise. Live events need SnowLuma's WebSocket server. Run `snowluma-mcp doctor` with the same settings when something is wrong."
	descriptionZh = "为任何 MCP 客户端提供 SnowLuma 的 OneBot 动作目录；配置后，还能安全地操作正在运行的 SnowLuma QQ 机器人。"
	longZh        = "不填地址时，服务器只描述 SnowLuma 的动作。填了地址，read 模式执行只读动作，write 模式执行任何动作。" +
		"让智能体在 write 模式下无人看管时，请设置确认级别、群和用户白名单、发送节奏和审计文件；凭据类动作默认拒绝。实时事件需要 SnowLuma 的 WebSocket 服务。出问题时，用同样的设置运行 `snowluma-mcp doctor`。"
	// resources is where the bundle keeps its translations, relative to
	// its root; the zh-Hans file overrides the manifest's English texts.
	resources = "mcpb-resources/${locale}.json"
)

// Manifest builds the bundle manifest (MCPB manifest 0.3) for one
// platform. Each user_config field maps to one SNOWLUMA_MCP_* variable;
// both tokens are sensitive, so hosts keep them in the OS keychain.
func Manifest(version, goos, repoURL string, tools []map[string]string) (map[string]any, error) {
	fields, err := userFields()
	if err != nil {
		return nil, err
	}
	platform := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[goos]
	entry := "server/" + exe(goos)
	var userConfig object
	env := map[string]string{}
	for _, f := range fields {
		c := object{{"type", f.typ}, {"title", f.title}, {"description", f.v.Meaning}, {"required", false}}
		if f.v.Default != "" {
			var def any = f.v.Default
			switch f.typ {
			case "number":
				n, err := strconv.ParseFloat(f.v.Default, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: default %q is not a number", f.v.Name, f.v.Default)
				}
				def = n
			case "boolean":
				b, err := strconv.ParseBool(f.v.Default)
				if err != nil {
					return nil, fmt.Errorf("%s: default %q is not a boolean", f.v.Name, f.v.Default)
				}
				def = b
			}
			c = append(c, member{"default", def})
		}
		if f.sensitive {
			c = append(c, member{"sensitive", true})
		}
		userConfig = append(userConfig, member{f.key, c})
		env[f.v.Name] = "${user_config." + f.key + "}"
	}
	return map[string]any{
		"manifest_version": "0.3",
		"name":             "snowluma-mcp",
		"display_name":     displayName,
		"version":          version,
		"description":      bundleDescription,
		"long_description": bundleLong,
		"author":           map[string]any{"name": "snowluma-mcp developers"},
		"repository":       map[string]any{"type": "git", "url": repoURL},
		"server": map[string]any{
			"type":        "binary",
			"entry_point": entry,
			"mcp_config":  map[string]any{"command": "${__dirname}/" + entry, "args": []string{}, "env": env},
		},
		"tools":         tools,
		"compatibility": map[string]any{"platforms": []string{platform}},
		"user_config":   userConfig,
		"keywords":      []string{"snowluma", "onebot", "qq", "bot"},
		"localization":  map[string]any{"resources": resources, "default_locale": "en-US"},
	}, nil
}

// Chinese is the bundle's zh-Hans resource file: the manifest's texts a
// person reads, in Chinese. The MCPB specification names display_name,
// description, long_description, keywords and the tools' descriptions as
// localizable; the settings form's titles and help are given too, for a
// host that applies them. Tool descriptions stay English, as the server's
// own do (they are written for a model).
func Chinese() (map[string]any, error) {
	fields, err := userFields()
	if err != nil {
		return nil, err
	}
	var userConfig object
	for _, f := range fields {
		userConfig = append(userConfig, member{f.key, object{{"title", f.titleZh}, {"description", f.descZh}}})
	}
	return map[string]any{
		"display_name":     displayName,
		"description":      descriptionZh,
		"long_description": longZh,
		"keywords":         []string{"snowluma", "onebot", "qq", "机器人"},
		"user_config":      userConfig,
	}, nil
}
