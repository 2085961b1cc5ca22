package catalog

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// synonyms groups the Chinese and English words operators use for the same
// thing. A keyword search term that equals any word of a group matches text
// containing any word of that group. Every word is lower case.
var synonyms = [][]string{
	// A Matrix room is a group (the client-server API's joined_rooms,
	// https://spec.matrix.org/v1.19/client-server-api/, as ruma-client-api
	// names it: "the rooms the user is in").
	{"group", "群", "群聊", "群里", "qun", "chat", "channel", "guild", "conversation", "supergroup", "server", "room"},
	// 闭嘴 (shut up), 别说话 (don't talk) and 禁止发言 (no speaking) are to
	// be made silent.
	// 口球 is the mute of group-admin plugins' commands (NJS's
	// nonebot_plugin_easy_group_manager: 禁言/口球 @somebody).
	{"mute", "ban", "禁言", "silence", "restrict", "restriction", "timeout", "口球", "闭嘴",
		"别说话", "不许说话", "禁止发言", "禁止说话"},
	{"unmute", "unban", "解禁", "解除禁言", "untimeout", "unrestrict"},
	// What people say in a chat is its messages.
	{"message", "msg", "消息", "say", "said", "says"},
	// A push sends (the LINE Messaging API's pushMessage).
	{"send", "发送", "发", "发布", "发表", "发出", "post", "push"},
	// Matrix redacts what it recalls (m.room.redaction).
	{"recall", "delete_msg", "撤回", "撤", "withdraw", "unsend", "retract", "purge", "redact", "redaction"},
	{"delete", "del", "remove", "删除", "移除", "删", "删掉", "clear", "清除", "清空", "reset"},
	{"friend", "好友", "buddy", "contact"},
	{"private", "私聊", "私发", "dm", "privately"},
	// A file format names a file of its kind (sendDocument of a pdf,
	// sendAnimation of a gif, sendAudio of an mp3: the Telegram Bot API's
	// media methods).
	{"file", "文件", "document", "attachment", "pdf", "zip", "rar", "7z", "txt", "doc", "docx", "xlsx", "pptx", "apk", "exe"},
	{"folder", "directory", "文件夹", "目录"},
	{"upload", "上传", "传"},
	{"download", "下载"},
	{"member", "成员", "群员", "participant"},
	{"admin", "管理员", "管理", "administrator", "promote", "demote", "moderator"},
	{"owner", "群主"},
	{"kick", "踢", "踢出", "移出", "踢人", "expel", "prune", "请出"},
	// mirai-api-http abbreviates announcements: anno_list, anno_publish.
	{"notice", "公告", "announcement", "anno"},
	{"essence", "精华", "精华消息", "pin"},
	{"poke", "戳", "戳一戳", "拍一拍", "nudge"},
	{"like", "赞", "点赞", "thumbs"},
	{"album", "相册"},
	{"qzone", "空间", "qq空间", "说说"},
	{"request", "请求", "申请"},
	{"image", "图片", "picture", "pic", "photo", "png", "jpg", "jpeg", "gif", "webp", "animation"},
	{"record", "语音", "voice", "audio", "ptt", "mp3", "wav", "silk", "amr", "ogg"},
	{"video", "视频", "mp4", "mov"},
	{"card", "名片", "群名片"},
	{"title", "头衔"},
	{"name", "名称", "名字"},
	// A display name is the nickname (Matrix's profile displayname,
	// matrix-sdk's Client::set_display_name).
	{"nickname", "昵称", "profile", "displayname", "username", "nick"},
	{"avatar", "头像", "portrait", "icon", "pfp"},
	{"status", "状态", "online", "在线", "presence"},
	{"login", "logged", "登录", "登陆", "account", "账号", "identity", "whoami"},
	{"version", "版本"},
	{"list", "列表", "列出", "哪些", "有哪些", "谁"},
	{"info", "详情", "资料", "信息", "information", "details", "detail", "metadata"},
	// Messages kept on the server are roaming (QQ's 漫游消息;
	// mirai-api-http's roamingMessages reads a friend's).
	{"history", "历史", "历史消息", "聊天记录", "消息记录", "记录", "recent", "roaming", "漫游", "漫游消息"},
	{"forward", "合并转发", "转发"},
	{"reaction", "emoji", "表情", "回应", "react"},
	{"face", "表情包", "sticker"},
	{"stream", "流式", "chunk", "分块"},
	{"cache", "缓存"},
	{"signin", "sign", "打卡", "签到"},
	{"todo", "待办"},
	{"comment", "评论"},
	{"read", "已读", "mark"},
	// A group's honors are its titles of the day (go-cqhttp's
	// get_group_honor_info types: talkative 龙王, performer 群聊之火,
	// legend 群聊炽焰, strong_newbie 冒尖小春笋, emotion 快乐之源).
	{"honor", "荣誉", "talkative", "龙王", "群聊之火", "群聊炽焰", "冒尖小春笋", "快乐之源"},
	{"ocr", "文字识别", "识别"},
	{"translate", "翻译"},
	{"rkey", "密钥"},
	{"online_file", "在线文件"},
	{"flash", "闪传"},
	{"collection", "收藏"},
	{"set", "设置", "修改", "改", "设", "设为", "设成", "开启", "打开", "关闭", "关掉", "开", "关",
		"改成", "改为", "设置为", "换成", "修改为",
		"edit", "change", "update", "modify",
		// Granting or assigning something sets it: grant admin
		// (Telegram promoteChatMember's can_* rights, Discord's role
		// assignment).
		"grant", "assign",
		// Switching something on or off sets it, as 开启 and 关闭 do.
		"enable", "disable", "toggle"},
	{"get", "获取", "查询", "查看", "查", "看", "读取", "fetch", "retrieve", "show", "view", "see", "check", "inspect", "tell"},
	{"leave", "退群", "退出", "quit"},
	{"approve", "handle", "accept", "reject", "同意", "处理", "批准", "审批", "拒绝", "decline", "deny"},
	// Revoking a right or a link cancels it (取消管理员 is revoking admin).
	{"cancel", "取消", "撤下", "撤销", "revoke"},
	{"join", "入群", "加群", "进群"},
	{"add", "添加", "加"},
	{"batch", "批量", "多个", "多名", "一次", "bulk"},
	{"stranger", "陌生人"},
	{"create", "新建", "创建", "建"},
	{"url", "链接", "直链", "网址", "link"},
	{"rename", "重命名", "改名"},
	{"move", "移动", "移到"},
	{"remark", "备注"},
	// A bio is the long signature (Milky's set_bio).
	{"longnick", "个性签名", "签名", "bio", "signature"},
	{"remain", "还剩", "剩余", "剩下"},
	{"text", "文字", "文本"},
	// Starting something (a call, a poll, a live stream) is an act no
	// QQ action performs: the word is here so that a request to start one
	// is not read as a request to send.
	// An invitation into a group is answered as a request to join is
	// (set_group_add_request); inviting someone is no action of QQ's.
	{"invite", "invitation", "邀请"},
	{"start", "发起", "开始", "initiate", "launch", "begin"},
	// Ending the bot's own process (bot_exit): a shutdown, to exit or
	// terminate it.
	{"exit", "shutdown", "terminate", "退出进程", "关闭进程", "结束进程"},
	// The whole group: 全员 and 全群 are the "whole" of 全员禁言, whatever
	// act follows (全群禁言, 解除全员禁言); 全体 alone is also the @全体成员
	// of an at-all.
	// Entire is whole ("mute the entire group").
	{"whole", "全员禁言", "全体禁言", "whole_ban", "everyone", "全群", "全员", "entire"},
	// Pressing a button of an inline keyboard (Telegram's callback
	// buttons, https://core.telegram.org/bots/api#inlinekeyboardbutton;
	// click_inline_keyboard_button) and marking a to-do done
	// (complete_group_todo) are acts of their own: sending buttons is no
	// click.
	{"click", "点击", "press", "tap"},
	// go-cqhttp's 获取在线机型 and 重启: the model shown online, a restart.
	{"model", "机型"},
	{"system", "系统"},
	{"restart", "重启", "reboot"},
	// set_group_anonymous: anonymous chat in a group.
	{"anonymous", "匿名"},
	// check_url_safely: whether a link is safe.
	{"safe", "safely", "safety", "安全"},
	// Blocking someone (WhatsApp's block contact: delltrak/wamcp's
	// wa_block_contact; telegram-mcp's "block, unblock") is what
	// delete_friend's block switch does.
	{"block", "拉黑", "blacklist"},
	{"complete", "完成", "finish"},
}

// phrases are the English word sequences of other chat platforms whose
// meaning here is not the sum of their words, rewritten before a query is
// cut into words (see testdata/agent-vocabulary.tsv for the sources): a
// Telegram chat's title and photo are a QQ group's name and avatar, an
// unpinned message leaves the essence list, muting all is the whole-group
// mute, a chat's default permissions are what the whole-group mute
// switches, and an invite link is QQ's group share card.
var phrases = [][2]string{
	{"chat title", "group name"}, {"group title", "group name"}, {"channel title", "group name"},
	{"conversation title", "group name"}, {"server name", "group name"}, {"guild name", "group name"},
	{"chat photo", "group avatar"}, {"group photo", "group avatar"}, {"chat picture", "group avatar"},
	{"group picture", "group avatar"}, {"group image", "group avatar"}, {"chat icon", "group avatar"},
	{"server icon", "group avatar"}, {"guild icon", "group avatar"}, {"group icon", "group avatar"},
	{"profile photo", "avatar"}, {"profile picture", "avatar"},
	// Setting one's photo sets the avatar (Slack's users.setPhoto, after
	// a chat's photo became the group's avatar above).
	{"set photo", "set avatar"}, {"update photo", "set avatar"}, {"change photo", "set avatar"},
	{"direct message", "private message"}, {"direct messages", "private message"},
	// A private chat is no group chat (私聊).
	{"private chat", "private"}, {"private conversation", "private"},
	{"unpin", "remove essence"},
	{"mute all", "mute everyone"}, {"mute the whole", "mute everyone"}, {"unmute all", "unmute everyone"},
	{"chat permissions", "whole ban"}, {"default permissions", "whole ban"},
	// Locking a chat so that only admins can speak is the whole-group mute
	// (WA MCP's wa_group_update_settings announce: "Only admins can send
	// messages"; a Discord channel's lockdown denies @everyone sending).
	{"lock group", "mute everyone"}, {"lock chat", "mute everyone"}, {"lock channel", "mute everyone"},
	{"unlock group", "unmute everyone"}, {"unlock chat", "unmute everyone"}, {"unlock channel", "unmute everyone"},
	{"lockdown", "mute everyone"},
	// W1ndysBot GroupManager's banall and unbanall commands.
	{"banall", "mute everyone"}, {"unbanall", "unmute everyone"}, {"muteall", "mute everyone"}, {"unmuteall", "unmute everyone"},
	{"turn on", "enable"}, {"turn off", "disable"},
	{"invite link", "share"},
	{"custom title", "special title"},
	{"voice note", "record"}, {"voice message", "record"},
	// A chat where only admins can speak is a whole-group mute (WA MCP's
	// announce setting above).
	{"only admins can talk", "mute everyone"}, {"only admins can speak", "mute everyone"},
	{"only admins can chat", "mute everyone"}, {"only admins can send", "mute everyone send"},
	{"only admins can post", "mute everyone send"},
	{"administrators", "admin member list"}, {"admins", "admin member list"},
	// Telegram's sendChatAction ("typing") and Discord's Trigger Typing
	// Indicator (discord-haskell TriggerTypingIndicator, nyxx
	// triggerTyping, discordeno startTyping) show what QQ's input status
	// shows.
	{"send chat action", "set input status"}, {"chat action", "input status"},
	{"trigger typing indicator", "set input status"}, {"trigger typing", "set input status"},
	{"start typing", "set input status"}, {"send typing", "set input status"}, {"typing indicator", "input status"}, {"typing", "input status"},
	{"display name", "nickname"},
	// A role that is a QQ rank is that rank (Discord's roles and
	// Telegram's administrator rights: the admin role is the admin); other
	// roles stay foreign (foreignWords).
	{"admin role", "admin"}, {"administrator role", "admin"}, {"moderator role", "admin"}, {"owner role", "owner"},
	// Who runs, manages or moderates a group is asked of its admins.
	{"who runs", "admin member list"}, {"who manages", "admin member list"}, {"who moderates", "admin member list"},
	{"who owns", "owner member list"},
	// Dropping someone a message or a line sends one.
	{"drop message", "send message"}, {"drop line", "send message"}, {"drop note", "send message"},
	// A WhatsApp group's subject is its name (WA MCP's
	// wa_group_update_subject: "Change the name/subject of a group").
	{"group subject", "group name"}, {"chat subject", "group name"},
	// The groups one has joined are the group list (Matrix joined_rooms;
	// Discord's list_guilds, "servers the bot belongs to").
	{"who is in", "member list of"}, {"who's in", "member list of"}, {"who are in", "member list of"},
	{"how many people", "members number"}, {"how many members", "members number"},
	// How many groups or friends is asked of their list.
	{"how many groups", "group list"}, {"how many friends", "friend list"},
	{"joined members", "member list"}, {"joined rooms", "group list"}, {"joined groups", "group list"}, {"joined chats", "group list"},
	{"joined servers", "group list"}, {"joined guilds", "group list"}, {"joined channels", "group list"},
	{"get users", "get member list"}, {"list users", "list member"}, {"users list", "member list"}, {"get user", "get stranger info"},
	{"rename", "rename name"},
	{"send reaction", "add reaction"}, {"react with", "add reaction"}, {"react to", "add reaction to"},
	// Slack's chat.* methods act on messages (chat.delete, chat.postMessage).
	{"chat delete", "delete message"}, {"chat post message", "send message"},
	// Taking a message back is recalling it.
	{"take back", "recall"}, {"undo sending", "recall"}, {"undo send", "recall"},
	// "I'd like to" wants, not likes.
	{"i'd like", "want"}, {"i’d like", "want"}, {"would like", "want"}, {"we'd like", "want"},
	// Letting someone know is telling them: a read.
	{"let me know", "get"}, {"let us know", "get"},
	{"get me", "get login info"}, {"who am i", "whoami"}, {"get self", "get login info"},
	// mirai-api-http's file_mkdir and sendTempMessage (a private chat
	// through a group), and a list of messages, which is their history
	// (Koishi's getMessageList).
	{"mkdir", "create folder"}, {"temp message", "private message"},
	{"message list", "message history"},
	// The bot's own name is its nickname (Telegram setMyName, "change the
	// bot's name"), a member's nickname in a group its card (Discord's
	// Modify Guild Member nick, the member's nickname in the server).
	{"my name", "nickname"}, {"bot name", "nickname"},
	{"member nickname", "member card"}, {"group nickname", "group card"}, {"server nickname", "group card"},
	{"guild nickname", "group card"},
	// A nickname in one group is that group's card (群名片; Discord's
	// nickname in a server, Modify Current Member).
	{"nickname in group", "group card"}, {"nickname in this group", "group card"},
	{"nickname in server", "group card"}, {"nickname in this server", "group card"},
	{"nickname in chat", "group card"}, {"nickname in this chat", "group card"},
	// Copying a message into another chat is forwarding it (Telegram
	// copyMessage, forwardMessage).
	{"copy message", "forward message"}, {"copy messages", "forward message"}, {"bot info", "login info"}, {"current bot", "login account"},
	{"bot itself", "login account"}, {"bot user", "login account"},
	// Discord's Get Current User is the bot's own account.
	{"current user", "login account"},
	{"own account", "login account"}, {"bot account", "login account"},
	// mirai-api-http's botProfile reads the bot's own profile; Milky's
	// get_impl_info the implementation's name and version.
	{"bot profile", "login info"}, {"impl info", "version info"}, {"implementation info", "version info"},
	{"check in", "signin"}, {"checked in", "signin"},
	// Slack's conversations.mark "sets the read cursor in a channel";
	// Matrix's read markers and receipts (m.fully_read, m.read) mark what
	// was read.
	{"read cursor", "mark read"}, {"read marker", "mark read"}, {"read markers", "mark read"},
	{"read receipt", "mark read"}, {"read receipts", "mark read"},
	// Text to speech is the AI voice QQ speaks a text in (NapCat's
	// send_group_ai_record, get_ai_record: "AI 语音").
	{"text to speech", "ai record"}, {"into speech", "ai record"}, {"tts", "ai record"}, {"文字转语音", "ai record"},
	// Matrix's power levels rank a room's members: 50 is a moderator,
	// 100 an admin (the client-server API's m.room.power_levels).
	{"power level", "admin"}, {"power levels", "admin"},
	// Discord's Modify Current Member sets the bot's nick in a guild,
	// which is a group's card.
	{"member nick", "group card"}, {"current member nick", "group card"},
	{"profile image", "avatar"}, {"profile pic", "avatar"},
	// Setting or creating a chat's announcement publishes one (Rocket.Chat's
	// channels.setAnnouncement and groups.setAnnouncement, QQ guilds'
	// CreateAnnounces); updating one is an edit QQ has no action for.
	{"set announcement", "send announcement"}, {"create announcement", "send announcement"},
	{"set group announcement", "send group announcement"}, {"set channel announcement", "send group announcement"},
	{"create announces", "send announcement"},
	// Who talks the most holds QQ's talkative honor (龙王; go-cqhttp's
	// get_group_honor_info type talkative).
	{"talks the most", "talkative"}, {"talks most", "talkative"}, {"most talkative", "talkative"},
	{"most active", "talkative"},
	// A group's notifications are its system messages: join requests,
	// invitations (Milky's get_group_notifications).
	{"group notifications", "group system message"}, {"group notification", "group system message"},
	{"read messages", "message history"},
	{"user info", "stranger info"}, {"user information", "stranger info"}, {"user details", "stranger info"},
	{"create dm", "send private message"}, {"dm", "private message"},
	// Creating a message or a reaction is sending or adding one (Discord's
	// Create Message, Create Reaction; Satori's createReaction).
	{"create message", "send message"}, {"create reaction", "add reaction"},
	// Lark's methods put the object first (im.v1.message.create).
	{"message create", "send message"}, {"reaction create", "add reaction"},
	// What QQ has no action for, joined into the one word of foreignWords.
	{"slow mode", "slowmode"}, {"rate limit", "slowmode"},
	{"red packet", "redpacket"}, {"red envelope", "redpacket"}, {"red packets", "redpacket"},
	{"send money", "payment"}, {"transfer money", "payment"},
	{"voice call", "voicecall"}, {"video call", "voicecall"}, {"group call", "voicecall"},
	{"live stream", "livestream"}, {"go live", "livestream"},
	{"sticker set", "stickerset"}, {"sticker sets", "stickerset"}, {"sticker to set", "stickerset"},
	{"edit message", "editmessage"}, {"edit messages", "editmessage"}, {"update message", "editmessage"},
	{"callback query", "callbackquery"}, {"inline query", "inlinequery"},
}

// writeWords are the synonym groups (by their first word) that ask for a
// change: a query holding one of them may be answered by a write action.
var writeWords = map[string]bool{
	"mute": true, "unmute": true, "send": true, "recall": true, "delete": true,
	"upload": true, "download": true, "kick": true, "set": true, "leave": true,
	"approve": true, "cancel": true, "join": true, "add": true, "create": true,
	"rename": true, "move": true, "like": true, "poke": true, "forward": true,
	"signin": true, "read": true, "translate": true, "ocr": true, "whole": true,
	"remark": true, "title": true, "card": true, "essence": true, "start": true,
	"click": true, "complete": true, "block": true, "exit": true,
}

// genericActs are the write words that name no particular change (set,
// send, add): an action holding another of them still answers a request
// made with one.
var genericActs = map[string]bool{"set": true, "send": true, "add": true}

// synonymIndex maps each word to its group in synonyms.
var synonymIndex = func() map[string]int {
	m := make(map[string]int)
	for i, g := range synonyms {
		for _, w := range g {
			if _, dup := m[w]; !dup {
				m[w] = i
			}
		}
	}
	return m
}()

// compounds are colloquial Chinese words that stand for several search
// terms, so that an unspaced query finds the action's words: 群发 is "send
// to a group", 加好友 "add a friend".
var compounds = map[string][]string{
	"群发":   {"群", "发送"},
	"群名":   {"群", "名称"},
	"群名称":  {"群", "名称"},
	"加好友":  {"好友", "添加"},
	"删好友":  {"好友", "删除"},
	"艾特全体": {"@全体"},
	"@全体":  {"@全体"},
	"被禁言":  {"禁言", "列表"},
	"转文字":  {"文字"},
	"发信息":  {"发送", "消息"},
	"私信":   {"私聊", "发送"},
	"私聊":   {"私聊", "消息"}, // a private chat is its messages
	"发文件":  {"上传", "文件"},
	"红包":   {"redpacket"}, // see foreignWords
	"转账":   {"payment"},
	"投票":   {"poll"},
	"通话":   {"voicecall"},
	"直播":   {"livestream"},
	"问卷":   {"poll"},
	"付款":   {"payment"},
	"支付":   {"payment"},
	"全员禁言": {"全员", "禁言"},
	"群昵称":  {"群", "名片"},  // a member's nickname in the group is the card
	"有谁":   {"成员", "列表"}, // who is there: the members
	"谁是":   {"成员", "列表"}, // who is (the admin): the members
	"多少人":  {"成员", "人数"}, // how many people: the member count
	"张图":   {"图片"},       // 这张图: this picture
	"发图":   {"发送", "图片"},
	"全体禁言": {"全员", "禁言"},
	"全群禁言": {"全员", "禁言"},
	// A group's admin is its 群管 (Koishi plugins' "需要群管权限"), made
	// one with 上管 and unmade with 下管 or 撤管 in operators' slang.
	"群管":  {"群", "管理员"},
	"上管":  {"设置", "管理员"},
	"下管":  {"取消", "管理员"},
	"撤管":  {"取消", "管理员"},
	"上群管": {"设置", "管理员"},
	"下群管": {"取消", "管理员"},
	// The bot itself is quit or closed by ending its process; a group
	// is left with 退群.
	"退出机器人": {"退出进程"},
	"关闭机器人": {"关闭进程"},
	"关掉机器人": {"关闭进程"},
	// A group's notifications are its system messages: join requests and
	// invitations (Milky's get_group_notifications).
	"群通知": {"群", "系统", "消息"},
	// English into Chinese is what QQ's translation does.
	"英译中": {"翻译"},
	"英翻中": {"翻译"},
}

// fillers are Chinese words that carry no search meaning in an operator's
// request ("帮我把……一下").
var fillers = []string{
	"的", "了", "吗", "呢", "吧", "啊", "呀", "我", "我的", "你", "他", "她",
	"帮", "帮我", "给", "把", "一下", "一条", "一个", "个", "条", "怎么", "如何",
	"想", "要", "请", "能", "能不能", "可以", "这个", "那个", "那条", "这条",
	"刚才", "刚刚", "某人", "某个", "人", "到", "里", "在", "中", "和", "与",
	"是否", "当前", "现在", "一些", "所有", "被", "几次", "内容", "一", "下",
	// The words of a bug report or a feature request around what it is
	// about: 请求支持 ……, ……接口报错, 希望增加……的API.
	"报错", "错误", "失败", "无效", "接口", "支持", "请求支持", "问题", "功能", "实现", "希望",
	"建议", "方法", "能否", "如何", "为什么", "没有", "无法", "不能", "不了", "调用", "使用",
	"出现", "时候", "的时候", "自动", "机器人", "插件", "指令", "命令", "增加", "新增", "一直",
	"崩溃", "找不到", "不到", "完全", "响应", "返回", "结果", "参数", "计划", "关于", "请问",
	"一段时间", "之后", "方式", "办法", "可能", "情况", "正常", "修复",
	// Adverbs around the action: 主动退群, 再关掉, 别人发的.
	"主动", "别人", "再", "又", "还", "都", "也", "就", "先", "然后",
	// Numbers and durations are a request's arguments, not its intent.
	"二", "两", "三", "五", "十", "百", "千", "分钟", "小时", "秒", "秒钟", "天", "半",
	"今天", "明天", "每天", "早上", "上午", "中午", "下午", "晚上", "夜里", "定时",
}

// englishFiller are English words that carry no search meaning.
var englishFiller = map[string]bool{
	"the": true, "a": true, "an": true, "to": true, "of": true, "for": true,
	"in": true, "on": true, "my": true, "me": true, "i": true, "how": true,
	"do": true, "please": true, "someone": true, "some": true, "with": true,
	"from": true, "is": true, "are": true, "this": true, "that": true, "it": true,
	"can": true, "you": true, "want": true, "need": true, "as": true, "bot": true,
	"somebody": true, "xxx": true,
	"api": true, "bug": true, "support": true, "fix": true, "feature": true,
	// The rest of a sentence an agent writes ("I want to kick someone out
	// of the group", "which groups is the bot in"): pronouns, auxiliaries,
	// particles and question words.
	"out": true, "into": true, "at": true, "by": true, "about": true, "so": true,
	"be": true, "was": true, "were": true, "been": true, "have": true, "has": true,
	"they": true, "them": true, "him": true, "their": true, "its": true, "we": true, "us": true,
	"our": true, "your": true, "he": true, "she": true, "his": true, "her": true,
	"who": true, "which": true, "what": true, "there": true, "these": true, "those": true,
	"would": true, "could": true, "should": true, "will": true, "let": true,
	"just": true, "now": true, "again": true, "also": true, "any": true, "anyone": true,
	"someone's": true, "one": true, "other": true, "another": true, "way": true,
	// Words of tool descriptions that pick which one, not what is done to
	// it: "a specific member", "an existing message", "a previously banned
	// user", "post a new message" (testdata/agent-vocabulary.tsv).
	"specific": true, "particular": true, "certain": true, "given": true, "know": true,
	"existing": true, "previously": true, "detailed": true, "new": true,
	// The frame of a method's description: "Use this method to send
	// text messages" (the Telegram Bot API's descriptions).
	"use": true, "method": true, "tool": true, "endpoint": true,
	// The rest of the English stop words (NLTK's English list,
	// nltk_data corpora/stopwords/english) that say nothing of what is
	// asked; those that can (all, no, not, off, up, down, only, own,
	// before, after, over, under, more, most) are kept.
	"am": true, "being": true, "had": true, "having": true, "does": true, "did": true,
	"doing": true, "and": true, "but": true, "if": true, "or": true, "because": true,
	"until": true, "while": true, "against": true, "between": true, "through": true,
	"during": true, "further": true, "then": true, "here": true, "when": true,
	"where": true, "why": true, "both": true, "each": true, "few": true, "such": true,
	"than": true, "too": true, "very": true, "whom": true, "myself": true, "ours": true,
	"yours": true, "yourself": true, "himself": true, "herself": true, "itself": true,
	"themselves": true, "hers": true, "theirs": true,
	// Time words are a request's arguments, not its intent, as the Chinese
	// fillers' durations are: "is the bot still online", "messages from
	// today".
	"still": true, "yet": true, "already": true, "currently": true, "today": true,
	"yesterday": true, "tomorrow": true, "ever": true, "second": true, "seconds": true,
	"minute": true, "minutes": true, "hour": true, "hours": true, "day": true, "days": true,
	"week": true, "weeks": true, "month": true, "months": true,
	// Whom a request is about, as 某人 and 别人 are in Chinese: the
	// action's parameters say who.
	"person": true, "people": true, "guy": true, "guys": true, "spammer": true,
	"spammers": true, "troll": true, "folks": true, "everybody": true,
	"troublemaker": true, "troublemakers": true, "offender": true, "bully": true,
	// Greetings and thanks around a request.
	"hi": true, "hey": true, "hello": true, "thanks": true, "thank": true, "kindly": true,
	// and chat's spellings of them and of a person (yo, u, plz, dude).
	"yo": true, "u": true, "plz": true, "pls": true, "thx": true, "dude": true, "bro": true,
	// The frame of an attempt: "trying to figure out".
	"try": true, "trying": true, "tried": true,
	// The platform an agent's other tools are named for (telegram_send_message,
	// slack_post_message, discord.post_message): the act and object follow.
	"telegram": true, "discord": true, "slack": true, "whatsapp": true,
	// Other platforms named in a request say where its words come from,
	// not what is asked ("recall a message in Lark").
	"lark": true, "feishu": true, "mattermost": true, "zulip": true, "rocketchat": true,
	"wechat": true, "wecom": true, "dingtalk": true, "kook": true,
	// and their prefixes (WA MCP's wa_send_text, wa_group_promote:
	// delltrak/wamcp docs/API_REFERENCE.md; tg_ for Telegram).
	"wa": true, "tg": true, "mcp": true,
	// The receivers of an SDK's methods (Koishi's sender.deleteMsg,
	// discord.js's client.user.setAvatar, Koishi's session.send).
	"sender": true, "client": true, "session": true, "ctx": true,
}

// hanDictionary maps each Chinese word the segmenter knows to the search
// terms it stands for: a synonym word to itself, a compound to its terms, a
// filler to none.
var hanDictionary = func() map[string][]string {
	m := make(map[string][]string)
	for _, f := range fillers {
		m[f] = []string{}
	}
	for _, g := range synonyms {
		for _, w := range g {
			if hasHan(w) {
				m[w] = []string{w}
			}
		}
	}
	for w, terms := range compounds {
		m[w] = terms
	}
	return m
}()

// hanWords are the dictionary's synonym words, sorted, for typo repair.
var hanWords = func() []string {
	var out []string
	for w, terms := range hanDictionary {
		if len(terms) == 1 && terms[0] == w {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}()

// maxWordRunes is the length of the dictionary's longest word, in runes.
var maxWordRunes = func() int {
	n := 1
	for w := range hanDictionary {
		n = max(n, utf8.RuneCountInString(w))
	}
	return n
}()

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}
