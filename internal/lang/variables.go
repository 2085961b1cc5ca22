package lang

import (
	"maps"
	"slices"
)

// A variableText is one configuration variable as a Chinese reader sees it
// in --help and docs/configuration.zh-CN.md.
type variableText struct {
	// shown is the default as a person reads it; empty when the English
	// one is a bare value that reads the same in Chinese (30000, false,
	// 4194304 (4 MiB)).
	shown string
	// meaning is what the variable's desc tag in internal/config says.
	meaning string
}

// zhVariables holds every configuration variable's text in Chinese, keyed
// by its name after the SNOWLUMA_MCP_ prefix (the env tag in
// internal/config). A variable added there needs its entry here:
// internal/config's TestVariablesInChinese names each one missing.
// Variable names, values, paths and kinds stay as they are.
var zhVariables = map[string]variableText{
	"BOTS": {"未设置（一个机器人）",
		"一个服务器带多个 QQ 号：用逗号分隔的简短标签（小写字母开头，之后最多 15 个小写字母或数字），例如 main,alt,backup。" +
			"第一个机器人用 SNOWLUMA_MCP_ENDPOINT、SNOWLUMA_MCP_TOKEN、SNOWLUMA_MCP_EVENTS_URL 和 SNOWLUMA_MCP_EVENTS_TOKEN 配置；" +
			"其余每个用同样四个名字再加 _<标签>（SNOWLUMA_MCP_ENDPOINT_ALT、SNOWLUMA_MCP_TOKEN_ALT……；地址必填，令牌绝不借用别的机器人的）。" +
			"每个机器人都可以有自己的 SNOWLUMA_MCP_ALLOWED_GROUPS_<LABEL>、SNOWLUMA_MCP_ALLOWED_USERS_<LABEL> 和 SNOWLUMA_MCP_CHANNEL_APPROVERS_<LABEL>，" +
			"代替共用的那一份；其他变量都共用，审计日志的每一行写明是哪个机器人。多个机器人时，会访问 SnowLuma 的工具多一个可选参数 bot（标签或该账号的 QQ 号）。不设：只有一个机器人，配置和原来完全一样。"},
	"ENDPOINT": {"未设置（docs 模式）",
		"SnowLuma 的 OneBot HTTP 地址：完整的 http(s) URL，例如 http://127.0.0.1:3000/，不能带账号密码、查询参数或 # 片段。不设就是 docs 模式，什么也不执行。"},
	"TOKEN": {"未设置",
		"访问令牌，只放在 'Authorization: Bearer <token>' 请求头里发送。填令牌本身，只能是 ASCII 字符：不足 8 个字符照常运行，但会警告；首尾空白会去掉；" +
			"含控制字符、任何位置的不可见字符（零宽空格 U+200B、BOM U+FEFF、U+202E 等双向控制符）、非 ASCII 字符、'Bearer ' 前缀、整行粘贴的 'Authorization:' 请求头、" +
			"引号或示例里的占位符（<你的访问令牌>）时，服务器一启动就报错退出。令牌不会写进日志、结果或磁盘。"},
	"TIMEOUT_MS": {"", "一次普通动作调用的超时，单位毫秒（1 到 86400000）。"},
	"MODE": {"有 SNOWLUMA_MCP_ENDPOINT 时为 read，否则为 docs",
		"docs、read 或 write。没设 SNOWLUMA_MCP_ENDPOINT 时，不管这里写什么都是 docs 模式。"},
	"EVENTS_URL": {"未设置（没有事件工具）",
		"SnowLuma 的 WebSocket 服务，事件从这里来：ws:// 或 wss:// URL，例如 ws://127.0.0.1:3001/（SnowLuma 默认端口 3001、路径 /），不能带账号密码、查询参数或 # 片段（令牌放在 Authorization 请求头里）。" +
			"设置后，read 和 write 模式提供 subscribe_events 和 unsubscribe_events。不会从 SNOWLUMA_MCP_ENDPOINT 推测，也不跟随重定向。"},
	"EVENTS_TOKEN": {"沿用 SNOWLUMA_MCP_TOKEN",
		"SnowLuma WebSocket 服务的访问令牌；SnowLuma 生成的配置里，它和 HTTP 服务的令牌是分开的。不设或留空时发送 SNOWLUMA_MCP_TOKEN。" +
			"规则和保密与 SNOWLUMA_MCP_TOKEN 相同：去掉首尾空白，含控制字符或 'Bearer ' 前缀时一启动就报错退出，不会写进日志、结果或磁盘。"},
	"TASK_DIR": {"未设置（没有后台任务）",
		"仅 write 模式：记录后台传输任务的私有目录，写绝对路径（以 0700 创建）；为支持 Tasks 扩展的 2026-07-28 客户端提供 invoke_action_background 和 list_tasks。目录与当前的模式、地址和令牌绑定。"},
	"MAX_REQUEST_BYTES": {"", "从标准输入读取的一行请求最多多少字节（65536 到 268435456）；更长的行会被丢弃，并回复一个错误。"},
	"MAX_BODY_BYTES": {"",
		"发给 SnowLuma 的请求体最多多少字节（16384 到 1073741824）：SnowLuma 会截断更长的请求体并断开连接，所以超出的调用在发送前就以 too_large 拒绝，上传分块也会切到这个大小以内。" +
			"只有 OneBot 服务端收得下更大的请求体时才调高。"},
	"LANG": {"取自区域设置（LC_ALL、LC_MESSAGES、LANG），再不然取系统的显示语言：中文为 zh，其他为 en",
		"zh 或 en，常见写法都可以（zh-CN、zh_CN.UTF-8、zh-Hans、zh-TW、en-US 等）：人读的内容用哪种语言，包括缺参数和确认表单、doctor、启动时的错误和警告，以及宿主没给语言时的预览面板。" +
			"工具描述和结果始终是英文。"},
	"DRY_RUN": {"",
		"true、1 或 yes：演练。每个写动作和上传照常通过全部检查（模式、参数、允许名单、发送频率、确认），但不真正发出：审计和日志里记为演练，回复 dry_run，写明动作和对象；只读动作照常发往 SnowLuma。不分大小写。"},
	"SANDBOX_SEED": {"",
		"仅用于 snowluma-mcp sandbox：模拟账号的种子，0 到 18446744073709551615 之间的整数；种子相同，群、成员、历史消息和文件就相同。"},
	"SANDBOX_TRICKLE_MS": {"",
		"仅用于 snowluma-mcp sandbox：模拟账号自己“动一下”的间隔毫秒数（某个成员发一条消息，偶尔戳一戳或申请入群），0 到 86400000；0 表示没人操作时一直安静。"},
	"SANDBOX_REPORT_SELF": {"",
		"仅用于 snowluma-mcp sandbox：true、1 或 yes 时，模拟的 SnowLuma 把机器人自己发的消息作为 message_sent 事件推送，和 SnowLuma 打开 reportSelfMessage 时一样；false（SnowLuma 的默认）从不推送。不分大小写。"},
	"VALIDATE_PARAMS": {"",
		"true、1 或 yes：发送前按动作目录里的 inputSchema 检查动作参数；false、0 或 no：不检查直接发送（SnowLuma 比动作目录新时用）。不分大小写。"},
	"SENSITIVE": {"",
		"应答是账号凭据的动作（get_cookies、get_clientkey 等）：deny 拒绝执行；redact 照常执行，但遮盖应答 data 里的每个字符串和数字；allow 原样返回。"},
	"CONFIRM": {"",
		"哪些动作要先由人在表单里确认才执行：none 都不用确认；destructive 是踢人、退群、撤回、删除等；writes 是所有写动作。"},
	"UNTRUSTED_SENDS": {"",
		"confirm、refuse 或 off：模型一旦读到 QQ 用户写的内容（读了事件、推送通道推来的消息、别人的消息或名字），" +
			"写动作就按 SnowLuma 实际会怎么做来判断：发到哪里、会读取哪个本地文件或网址、是否带着别的会话的消息、是否在会话之外公开发布。" +
			"可能把这些内容带到别处的写动作，confirm 要由人确认（表单，或 QQ 上的审批人），refuse 以 untrusted_context 拒绝，off 照常执行。" +
			"在读过的会话里回复不受限制。读过的会话记录保留 24 小时，重启后仍在，存放在用户缓存目录里" +
			"（设置了 SNOWLUMA_MCP_TASK_DIR 时放在任务目录旁）；doctor 会列出这个文件。"},
	"SEND_MIN_INTERVAL_MS": {"",
		"向同一个群或同一个人两次发消息至少间隔多少毫秒（0 到 86400000，0 为不限）。发得更快的以 rate_limited 拒绝。"},
	"SEND_PER_MINUTE": {"",
		"任意一分钟内、所有对象合计最多发几条消息（0 到 100000，0 为不限）。超出的以 rate_limited 拒绝。"},
	"ALLOWED_GROUPS": {"未设置（不限群）",
		"用逗号分隔的群号：动作的 group_id（或动作目录里角色为 group_id 的参数）只能是这些群，别的群以 target_not_allowed 拒绝，只读动作也一样。"},
	"ALLOWED_USERS": {"未设置（不限用户）",
		"用逗号分隔的 QQ 号：动作的 user_id（或动作目录里角色为 user_id、member_id 的参数，如 target_id、target_uin）只能是这些人，别人以 target_not_allowed 拒绝，只读动作也一样。"},
	"AUDIT_FILE": {"未设置（不审计）",
		"审计文件的绝对路径（以 0600 创建）：每次尝试写动作都记一行 JSON（只记号码和结果）。文件写不进去时，写动作一律拒绝。"},
	"CHANNEL": {"",
		"off、mentions 或 all：把所列群和人的 QQ 消息通过推送通道推进 Claude Code 会话（mentions：群消息只推 @ 机器人或回复机器人的）。" +
			"需要 SNOWLUMA_MCP_EVENTS_URL，以及 read 或 write 模式；开启后，事件连接在启动时就建立。"},
	"CHANNEL_GROUPS": {"未设置（不推送群消息）",
		"用逗号分隔的群号，推送通道推送这些群的消息；设了 SNOWLUMA_MCP_ALLOWED_GROUPS 时，每个群都必须在其中。不设就不推送任何群。"},
	"CHANNEL_USERS": {"未设置（不推送私聊）",
		"用逗号分隔的 QQ 号，推送通道推送这些人的私聊消息；设了 SNOWLUMA_MCP_ALLOWED_USERS 时，每个号码都必须在其中。"},
	"CHANNEL_APPROVERS": {"未设置（不在 QQ 上审批）",
		"仅 write 模式：用逗号分隔的 QQ 号，这些人在和机器人的私聊里审批（回复 yes <id> 或 no <id>）：Claude Code 的权限请求，以及客户端不支持表单时本服务器的确认。" +
			"每个号码都必须在 SNOWLUMA_MCP_ALLOWED_USERS 允许之内。"},
	"ARCHIVE": {"未设置（不归档）",
		"read 和 write 模式：一个 SQLite 文件的绝对路径（文件以 0600 创建，所在目录 0700），或几个服务器共用的 PostgreSQL 数据库的 postgres:// URL（见 docs/archive.md），" +
			"保存所归档会话的消息，来自事件连接、SnowLuma 的历史记录和机器人自己发的消息；" +
			"提供 search_messages、read_messages、list_chats 和 mark_read，推送通道也靠它补上错过的消息。一个文件同时只能由一个服务器使用；令牌从不写进去，URL 里的密码从不显示。"},
	"ARCHIVE_READER": {"操作者的用户名",
		"谁在读共用的（PostgreSQL）归档：已读标记和推送通道的送达记录各归各的读者，两个操作者的未读数互不干扰。最多 64 个字符。"},
	"ARCHIVE_GROUPS": {"未设置（不归档群）",
		"要归档的群号，用逗号分隔；* 表示 SNOWLUMA_MCP_ALLOWED_GROUPS 允许的所有群。"},
	"ARCHIVE_USERS": {"未设置（不归档私聊）",
		"要归档私聊的 QQ 号，用逗号分隔；* 表示 SNOWLUMA_MCP_ALLOWED_USERS 允许的所有人。"},
	"ARCHIVE_DAYS":      {"", "消息保留多少天（1 到 36500）；过期的消息从最旧的开始删。"},
	"ARCHIVE_MAX_BYTES": {"", "归档数据最多占用多少字节；超过后从最旧的消息开始删。"},
	"ARCHIVE_KEEP_RECALLED": {"",
		"true、1 或 yes：保留被撤回消息的文字（无论哪种，消息都会标为已撤回）；false 则从文件和搜索索引里删掉文字。"},
	"TZ": {"系统时区",
		"你所在的时区：归档里的时间带上它的时差显示（2026-12-03T09:40:00+08:00），不带时差的 since/until/before/after 也按它来理解。填 IANA 时区名（例如 Asia/Shanghai），或时差（例如 +08:00）。"},
	"DOWNLOAD_DIR": {`Windows：%USERPROFILE%\Downloads\snowluma-mcp；其他系统：<用户缓存目录>/snowluma-mcp/downloads`,
		"MCP 主机上保存下载文件的目录，写绝对路径；不存在时以 0700 创建。已存在、但其他用户可写时，服务器一启动就报错退出（POSIX 系统；对它执行 chmod go-w）。"},
	"UPLOAD_ROOT": {"未设置（不自动上传）",
		"一个已有目录的绝对路径：invoke_action 的 execution.input_file 只能读这个目录里的文件（先解析符号链接）。"},
	"MAX_FILE_BYTES":       {"", "一次下载保存、或一次自动上传发送的文件最大多少字节。"},
	"DOWNLOAD_QUOTA_BYTES": {"", "整个下载目录最多存多少字节；会超出的下载以 quota 失败。"},
	"MAX_STREAMS":          {"", "同时最多运行几个流式调用（1 到 64）；多出的一个立即以 busy 失败。"},
	"STREAM_CONNECT_TIMEOUT_MS": {"",
		"连接 SnowLuma 并发出流式调用请求最多用多久，单位毫秒（1 到 86400000）。"},
	"STREAM_IDLE_TIMEOUT_MS": {"",
		"等流的下一段数据最多等多久，单位毫秒（1 到 86400000）；只要数据一直在来，再长的流也不会超时。"},
	"MAX_IMAGE_BYTES": {"",
		"view_media 返回的图片（重新编码后）最大多少字节（1 到 16777216）：更大的图片先降低质量，再缩小尺寸，直到不超过它。"},
}

// Variable is a configuration variable's default as shown and its meaning
// in l, given their English forms (internal/config's shown and desc tags)
// and its name after the SNOWLUMA_MCP_ prefix. A form l lacks is the
// English one.
func Variable(l Lang, name, shown, meaning string) (string, string) {
	if l != Zh {
		return shown, meaning
	}
	t, ok := zhVariables[name]
	if !ok {
		return shown, meaning
	}
	if t.shown != "" {
		shown = t.shown
	}
	if t.meaning != "" {
		meaning = t.meaning
	}
	return shown, meaning
}

// TranslatedVariables lists the names (after the prefix) that have a
// Chinese text, sorted: internal/config's test checks each is a variable.
func TranslatedVariables() []string {
	return slices.Sorted(maps.Keys(zhVariables))
}
