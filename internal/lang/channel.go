package lang

// The QQ channel's texts for the operator: what Claude Code needs to
// deliver it (doctor, internal/app) and the server's line when a client
// negotiated a session without a path for it (internal/server). They live
// in a file of their own and join texts at init.
const (
	ChannelNoPath          Message = "channel.no_path"          // the negotiated protocol revision
	DoctorChannelOn        Message = "doctor.channel_on"        // mode, groups, users, approvers
	DoctorChannelApprovers Message = "doctor.channel_approvers" // with approvers
)

var channelTexts = map[Message]text{
	ChannelNoPath: {
		"channel: the client negotiated MCP %s and asked for no channel stream: in such a session Claude Code has no path for channel notifications, so QQ messages are not pushed to it. Claude Code receives them over the legacy handshake (initialize), which this server asks for by declining server/discover while the channel is on; a client that skips server/discover must use initialize, or open subscriptions/listen with \"claude/channel\": true",
		"channel：客户端协商了 MCP %s，且没有订阅推送通道：这样的会话里 Claude Code 收不到推送通道的通知，QQ 消息不会推送给它。Claude Code 要走旧式握手（initialize）才能收到；推送通道开启时本服务器会拒绝 server/discover，让它退回旧式握手。跳过 server/discover 的客户端请改用 initialize，或用 subscriptions/listen 订阅 \"claude/channel\": true",
	},
	DoctorChannelOn: {
		"%s mode: %d group(s), %d user(s), %d approver(s). Claude Code 2.1.80 or later, signed in with claude.ai, delivers it only in an interactive session (not claude -p) started with one of: claude --dangerously-load-development-channels server:<name> (<name>: this server's key in .mcp.json); or, without that flag, the plugin snowluma-channel@snowluma-mcp (claude --channels plugin:snowluma-channel@snowluma-mcp) once the organisation's managed settings say \"channelsEnabled\": true and list {\"marketplace\": \"snowluma-mcp\", \"plugin\": \"snowluma-channel\"} in \"allowedChannelPlugins\"",
		"%s 模式：%d 个群、%d 个用户、%d 个审批人。需要 Claude Code 2.1.80 或更新版本并用 claude.ai 账号登录，且只在交互会话里送达（claude -p 不行），启动方式二选一：claude --dangerously-load-development-channels server:<名称>（<名称> 是本服务器在 .mcp.json 里的键名）；或不用该开关，用插件 snowluma-channel@snowluma-mcp（claude --channels plugin:snowluma-channel@snowluma-mcp），前提是组织的托管设置写明 \"channelsEnabled\": true，并在 \"allowedChannelPlugins\" 里列出 {\"marketplace\": \"snowluma-mcp\", \"plugin\": \"snowluma-channel\"}",
	},
	DoctorChannelApprovers: {
		"; approvers answer Claude Code's permission prompts only when it asks: start it with --permission-mode default (its auto mode decides by itself and asks no one)",
		"；审批人只能回答 Claude Code 真正发出的权限请求：请加 --permission-mode default 启动（自动模式由它自己判断，不会询问任何人）",
	},
}

func init() {
	for m, t := range channelTexts {
		texts[m] = t
	}
}
