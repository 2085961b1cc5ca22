// The panel's words in English and Chinese, and the rule that picks one:
// the host's locale when the host gives one (a zh… locale is Chinese, any
// other English), else the server's language from the preview result's
// _meta["snowluma-mcp/panel"].lang, else English. What comes from elsewhere
// stays as it came: the draft, SnowLuma's wording, and the server's English
// diagnostics.

// chinese reports whether a BCP 47 tag or POSIX locale name (zh, zh-CN,
// zh_TW.UTF-8, zh-Hans) is Chinese, as the server's own rule does.
function chinese(tag) {
  const t = String(tag).toLowerCase();
  return t === "zh" || /^zh[-_.]/.test(t);
}

// pick returns "zh" or "en". hostLocale is the host context's locale,
// serverLang the server's choice; either may be missing.
export function pick(hostLocale, serverLang) {
  if (typeof hostLocale === "string" && hostLocale.trim() !== "") return chinese(hostLocale.trim()) ? "zh" : "en";
  return serverLang === "zh" ? "zh" : "en";
}

// TEXTS holds every word the panel writes itself. Functions take what
// varies; the static labels of panel.html are named by their data-text.
export const TEXTS = {
  en: {
    htmlLang: "en",
    title: "SnowLuma message preview",
    heading: "Message preview",
    typeLabel: "Type",
    toLabel: "To",
    quotesLabel: "Quotes",
    textLabel: "Message text",
    note: "Nothing is sent until you press Send. A failed or uncertain send is never retried; check QQ and draft again.",
    group: "Group message",
    private: "Private message",
    groupTarget: (id) => "group " + id,
    userTarget: (id) => "QQ user " + id,
    quoted: (id) => "message " + id,
    waiting: "Waiting for the draft.",
    waitingText: "Waiting for the draft…",
    send: "Send",
    sending: "Sending…",
    done: "This panel made its one attempt and never repeats it; draft again to send another message.",
    // cannotSend is the reason for a server mode; the server's own English
    // reason (cannot_send) is shown when it gave one.
    cannotSend: (mode, serverReason) => serverReason || "This server cannot send messages in its current mode.",
    noServerTools: "This host cannot call server tools, so the panel cannot send; use invoke_action with the prepared arguments.",
    notAccepted: (msg) => "The draft was not accepted: " + (msg || "preview_message returned no draft") + ".",
    noHost: (msg) => "Could not connect to the host: " + msg,
    unknown: "Outcome unknown: check QQ before sending again.",
    unknownWhy: (why) => " (" + why + ")",
    noDiagnostics: " The host returned no diagnostics.",
    sent: (id) => "Sent: SnowLuma accepted it" + (id === null ? "" : " as message " + id) + ". This is not proof that QQ delivered or showed it.",
    refused: (wording, code) => "Not sent: SnowLuma said: " + (wording || "no reason given") + (code === null ? "" : " (retcode " + code + ")") + ".",
    notSent: (why) => "Not sent: " + why + ".",
    sandboxBanner: "Sandbox: a simulated QQ account. Nothing sent from here reaches QQ.",
    dryRunBanner: "Dry run: Send checks the message and stops before SnowLuma; nothing is sent.",
    dryRun: "Dry run: not sent. It passed every check, and nothing went to SnowLuma or QQ (SNOWLUMA_MCP_DRY_RUN is on).",
    sentSandbox: (id) => "Sent to the sandbox: the simulated SnowLuma accepted it" + (id === null ? "" : " as message " + id) + ". Nothing reached QQ.",
  },
  zh: {
    htmlLang: "zh-CN",
    title: "SnowLuma 消息预览",
    heading: "消息预览",
    typeLabel: "类型",
    toLabel: "发给",
    quotesLabel: "引用",
    textLabel: "消息正文",
    note: "按下“发送”之前什么都不会发出。发送失败或结果不明时绝不重试；请先在 QQ 里查看，再重新起草。",
    group: "群消息",
    private: "私聊消息",
    groupTarget: (id) => "群 " + id,
    userTarget: (id) => "QQ 用户 " + id,
    quoted: (id) => "消息 " + id,
    waiting: "正在等待草稿。",
    waitingText: "正在等待草稿…",
    send: "发送",
    sending: "正在发送…",
    done: "此面板已尝试过一次，不会再试；要再发一条，请重新起草。",
    cannotSend: (mode) =>
      mode === "read"
        ? "此服务器以只读模式（read）运行，不能发送：在它的环境中设置 SNOWLUMA_MCP_MODE=write 后重启。"
        : mode === "docs"
          ? "未配置 SnowLuma 地址（docs 模式），不能发送：设置 SNOWLUMA_MCP_ENDPOINT 和 SNOWLUMA_MCP_MODE=write 后重启此服务器。"
          : "此服务器在当前模式下不能发送消息。",
    noServerTools: "此宿主不能调用服务器工具，面板无法发送；请用准备好的参数调用 invoke_action。",
    notAccepted: (msg) => "草稿未被接受：" + (msg || "preview_message 没有返回草稿") + "。",
    noHost: (msg) => "无法连接宿主：" + msg,
    unknown: "结果不明：再次发送之前，请先在 QQ 里查看。",
    unknownWhy: (why) => "（" + why + "）",
    noDiagnostics: "宿主没有返回诊断信息。",
    sent: (id) => "已发送：SnowLuma 已接受" + (id === null ? "" : "，消息 ID " + id) + "。这不能证明 QQ 已送达或已显示。",
    refused: (wording, code) => "未发送：SnowLuma 答复：" + (wording || "未给出原因") + (code === null ? "" : "（retcode " + code + "）") + "。",
    notSent: (why) => "未发送：" + why + "。",
    sandboxBanner: "沙盒：这是模拟的 QQ 账号，从这里发出的消息不会到达 QQ。",
    dryRunBanner: "演练模式：按“发送”只做检查，在 SnowLuma 之前停下，不会发出任何消息。",
    dryRun: "演练：未发送。消息通过了所有检查，但没有发往 SnowLuma 或 QQ（SNOWLUMA_MCP_DRY_RUN 已开启）。",
    sentSandbox: (id) => "已发送到沙盒：模拟的 SnowLuma 已接受" + (id === null ? "" : "，消息 ID " + id) + "。没有任何消息到达 QQ。",
  },
};
