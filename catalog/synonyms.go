package catalog

// synonyms groups the Chinese and English words operators use for the same
// thing. A keyword search term that equals any word of a group matches text
// containing any word of that group. Every word is lower case.
var synonyms = [][]string{
	{"group", "群", "群聊", "qun"},
	{"mute", "ban", "禁言", "silence"},
	{"unmute", "unban", "解禁", "解除禁言"},
	{"message", "msg", "消息", "信息"},
	{"send", "发送", "发"},
	{"recall", "delete_msg", "撤回"},
	{"delete", "del", "remove", "删除", "移除"},
	{"friend", "好友", "buddy"},
	{"private", "私聊", "私信"},
	{"file", "文件"},
	{"folder", "directory", "文件夹", "目录"},
	{"upload", "上传"},
	{"download", "下载"},
	{"member", "成员", "群员"},
	{"admin", "管理员", "administrator"},
	{"owner", "群主"},
	{"kick", "踢", "踢出", "移出"},
	{"notice", "公告", "announcement"},
	{"essence", "精华", "精华消息"},
	{"poke", "戳", "戳一戳", "nudge"},
	{"like", "赞", "点赞", "thumbs"},
	{"album", "相册", "photo"},
	{"qzone", "空间", "qq空间", "说说"},
	{"request", "请求", "申请"},
	{"image", "图片", "picture", "pic"},
	{"record", "语音", "voice", "audio", "ptt"},
	{"video", "视频"},
	{"card", "名片", "群名片"},
	{"title", "头衔"},
	{"name", "名称", "名字"},
	{"nickname", "昵称"},
	{"avatar", "头像"},
	{"status", "状态", "online", "在线"},
	{"login", "登录", "account", "账号"},
	{"version", "版本"},
	{"list", "列表"},
	{"info", "详情", "资料"},
	{"history", "历史", "历史消息"},
	{"forward", "合并转发", "转发"},
	{"reaction", "emoji", "表情", "回应"},
	{"face", "表情包", "sticker"},
	{"stream", "流式", "chunk", "分块"},
	{"cache", "缓存"},
	{"signin", "sign", "打卡", "签到"},
	{"todo", "待办"},
	{"comment", "评论"},
	{"read", "已读", "mark"},
	{"honor", "荣誉"},
	{"ocr", "文字识别", "识别"},
	{"translate", "翻译"},
	{"rkey", "密钥"},
	{"online_file", "在线文件"},
	{"flash", "闪传"},
	{"collection", "收藏"},
	{"set", "设置", "修改"},
	{"get", "获取", "查询", "查看"},
	{"leave", "退群", "退出"},
	{"approve", "handle", "同意", "处理"},
	{"shut", "全员禁言", "whole_ban"},
}

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
