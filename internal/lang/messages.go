package lang

// A Message names one text a person reads. Its English and Chinese forms
// take the same arguments in the same order.
type Message string

// The forms' texts (internal/server).
const (
	FormNeedsOne    Message = "form.needs_one"    // action
	FormNeedsMany   Message = "form.needs_many"   // action, count
	FormFillIn      Message = "form.fill_in"      // field names
	FormEnterJSON   Message = "form.enter_json"   // params_json's name
	FormAlreadySet  Message = "form.already_set"  // params with their values (name=value, ...)
	FormMustConfirm Message = "form.must_confirm" // confirm field, action, summary
	FormJSONTitle   Message = "form.json_title"
	FormJSONHelp    Message = "form.json_help"   // field names, first field
	ConfirmQuestion Message = "confirm.question" // action, its short summary, targets, summary
	ConfirmAct      Message = "confirm.act"      // action, its short summary, what it will do, summary
	ConfirmNoTarget Message = "confirm.no_target"
	ConfirmGroup    Message = "confirm.group"  // group number
	ConfirmUser     Message = "confirm.user"   // QQ number, alone
	ConfirmMember   Message = "confirm.member" // QQ number, beside a group
	ConfirmSep      Message = "confirm.sep"
	ConfirmRunTitle Message = "confirm.run_title"
	ConfirmRunHelp  Message = "confirm.run_help"
)

// The send gate's texts (SNOWLUMA_MCP_UNTRUSTED_SENDS): why a write that
// could carry QQ users' text elsewhere is put to a person.
const (
	GateIntro     Message = "gate.intro"      // the chats read, the reasons
	GateLocalFile Message = "gate.local_file" // path
	GateURL       Message = "gate.url"        // URL
	GateElsewhere Message = "gate.elsewhere"  // chats
	GateNotID     Message = "gate.not_id"     // values
	GateNoChat    Message = "gate.no_chat"
	GatePublic    Message = "gate.public"
	GateCarries   Message = "gate.carries" // message id, its chat
	GateSep       Message = "gate.sep"
	GateGroup     Message = "gate.group"   // group number
	GatePrivate   Message = "gate.private" // QQ number
	GateUnknown   Message = "gate.unknown"
)

// doctor's texts about the send gate's record (untrusted/record.go).
const (
	DoctorCheckRecord   Message = "doctor.check.untrusted_record"
	DoctorRecordOK      Message = "doctor.record_ok"      // path, chats, hours
	DoctorRecordNew     Message = "doctor.record_new"     // path, hours
	DoctorRecordProblem Message = "doctor.record_problem" // the problem
	DoctorRecordFix     Message = "doctor.record_fix"
	DoctorRecordMemory  Message = "doctor.record_memory"
	DoctorRecordMemFix  Message = "doctor.record_memory_fix"
)

// The configuration's texts (internal/config and internal/app:
// start-up errors, notes).
// Variable names, values and examples are arguments or stay as they are.
const (
	ConfigLine             Message = "config.line"            // variable, problem, accepted
	ConfigStartError       Message = "config.start_error"     // the error
	ConfigStartVarError    Message = "config.start_var_error" // variable, the error
	ConfigTasksOff         Message = "config.tasks_off"       // the error
	ConfigNotPositive      Message = "config.not_positive"    // value, limit
	ConfigNotBytesIn       Message = "config.not_bytes_in"    // value, least, most
	ConfigNotWholeFrom0    Message = "config.not_whole_from0" // value, most
	ConfigMillis           Message = "config.millis"          // example
	ConfigRequestBytes     Message = "config.request_bytes"
	ConfigBodyBytes        Message = "config.body_bytes"
	ConfigBytesUpTo        Message = "config.bytes_up_to" // most, most in words, example
	ConfigStreamsAccepted  Message = "config.streams"
	ConfigNotBoolean       Message = "config.not_boolean" // value
	ConfigBoolean          Message = "config.boolean"
	ConfigSeed             Message = "config.seed"
	ConfigMillis0          Message = "config.millis0"  // example
	ConfigNotLang          Message = "config.not_lang" // value
	ConfigLangs            Message = "config.langs"
	ConfigTokenControl     Message = "config.token_control"   // the character
	ConfigTokenInvisible   Message = "config.token_invisible" // the character, where
	ConfigAtStart          Message = "config.at_start"
	ConfigAtEnd            Message = "config.at_end"
	ConfigInside           Message = "config.inside"
	ConfigTokenBearer      Message = "config.token_bearer"
	ConfigTokenHeader      Message = "config.token_header"
	ConfigTokenWrapped     Message = "config.token_wrapped" // opening character, closing character
	ConfigTokenQuoted      Message = "config.token_quoted"  // opening character, closing character
	ConfigTokenChar        Message = "config.token_char"    // the character, its code point, its position
	ConfigURLChar          Message = "config.url_char"      // the character, its code point, its position, what to type instead
	ConfigURLQuote         Message = "config.url_quote"     // the character, its position
	ConfigTypeInstead      Message = "config.type_instead"  // the character to type
	ConfigRemoveIt         Message = "config.remove_it"
	ConfigTokenAccepted    Message = "config.token"
	ConfigURLPort          Message = "config.url_port"
	ConfigNotURL           Message = "config.not_url"
	ConfigURLScheme        Message = "config.url_scheme" // scheme, other scheme
	ConfigURLNoHost        Message = "config.url_no_host"
	ConfigURLCredentials   Message = "config.url_credentials"
	ConfigURLQuery         Message = "config.url_query"
	ConfigURLFragment      Message = "config.url_fragment"
	ConfigEndpointURL      Message = "config.endpoint"
	ConfigEventsURL        Message = "config.events"
	ConfigPathNotAbsolute  Message = "config.path_not_absolute"
	ConfigNotAbsolute      Message = "config.not_absolute" // value
	ConfigTaskDir          Message = "config.task_dir"
	ConfigNotMode          Message = "config.not_mode" // value
	ConfigModes            Message = "config.modes"
	ConfigNoCacheDir       Message = "config.no_cache_dir"
	ConfigDirPath          Message = "config.dir_path"
	ConfigDownloadDir      Message = "config.download_dir"
	ConfigCannotUse        Message = "config.cannot_use" // value, the error
	ConfigNotDir           Message = "config.not_dir"    // value
	ConfigUploadRoot       Message = "config.upload_root"
	ConfigNotSensitive     Message = "config.not_sensitive" // value
	ConfigSensitive        Message = "config.sensitive"
	ConfigNotConfirm       Message = "config.not_confirm" // value
	ConfigConfirm          Message = "config.confirm"
	ConfigNotUntrusted     Message = "config.not_untrusted" // value
	ConfigUntrusted        Message = "config.untrusted"
	ConfigInterval         Message = "config.interval"
	ConfigPerMinute        Message = "config.per_minute"
	ConfigBadList          Message = "config.bad_list" // the error
	ConfigGroups           Message = "config.groups"
	ConfigUsers            Message = "config.users"
	ConfigCannotOpen       Message = "config.cannot_open" // the error
	ConfigAuditFile        Message = "config.audit_file"
	NoteModeIgnored        Message = "note.mode_ignored"         // MODE variable, its value, ENDPOINT variable
	NoteEventsIgnored      Message = "note.events_ignored"       // EVENTS_URL variable
	NoteEventsTokenIgnored Message = "note.events_token_ignored" // EVENTS_TOKEN variable, EVENTS_URL variable
	NoteTaskDirIgnored     Message = "note.task_dir_ignored"     // TASK_DIR variable
	ConfigNotChannel       Message = "config.not_channel"        // value
	ConfigChannelModes     Message = "config.channel_modes"
	ConfigChannelNeeds     Message = "config.channel_needs" // what is missing (a variable)
	ConfigChannelNeedsFix  Message = "config.channel_needs_fix"
	ConfigChannelNeedsMode Message = "config.channel_needs_mode"
	ConfigChannelGroups    Message = "config.channel_groups"
	ConfigChannelUsers     Message = "config.channel_users"
	ConfigChannelOutside   Message = "config.channel_outside" // id, allowlist variable
	ConfigChannelInside    Message = "config.channel_inside"  // allowlist variable
	ConfigApproversWrite   Message = "config.approvers_write"
	ConfigApproversFix     Message = "config.approvers_fix"
	NoteChannelEmpty       Message = "note.channel_empty"    // CHANNEL_GROUPS variable, CHANNEL_USERS variable
	NoteChannelIgnored     Message = "note.channel_ignored"  // list variables, CHANNEL variable
	NoteUnknownVariable    Message = "note.unknown_variable" // the name, the closest known name
	ConfigBadBots          Message = "config.bad_bots"       // the reason
	ConfigBots             Message = "config.bots"
	ConfigBotNoEndpoint    Message = "config.bot_no_endpoint" // label, its ENDPOINT variable
	ConfigBotEndpoint      Message = "config.bot_endpoint"    // its ENDPOINT variable, label
	TerminalHint           Message = "terminal_hint"
	NoteSandboxIgnored     Message = "note.sandbox_ignored" // the variable
	SandboxStarted         Message = "sandbox.started"      // seed, HTTP URL, WebSocket URL
	SandboxDirs            Message = "sandbox.dirs"         // task directory, download directory, upload root
	SandboxSecond          Message = "sandbox.second"       // label, QQ number, HTTP URL, WebSocket URL, shared group
	SandboxTooManyBots     Message = "sandbox.too_many"     // how many labels SNOWLUMA_MCP_BOTS names
	SandboxDryRun          Message = "sandbox.dry_run"

	ConfigArchivePath    Message = "config.archive_path"
	ConfigArchiveList    Message = "config.archive_list"
	ConfigArchiveDays    Message = "config.archive_days"
	ConfigBadReader      Message = "config.bad_reader"
	ConfigReader         Message = "config.reader"
	ConfigNotZone        Message = "config.not_zone" // value
	ConfigZone           Message = "config.zone"
	NoteArchiveIgnored   Message = "note.archive_ignored"   // ARCHIVE variable
	NoteArchiveEmpty     Message = "note.archive_empty"     // ARCHIVE_GROUPS variable, ARCHIVE_USERS variable
	NoteArchiveNoEvents  Message = "note.archive_no_events" // EVENTS_URL variable
	DoctorArchiveNew     Message = "doctor.archive_new"     // path
	DoctorArchiveHeld    Message = "doctor.archive_held"    // path
	DoctorArchiveOK      Message = "doctor.archive_ok"      // path, schema, messages, chats, MiB, newest per chat
	DoctorArchiveShared  Message = "doctor.archive_shared"  // path, mode
	DoctorArchiveFix     Message = "doctor.archive_fix"
	DoctorArchiveHeldFix Message = "doctor.archive_held_fix"
	DoctorArchiveFailed  Message = "doctor.archive_failed" // path, the problem in words, the archive's own detail
	DoctorArchiveBadFix  Message = "doctor.archive_bad_fix"
	ArchiveCorrupt       Message = "archive.corrupt"
	ArchiveCorruptFix    Message = "archive.corrupt_fix"
	ArchiveForeign       Message = "archive.foreign"
	ArchiveForeignFix    Message = "archive.foreign_fix"
	ArchiveNewer         Message = "archive.newer"
	ArchiveNewerFix      Message = "archive.newer_fix"
	ArchiveFull          Message = "archive.full"
	ArchiveFullFix       Message = "archive.full_fix"
	ArchiveIO            Message = "archive.io"
	ArchiveIOFix         Message = "archive.io_fix"
	ArchiveUnusable      Message = "archive.unusable" // path, the problem in words, the archive's own detail, the fix
)

// doctor's texts (internal/app). Its check names and verdicts in
// --json are identifiers and stay English; these are what a person reads.
const (
	DoctorHeader              Message = "doctor.header"      // name, version, catalog version
	DoctorFix                 Message = "doctor.fix"         // the fix
	DoctorSummary             Message = "doctor.summary"     // failed, warnings
	DoctorSummaryOne          Message = "doctor.summary_one" // failed (one warning)
	DoctorTasksOK             Message = "doctor.tasks_ok"    // directory, what private means
	DoctorPrivatePOSIX        Message = "doctor.private_posix"
	DoctorPrivateWindows      Message = "doctor.private_windows"
	UnknownArgument           Message = "unknown_argument" // command, argument, accepted arguments
	DoctorCheckConfig         Message = "doctor.check.configuration"
	DoctorCheckEndpoint       Message = "doctor.check.endpoint"
	DoctorCheckToken          Message = "doctor.check.token"
	DoctorCheckAccount        Message = "doctor.check.account"
	DoctorCheckVersion        Message = "doctor.check.version"
	DoctorCheckEvents         Message = "doctor.check.events"
	DoctorCheckDownload       Message = "doctor.check.download_directory"
	DoctorCheckUpload         Message = "doctor.check.upload_root"
	DoctorCheckAudit          Message = "doctor.check.audit_file"
	DoctorCheckTasks          Message = "doctor.check.task_directory"
	DoctorCheckDryRun         Message = "doctor.check.dry_run"
	DoctorCheckSandbox        Message = "doctor.check.sandbox"
	DoctorCheckArchive        Message = "doctor.check.archive"
	DoctorCheckChannel        Message = "doctor.check.channel"
	DoctorDryRunOn            Message = "doctor.dry_run_on"
	DoctorSandboxOn           Message = "doctor.sandbox_on"  // seed
	DoctorVarProblem          Message = "doctor.var_problem" // variable, problem
	DoctorSetVar              Message = "doctor.set_var"     // variable, accepted
	DoctorConfigOK            Message = "doctor.config_ok"   // mode, endpoint, token, events token, timeout, params check
	DoctorEndpointNone        Message = "doctor.no_endpoint_value"
	DoctorSet                 Message = "doctor.set"
	DoctorUnset               Message = "doctor.unset"
	DoctorInherited           Message = "doctor.inherited"
	DoctorNoteFix             Message = "doctor.note_fix"
	DoctorMisspeltFix         Message = "doctor.misspelt_fix" // the name set, the variable it resembles
	DoctorNoEndpoint          Message = "doctor.no_endpoint"
	DoctorNoEndpointFix       Message = "doctor.no_endpoint_fix"
	DoctorAuditOK             Message = "doctor.audit_ok" // path
	DoctorTasksFix            Message = "doctor.tasks_fix"
	DoctorCheckEndpointVar    Message = "doctor.check_endpoint_var"
	DoctorAnswers             Message = "doctor.answers" // endpoint
	DoctorTokenUnsetFix       Message = "doctor.token_unset_fix"
	DoctorTokenWrongFix       Message = "doctor.token_wrong_fix"
	DoctorTokenRefused        Message = "doctor.token_refused" // HTTP status
	DoctorNotOneBot           Message = "doctor.not_onebot"    // endpoint, the error
	DoctorNotOneBotFix        Message = "doctor.not_onebot_fix"
	DoctorNoAnswer            Message = "doctor.no_answer" // endpoint, the error
	DoctorNoAnswerFix         Message = "doctor.no_answer_fix"
	DoctorBadPath             Message = "doctor.bad_path" // endpoint
	DoctorBadPathFix          Message = "doctor.bad_path_fix"
	DoctorLoginFailed         Message = "doctor.login_failed" // status, retcode
	DoctorLoginFix            Message = "doctor.login_fix"
	DoctorLoggedIn            Message = "doctor.logged_in" // nickname, QQ number
	DoctorNoToken             Message = "doctor.no_token"  // the logged-in detail
	DoctorNoTokenFix          Message = "doctor.no_token_fix"
	DoctorActionFailed        Message = "doctor.action_failed" // action, the error
	DoctorLogsFix             Message = "doctor.logs_fix"
	DoctorOnlineUnknown       Message = "doctor.online_unknown"
	DoctorOnlineFix           Message = "doctor.online_fix"
	DoctorOffline             Message = "doctor.offline"
	DoctorOfflineFix          Message = "doctor.offline_fix"
	DoctorOnline              Message = "doctor.online"
	DoctorNoVersion           Message = "doctor.no_version"
	DoctorNoVersionFix        Message = "doctor.no_version_fix"
	DoctorVersionOK           Message = "doctor.version_ok"        // SnowLuma's version
	DoctorVersionOther        Message = "doctor.version_other"     // SnowLuma's version, the catalog's
	DoctorVersionOlderFix     Message = "doctor.version_older_fix" // catalog version
	DoctorVersionFix          Message = "doctor.version_fix"
	DoctorEventsRefused       Message = "doctor.events_refused" // URL, the message
	DoctorEventsTokenUnsetFix Message = "doctor.events_token_unset_fix"
	DoctorEventsTokenWrongFix Message = "doctor.events_token_wrong_fix"
	DoctorNoEvents            Message = "doctor.no_events"      // URL, the message
	DoctorNoEventsStep        Message = "doctor.no_events_step" // the next step
	DoctorNoEventsFix         Message = "doctor.no_events_fix"
	DoctorEventsSilent        Message = "doctor.events_silent" // URL, the wait
	DoctorEventsSilentFix     Message = "doctor.events_silent_fix"
	DoctorEventsOK            Message = "doctor.events_ok"       // URL, events token state, the first frame
	DoctorDirWillCreate       Message = "doctor.dir_will_create" // directory
	DoctorDirNoCreate         Message = "doctor.dir_no_create"   // directory
	DoctorDirAbsFix           Message = "doctor.dir_abs_fix"
	DoctorDirWritableFix      Message = "doctor.dir_writable_fix"
	DoctorNotDir              Message = "doctor.not_dir" // directory
	DoctorNotDirFix           Message = "doctor.not_dir_fix"
	DoctorDirNoWrite          Message = "doctor.dir_no_write" // directory, the error
	DoctorDirNoWriteFix       Message = "doctor.dir_no_write_fix"
	DoctorDirWritable         Message = "doctor.dir_writable" // directory
	DoctorDirShared           Message = "doctor.dir_shared"   // directory, its mode
	DoctorDirSharedFix        Message = "doctor.dir_shared_fix"
	DoctorDirReadable         Message = "doctor.dir_readable" // directory, mode problem
	DoctorDirPrivateFix       Message = "doctor.dir_private_fix"
	DoctorDirPrivate          Message = "doctor.dir_private" // what was checked
	DoctorAnd                 Message = "doctor.and"         // a detail, more of it
	DoctorFree                Message = "doctor.free"        // free MiB, quota MiB
	DoctorFreeFix             Message = "doctor.free_fix"
	DoctorUploadNoRead        Message = "doctor.upload_no_read" // the error
	DoctorUploadFix           Message = "doctor.upload_fix"
	DoctorUploadOK            Message = "doctor.upload_ok" // directory, entries
)

type text struct{ en, zh string }

// doctor's texts on Windows, where no POSIX permission is set or checked.
const (
	DoctorDirWillCreateWindows Message = "doctor.dir_will_create_windows" // directory
	DoctorAuditOKWindows       Message = "doctor.audit_ok_windows"        // path
	DoctorArchiveNewWindows    Message = "doctor.archive_new_windows"     // path
)

// Path examples for Windows, and a path that holds a shell's variable.
const (
	ConfigPathUnexpanded     Message = "config.path_unexpanded" // the variable as written
	ConfigTaskDirWindows     Message = "config.task_dir_windows"
	ConfigArchivePathWindows Message = "config.archive_path_windows"
	ConfigAuditFileWindows   Message = "config.audit_file_windows"
	ConfigDownloadDirWindows Message = "config.download_dir_windows"
)

// A second server on the same archive file or task folder.
const (
	ArchiveInUse  Message = "archive.in_use" // path
	TasksInUse    Message = "tasks.in_use"   // folder, holder
	HolderProcess Message = "holder.process" // pid, since (RFC 3339)
	HolderUnknown Message = "holder.unknown"
)

// --help's texts (internal/app).
const (
	HelpIntro   Message = "help.intro"   // name, version, catalog version, name; paragraphs apart by a blank line
	HelpDefault Message = "help.default" // the default as shown
)

// Warnings about a configuration that still serves, and what to do about
// each note (doctor's fix).
const (
	NoteTokenShort            Message = "note.token_short" // variable, length, least length
	NoteTokenShortFix         Message = "note.token_short_fix"
	NoteModeIgnoredFix        Message = "note.mode_ignored_fix"
	NoteEventsIgnoredFix      Message = "note.events_ignored_fix"
	NoteEventsTokenIgnoredFix Message = "note.events_token_ignored_fix"
	NoteTaskDirIgnoredFix     Message = "note.task_dir_ignored_fix"
	NoteArchiveIgnoredFix     Message = "note.archive_ignored_fix"
	NoteArchiveEmptyFix       Message = "note.archive_empty_fix"
	NoteArchiveNoEventsFix    Message = "note.archive_no_events_fix"
	NoteChannelIgnoredFix     Message = "note.channel_ignored_fix"
	NoteChannelEmptyFix       Message = "note.channel_empty_fix"
)

// texts holds every message in both languages.
var texts = map[Message]text{
	FormNeedsOne:    {"%s needs one more parameter.", "%s 还缺一个参数。"},
	FormNeedsMany:   {"%s needs %d more parameters.", "%s 还缺 %d 个参数。"},
	FormFillIn:      {" Fill in %s.", "请填写 %s。"},
	FormEnterJSON:   {" Enter a JSON object with exactly these fields in %s:", "请在 %s 中填一个 JSON 对象，只含下列字段："},
	FormAlreadySet:  {"\nAlready given (not to be entered again): %s.", "\n已经给出的参数（不用再填）：%s。"},
	FormMustConfirm: {"\nThis action must be confirmed: set %s to true to run %s once with these parameters. %s", "\n此操作需要确认：把 %s 设为 true，就会用这些参数执行一次 %s。%s"},
	FormJSONTitle:   {"Parameters (JSON object)", "参数（JSON 对象）"},
	FormJSONHelp:    {`A JSON object with exactly: %s. For example {"%s": ...}`, `一个只含 %s 的 JSON 对象，例如 {"%s": ...}`},
	ConfirmQuestion: {"Allow %[1]s on %[3]s? %[4]s", "%[2]s %[1]s：%[3]s。允许执行吗？%[4]s"},
	ConfirmAct:      {"Allow %[1]s: %[3]s? %[4]s", "%[2]s %[1]s：%[3]s。允许执行吗？%[4]s"},
	ConfirmNoTarget: {"no named group or user", "未指定群或用户"},
	ConfirmGroup:    {"group %d", "群 %d"},
	ConfirmUser:     {"user %d", "用户 %d"},
	ConfirmMember:   {"user %d", "成员 %d"},
	ConfirmSep:      {", ", "，"},
	ConfirmRunTitle: {"Run it", "执行"},
	ConfirmRunHelp:  {"true runs the action once; false runs nothing.", "true：执行一次；false：不执行。"},

	GateIntro:     {"Messages written by QQ users (%s) were read in this session, and this call %s. Such a message may be steering it: allow it only if you asked for it.\n", "本会话读过 QQ 用户发的消息（%s），而这个操作%s。这可能是那些消息在诱导模型：只有确实是你本人要求的，才允许执行。\n"},
	GateLocalFile: {"uploads the local file %s", "会上传本地文件 %s"},
	GateURL:       {"has the URL %s in its parameters", "的参数里有网址 %s"},
	GateElsewhere: {"goes to %s, whose messages were not read", "会发往没读过消息的 %s"},
	GateNotID:     {"names %s, which is not a number", "指定的 %s 不是号码"},
	GateNoChat:    {"names no chat, so it reaches beyond the chats read", "没有指定会话，内容可能发到读过的会话以外"},
	GatePublic:    {"publishes what it carries outside any chat (QZone, the profile, the status)", "会把内容公开发布到会话之外（QQ 空间、资料、状态等）"},
	GateCarries:   {"carries message %s of %s", "会带出消息 %[1]s（来自%[2]s）"},
	GateSep:       {"; ", "；"},
	GateGroup:     {"group %d", "群 %d"},
	GatePrivate:   {"private chat %d", "与 %d 的私聊"},
	GateUnknown:   {"a chat that cannot be told (a merged forward, a contact list)", "无法确定来源的会话（合并转发、联系人列表等）"},

	// doctor: the send gate's record.
	DoctorCheckRecord:   {"untrusted record", "外发检查记录"},
	DoctorRecordOK:      {"%s: %d chats read within the last %d h; a new connection, or the server after a restart, starts from them (a send elsewhere is checked)", "%s：最近 %[3]d 小时内读过 %[2]d 个会话；新连接或重启后的服务器都从这些会话开始（发往别处要检查）"},
	DoctorRecordNew:     {"%s does not exist yet; the first read of QQ users' text creates it (private), and it keeps the chats read for %d h so that a restart does not forget them", "%s 尚不存在；第一次读取 QQ 用户写的内容时创建（私有），读过的会话保留 %d 小时，重启也不会忘记"},
	DoctorRecordProblem: {"%s: until it is fixed, every connection starts as if QQ users' text had been read", "%s：修好之前，每个连接一开始都当作已读过 QQ 用户写的内容"},
	DoctorRecordFix:     {"move the file aside (a new one is written), or run chmod 700 on its folder", "把这个文件移走（会重新写一个），或对它所在的文件夹执行 chmod 700"},
	DoctorRecordMemory:  {"the environment names no user cache directory (HOME; LOCALAPPDATA on Windows): the chats read are kept in memory only, and a restart forgets them", "环境里没有用户缓存目录（HOME；Windows 上是 LOCALAPPDATA）：读过的会话只保存在内存里，重启后就忘了"},
	DoctorRecordMemFix:  {"give the server HOME (LOCALAPPDATA on Windows) in the host's configuration, or set SNOWLUMA_MCP_TASK_DIR", "在宿主配置里给服务器设置 HOME（Windows 上是 LOCALAPPDATA），或设置 SNOWLUMA_MCP_TASK_DIR"},

	// Configuration.
	ConfigLine:             {"%s: %s; accepted: %s", "%s：%s；可接受：%s"},
	ConfigStartError:       {"configuration error: %s", "配置错误：%s"},
	ConfigStartVarError:    {"configuration error: %s: %s", "配置错误：%s：%s"},
	ConfigTasksOff:         {"background tasks are off: %s", "后台任务不可用：%s"},
	ConfigNotPositive:      {"%q is not a positive integer of at most %d", "%q 不是 1 到 %d 之间的整数"},
	ConfigNotBytesIn:       {"%q is not a whole number of bytes from %d to %d", "%q 不是 %d 到 %d 之间的整数字节数"},
	ConfigNotWholeFrom0:    {"%q is not a whole number from 0 to %d", "%q 不是 0 到 %d 之间的整数"},
	ConfigMillis:           {"a whole number of milliseconds from 1 to 86400000 (a day), e.g. %d", "1 到 86400000（一天）之间的整数毫秒数，例如 %d"},
	ConfigRequestBytes:     {"a whole number of bytes from 65536 (64 KiB) to 268435456 (256 MiB), e.g. 4194304", "65536（64 KiB）到 268435456（256 MiB）之间的整数字节数，例如 4194304"},
	ConfigBodyBytes:        {"a whole number of bytes from 16384 (16 KiB) to 1073741824 (1 GiB), e.g. 2097152 (SnowLuma's limit)", "16384（16 KiB）到 1073741824（1 GiB）之间的整数字节数，例如 2097152（SnowLuma 的上限）"},
	ConfigBytesUpTo:        {"a whole number of bytes from 1 to %d (%s), e.g. %d", "1 到 %d（%s）之间的整数字节数，例如 %d"},
	ConfigStreamsAccepted:  {"a whole number from 1 to 64, e.g. 4", "1 到 64 之间的整数，例如 4"},
	ConfigNotBoolean:       {"%q is not a boolean", "%q 不是布尔值"},
	ConfigBoolean:          {"true or false (also 1/yes or 0/no, any case)", "true 或 false（也可写 1/yes 或 0/no，不分大小写）"},
	ConfigMillis0:          {"a whole number of milliseconds from 0 to 86400000 (a day), e.g. %d", "0 到 86400000（一天）之间的整数毫秒数，例如 %d"},
	ConfigSeed:             {"a whole number from 0 to 18446744073709551615, e.g. 7", "0 到 18446744073709551615 之间的整数，例如 7"},
	ConfigNotLang:          {"%q is not a language this server speaks", "%q 不是本服务器支持的语言"},
	ConfigLangs:            {"zh or en, in any common form (zh-CN, zh_CN.UTF-8, zh-Hans, zh-TW, en-US, ...); unset: from LC_ALL, LC_MESSAGES or LANG, else the system's display language", "zh 或 en，常见写法都可以（zh-CN、zh_CN.UTF-8、zh-Hans、zh-TW、en-US 等）；不设时取自 LC_ALL、LC_MESSAGES 或 LANG，再不然取系统的显示语言"},
	ConfigTokenControl:     {"the token contains a control character (%U), as a line break or a CRLF .env file leaves", "令牌含有控制字符（%U），换行或 CRLF 格式的 .env 文件会留下这种字符"},
	ConfigTokenInvisible:   {"the token holds an invisible character (%U) %s, as copying from a web page, a chat or an editor leaves; it would be sent as part of the token", "令牌%[2]s有一个看不见的字符（%[1]U），从网页、聊天或编辑器复制时常会带上；它会被当作令牌的一部分发出"},
	ConfigAtStart:          {"at its start", "开头"},
	ConfigAtEnd:            {"at its end", "末尾"},
	ConfigInside:           {"inside it", "中间"},
	ConfigTokenBearer:      {"the token starts with a 'Bearer ' prefix", "令牌以 'Bearer ' 前缀开头"},
	ConfigTokenHeader:      {"the value is a pasted header line ('Authorization: ...'), not the token", "这个值是粘贴来的整行请求头（'Authorization: ...'），不是令牌本身"},
	ConfigTokenWrapped:     {"the token is wrapped in %c…%c, as an example's placeholder is (such as <your access token>): put SnowLuma's access token itself here", "令牌被 %c…%c 包着，像示例里的占位符（例如 <你的访问令牌>）：这里要填 SnowLuma 的访问令牌本身"},
	ConfigTokenQuoted:      {"the token is wrapped in quotes (%c…%c), which become part of the value (cmd's set and some .env files keep them)", "令牌被引号 %c…%c 包着，引号会成为值的一部分（cmd 的 set 和某些 .env 文件会保留引号）"},
	ConfigTokenChar:        {"the token holds %q (%U) at character %d, which is not ASCII: an HTTP header carries ASCII, as SnowLuma's generated tokens are (a Chinese input method types full-width characters)", "令牌第 %[3]d 个字符是 %[1]q（%[2]U），不是 ASCII：HTTP 请求头只能携带 ASCII，SnowLuma 生成的令牌也都是 ASCII（中文输入法会打出全角字符）"},
	ConfigURLChar:          {"the URL holds %q (%U) at character %d, which a Chinese input method types: %s", "URL 第 %[3]d 个字符是 %[1]q（%[2]U），这是中文输入法打出的字符：%[4]s"},
	ConfigURLQuote:         {"the URL holds the quote %q at character %d: quotes become part of the value (cmd's set keeps them), remove them", "URL 第 %[2]d 个字符是引号 %[1]q：引号会成为值的一部分（cmd 的 set 会保留引号），请删去"},
	ConfigTypeInstead:      {"type %q instead", "请改为 %q"},
	ConfigRemoveIt:         {"remove it", "请删去"},
	ConfigTokenAccepted:    {"the bare access token on one line, without control or invisible characters or a 'Bearer ' prefix (the server sends 'Authorization: Bearer <token>' itself)", "单独一行的访问令牌本身，不带控制字符、看不见的字符或 'Bearer ' 前缀（服务器自己会发送 'Authorization: Bearer <token>'）"},
	ConfigURLPort:          {"the URL's port is not a number from 1 to 65535", "URL 的端口不是 1 到 65535 之间的数"},
	ConfigNotURL:           {"the value is not a URL", "这个值不是 URL"},
	ConfigURLScheme:        {"the URL's scheme is not %s or %s", "URL 的协议不是 %s 或 %s"},
	ConfigURLNoHost:        {"the URL has no host", "URL 没有主机"},
	ConfigURLCredentials:   {"the URL embeds credentials", "URL 里带了用户名或密码"},
	ConfigURLQuery:         {"the URL has a query string", "URL 带有查询参数（?）"},
	ConfigURLFragment:      {"the URL has a fragment", "URL 带有片段（#）"},
	ConfigEndpointURL:      {"an absolute http:// or https:// URL with a host, e.g. http://127.0.0.1:3000/, with the token in SNOWLUMA_MCP_TOKEN", "带主机的绝对 http:// 或 https:// URL，例如 http://127.0.0.1:3000/，令牌放在 SNOWLUMA_MCP_TOKEN 里"},
	ConfigEventsURL:        {"an absolute ws:// or wss:// URL with a host, e.g. ws://127.0.0.1:3001/ (SnowLuma's default), with the token in SNOWLUMA_MCP_EVENTS_TOKEN or SNOWLUMA_MCP_TOKEN", "带主机的绝对 ws:// 或 wss:// URL，例如 ws://127.0.0.1:3001/（SnowLuma 的默认值），令牌放在 SNOWLUMA_MCP_EVENTS_TOKEN 或 SNOWLUMA_MCP_TOKEN 里"},
	ConfigPathNotAbsolute:  {"the path is not absolute", "路径不是绝对路径"},
	ConfigNotAbsolute:      {"%q is not an absolute path", "%q 不是绝对路径"},
	ConfigTaskDir:          {"an absolute path to a private directory, e.g. /home/me/.local/state/snowluma-mcp/tasks", "私有目录的绝对路径，例如 /home/me/.local/state/snowluma-mcp/tasks"},
	ConfigNotMode:          {"%q is not a mode", "%q 不是模式"},
	ConfigModes:            {"docs, read or write", "docs、read 或 write"},
	ConfigNoCacheDir:       {"it is unset and this system has no user cache directory", "未设置，而本系统没有用户缓存目录"},
	ConfigDirPath:          {"an absolute directory path", "一个绝对目录路径"},
	ConfigDownloadDir:      {"an absolute directory path on the MCP host; it is created 0700 when missing", "MCP 主机上的绝对目录路径；不存在时以 0700 创建"},
	ConfigCannotUse:        {"%q cannot be used: %v", "%q 无法使用：%v"},
	ConfigNotDir:           {"%q is not a directory", "%q 不是目录"},
	ConfigUploadRoot:       {"the absolute path of an existing directory on the MCP host, or unset to turn automatic upload off", "MCP 主机上已有目录的绝对路径；不设则关闭自动上传"},
	ConfigNotSensitive:     {"%q is not a sensitive-action policy", "%q 不是敏感操作策略"},
	ConfigSensitive:        {"deny, redact or allow", "deny、redact 或 allow"},
	ConfigNotConfirm:       {"%q is not a confirmation policy", "%q 不是确认策略"},
	ConfigConfirm:          {"none, destructive or writes", "none、destructive 或 writes"},
	ConfigNotUntrusted:     {"%q is not an untrusted-sends policy", "%q 不是不可信内容外发策略"},
	ConfigUntrusted:        {"confirm, refuse or off", "confirm、refuse 或 off"},
	ConfigInterval:         {"milliseconds from 0 (off) to 86400000, e.g. 1000", "0（关闭）到 86400000 之间的毫秒数，例如 1000"},
	ConfigPerMinute:        {"a count from 0 (off) to 100000, e.g. 20", "0（关闭）到 100000 之间的次数，例如 20"},
	ConfigBadList:          {"%s", "列表有误：%s"},
	ConfigGroups:           {"comma-separated positive group numbers, e.g. 20001,20002, or unset for any group", "用逗号分隔的正整数群号，例如 20001,20002；不设则不限群"},
	ConfigUsers:            {"comma-separated positive QQ numbers, e.g. 30001,30002, or unset for any user", "用逗号分隔的正整数 QQ 号，例如 30001,30002；不设则不限用户"},
	ConfigCannotOpen:       {"%s", "无法打开：%s"},
	ConfigAuditFile:        {"an absolute path of a file this process may create and append to, e.g. /var/log/snowluma-mcp/audit.jsonl", "本进程可以创建并追加写入的文件的绝对路径，例如 /var/log/snowluma-mcp/audit.jsonl"},
	NoteModeIgnored:        {"%s=%s ignored: no %s is set, so the mode is docs", "已忽略 %s=%s：未设置 %s，所以模式是 docs"},
	NoteEventsIgnored:      {"%s ignored: docs mode stays offline, so no event tools are offered", "已忽略 %s：docs 模式不连接 SnowLuma，没有事件工具"},
	NoteEventsTokenIgnored: {"%s ignored: no %s is set", "已忽略 %s：未设置 %s"},
	NoteTaskDirIgnored:     {"%s ignored: background tasks need write mode", "已忽略 %s：后台任务需要 write 模式"},
	ConfigNotChannel:       {"%q is not a channel mode", "%q 不是推送通道（SNOWLUMA_MCP_CHANNEL）的模式"},
	ConfigChannelModes:     {"off, mentions or all", "off、mentions 或 all"},
	ConfigChannelNeeds:     {"the channel needs %s", "推送通道需要 %s"},
	ConfigChannelNeedsMode: {"the channel needs read or write mode, and this configuration is in docs mode", "推送通道需要 read 或 write 模式，而当前配置是 docs 模式"},
	ConfigChannelNeedsFix:  {"set SNOWLUMA_MCP_ENDPOINT (read or write mode) and SNOWLUMA_MCP_EVENTS_URL (SnowLuma's WebSocket server, e.g. ws://127.0.0.1:3001/), or set SNOWLUMA_MCP_CHANNEL=off", "设置 SNOWLUMA_MCP_ENDPOINT（read 或 write 模式）和 SNOWLUMA_MCP_EVENTS_URL（SnowLuma 的 WebSocket 服务器，例如 ws://127.0.0.1:3001/），或设 SNOWLUMA_MCP_CHANNEL=off"},
	ConfigChannelGroups:    {"comma-separated positive group numbers whose messages the channel pushes, e.g. 20001,20002; unset pushes no group", "用逗号分隔的正整数群号，推送通道会推送这些群的消息，例如 20001,20002；不设则不推送任何群"},
	ConfigChannelUsers:     {"comma-separated positive QQ numbers, e.g. 30001,30002", "用逗号分隔的正整数 QQ 号，例如 30001,30002"},
	ConfigChannelOutside:   {"%d is not in %s, and the channel stays inside the allowlists", "%d 不在 %s 中，而推送通道不能超出允许名单"},
	ConfigChannelInside:    {"ids that %s also lists: add the id there, or remove it here", "也在 %s 里的号码：把这个号码加到那里，或从这里删掉"},
	ConfigApproversWrite:   {"approval prompts are sent as private QQ messages, which needs write mode", "审批请求以 QQ 私聊消息发出，需要 write 模式"},
	ConfigApproversFix:     {"set SNOWLUMA_MCP_MODE=write, or unset SNOWLUMA_MCP_CHANNEL_APPROVERS", "设 SNOWLUMA_MCP_MODE=write，或删去 SNOWLUMA_MCP_CHANNEL_APPROVERS"},
	NoteChannelEmpty:       {"the channel is on but %s and %s are both unset, so it pushes no message; list the groups and people to follow", "推送通道已开启，但 %s 和 %s 都未设置，因此不会推送任何消息；请列出要关注的群和人"},
	ConfigArchivePath:      {"an absolute path of the archive's SQLite file, e.g. /home/me/.local/state/snowluma-mcp/archive.db (created 0600 in a 0700 directory), or a postgres:// URL", "归档 SQLite 文件的绝对路径，例如 /home/me/.local/state/snowluma-mcp/archive.db（以 0600 创建，所在目录 0700），或 postgres:// URL"},
	ConfigArchiveList:      {"* for every chat the allowlists permit, or comma-separated positive numbers, e.g. 20001,20002", "* 表示允许名单内的所有会话，或用逗号分隔的正整数号码，例如 20001,20002"},
	ConfigArchiveDays:      {"a whole number of days from 1 to 36500", "1 到 36500 之间的整数天数"},
	ConfigBadReader:        {"longer than 64 characters, or holds control characters", "超过 64 个字符，或含控制字符"},
	ConfigReader:           {"a name of up to 64 characters, e.g. alice", "不超过 64 个字符的名字，例如 alice"},
	ConfigNotZone:          {"%q is not a time zone this system knows", "%q 不是本系统认识的时区"},
	ConfigZone:             {"an IANA zone name such as Asia/Shanghai, or an offset from UTC such as +08:00 (works without a zone database)", "IANA 时区名（例如 Asia/Shanghai），或相对 UTC 的时差（例如 +08:00，无需时区数据库）"},
	NoteArchiveIgnored:     {"%s ignored: the archive needs read or write mode", "已忽略 %s：消息归档需要 read 或 write 模式"},
	NoteArchiveEmpty:       {"the archive is on but %s and %s are both unset, so it keeps no chat; list the chats, or * for all", "消息归档已开启，但 %s 和 %s 都未设置，因此不保存任何会话；请列出会话，或用 * 表示全部"},
	NoteArchiveNoEvents:    {"the archive has no event connection (%s unset): it catches up from SnowLuma's history at start only and keeps the bot's own sends", "消息归档没有事件连接（未设置 %s）：只在启动时从 SnowLuma 的历史记录补齐，并保存机器人自己发出的消息"},
	DoctorArchiveNew:       {"%s does not exist yet; the server creates it (0600) at its next start", "%s 还不存在；服务器下次启动时会创建它（0600）"},
	DoctorArchiveHeld:      {"%s is held by a running snowluma-mcp (only one server may use the file); its get_runtime_info reports the archive", "%s 正被一个运行中的 snowluma-mcp 占用（同一文件只能由一个服务器使用）；可用它的 get_runtime_info 查看归档状态"},
	DoctorArchiveOK:        {"%s: schema %d, %d messages in %d chats, %.1f MiB; newest per chat: %s", "%[1]s：格式版本 %[2]d，%[4]d 个会话共 %[3]d 条消息，%.1[5]f MiB；各会话最新消息：%[6]s"},
	DoctorArchiveShared:    {"%s is readable by other users (mode %#o)", "%s 可被其他用户读取（权限 %#o）"},
	DoctorArchiveHeldFix:   {"nothing to do while that server runs; stop it to have doctor check the file", "该服务器运行期间无需处理；如需 doctor 检查文件，请先停止它"},
	DoctorArchiveFix:       {"run chmod 600 on it", "对它执行 chmod 600"},
	DoctorArchiveFailed:    {"%[1]s: %[3]s", "%[1]s：%[2]s（%[3]s）"},
	DoctorArchiveBadFix:    {"check the file SNOWLUMA_MCP_ARCHIVE names, or move it aside and restart", "检查 SNOWLUMA_MCP_ARCHIVE 指向的文件，或把它移到别处再重启"},
	ArchiveCorrupt:         {"not a readable SQLite database, or damaged", "不是可读的 SQLite 数据库，或者已损坏"},
	ArchiveCorruptFix:      {"move the file aside (keep it if you want to try to recover it) and restart; a new archive is created", "把这个文件移到别处（想尝试恢复就留着它）再重启，会新建一个归档"},
	ArchiveForeign:         {"another program's SQLite database", "是别的程序的 SQLite 数据库，不是 snowluma-mcp 的归档"},
	ArchiveForeignFix:      {"set SNOWLUMA_MCP_ARCHIVE to a new file; this one is left untouched", "把 SNOWLUMA_MCP_ARCHIVE 设为一个新文件；这个文件不会被改动"},
	ArchiveNewer:           {"written by a newer snowluma-mcp", "由更新版本的 snowluma-mcp 写入"},
	ArchiveNewerFix:        {"upgrade snowluma-mcp, or give this build its own SNOWLUMA_MCP_ARCHIVE file", "升级 snowluma-mcp，或给这个版本另设一个 SNOWLUMA_MCP_ARCHIVE 文件"},
	ArchiveFull:            {"the disk or the archive's size limit is full", "磁盘或归档的大小上限已满"},
	ArchiveFullFix:         {"free disk space, or lower SNOWLUMA_MCP_ARCHIVE_MAX_BYTES or SNOWLUMA_MCP_ARCHIVE_DAYS, and restart", "腾出磁盘空间，或调低 SNOWLUMA_MCP_ARCHIVE_MAX_BYTES 或 SNOWLUMA_MCP_ARCHIVE_DAYS，然后重启"},
	ArchiveIO:              {"the file cannot be read or written", "文件无法读写"},
	ArchiveIOFix:           {"check the path: its folder must be on a local disk and writable by this user, or choose another path", "检查路径：所在文件夹要在本机磁盘上、且此用户可写；或者换一个路径"},
	ArchiveUnusable:        {"the archive %[1]s cannot be used: %[3]s; %[4]s", "消息归档 %[1]s 无法使用：%[2]s（%[3]s）。%[4]s；在此之前，归档工具会说明无法使用"},
	NoteChannelIgnored:     {"%s ignored: %s is off", "已忽略 %s：%s 为 off"},
	ConfigBadBots:          {"%s", "机器人列表有误：%s"},
	ConfigBots:             {"comma-separated labels, each a lowercase letter and up to 15 more lowercase letters or digits, e.g. main,alt; the first bot is configured by the unsuffixed variables, each other one by SNOWLUMA_MCP_ENDPOINT_<LABEL>, SNOWLUMA_MCP_TOKEN_<LABEL>, SNOWLUMA_MCP_EVENTS_URL_<LABEL> and SNOWLUMA_MCP_EVENTS_TOKEN_<LABEL>", "用逗号分隔的标签，每个以小写字母开头，后接至多 15 个小写字母或数字，例如 main,alt；第一个机器人用不带后缀的变量配置，其余每个用 SNOWLUMA_MCP_ENDPOINT_<标签>、SNOWLUMA_MCP_TOKEN_<标签>、SNOWLUMA_MCP_EVENTS_URL_<标签> 和 SNOWLUMA_MCP_EVENTS_TOKEN_<标签> 配置"},
	ConfigBotNoEndpoint:    {"bot %s has no endpoint: %s is unset", "机器人 %s 没有地址：未设置 %s"},
	ConfigBotEndpoint:      {"set %s to that bot's SnowLuma OneBot HTTP endpoint, e.g. http://127.0.0.1:3010/, or remove %s from SNOWLUMA_MCP_BOTS", "把 %s 设为该机器人的 SnowLuma OneBot HTTP 地址，例如 http://127.0.0.1:3010/，或从 SNOWLUMA_MCP_BOTS 中删去 %s"},
	NoteUnknownVariable:    {"warning: %s is not a variable this server reads and is ignored; did you mean %s? (see --help)", "警告：%s 不是此服务器读取的变量，已忽略；是不是想写 %s？（见 --help）"},
	NoteSandboxIgnored:     {"%s ignored: the sandbox sets it to its simulated SnowLuma", "已忽略 %s：沙箱会把它设为自己模拟的 SnowLuma"},
	SandboxStarted:         {"sandbox: a simulated SnowLuma with a simulated QQ account (seed %d), HTTP %s, WebSocket %s, in this process; nothing reaches QQ", "沙箱：在本进程内运行的模拟 SnowLuma 和模拟 QQ 账号（种子 %d），HTTP %s，WebSocket %s；不会有任何内容到达 QQ"},
	SandboxDirs:            {"sandbox: task directory %s, download directory %s, upload root %s (temporary ones are removed at exit)", "沙箱：任务目录 %s，下载目录 %s，上传根目录 %s（临时目录在退出时删除）"},
	SandboxSecond:          {"sandbox: bot %s is a second simulated account, %d, HTTP %s, WebSocket %s; both accounts are in group %d, and what one sends there the other receives", "沙箱：机器人 %s 是第二个模拟账号 %d，HTTP %s，WebSocket %s；两个账号都在群 %d 里，一个在群里发的消息另一个会收到"},
	SandboxTooManyBots:     {"the sandbox simulates one or two accounts; SNOWLUMA_MCP_BOTS names %d: name two labels (e.g. main,alt), or unset it", "沙箱只模拟一个或两个账号；SNOWLUMA_MCP_BOTS 列出了 %d 个：请只写两个标签（如 main,alt），或不设置它"},
	SandboxDryRun:          {"dry run: write actions and uploads are checked and not sent; read-only actions go to SnowLuma", "演练模式：写操作和上传只做检查、不发送；只读操作照常发往 SnowLuma"},
	TerminalHint:           {"this is an MCP server: it speaks JSON-RPC on stdin/stdout and is meant to be started by an MCP host (Claude Desktop, Claude Code, VS Code, Cursor, the MCP Inspector); see the README's host configurations. Press Ctrl-D (Ctrl-Z then Enter on Windows) to stop it", "这是一个 MCP 服务器：它通过标准输入输出收发 JSON-RPC 消息，应由 MCP 宿主（Claude Desktop、Claude Code、VS Code、Cursor、MCP Inspector）启动；见 README 中的宿主配置。按 Ctrl-D（Windows 上按 Ctrl-Z 再按回车）停止它"},

	// doctor.
	DoctorHeader:              {"%s doctor %s (SnowLuma catalog %s)", "%s doctor %s（SnowLuma 动作目录 %s）"},
	DoctorFix:                 {"fix: %s", "解决办法：%s"},
	DoctorSummary:             {"%d failed, %d warnings", "%d 项失败，%d 项警告"},
	DoctorSummaryOne:          {"%d failed, 1 warning", "%d 项失败，1 项警告"},
	DoctorTasksOK:             {"%s is private (%s), belongs to this configuration and its lease is free", "%s：%s；属于当前配置，目前没有别的服务器在用"},
	DoctorPrivatePOSIX:        {"no access for group or others (mode 0700)", "私有（同组用户和其他用户都无权访问，权限 0700）"},
	DoctorPrivateWindows:      {"a directory; on Windows its access list is not read (Go shows every directory as 0777), so keep it inside your user profile", "Windows 上不检查访问控制列表（Go 把每个目录都显示为 0777），请确保它在你自己的用户目录下"},
	UnknownArgument:           {"%s: unknown argument %q; accepted: %s (configuration is by environment variables)", "%s：未知参数 %q；可接受：%s（配置通过环境变量设置）"},
	DoctorCheckConfig:         {"configuration", "配置"},
	DoctorCheckEndpoint:       {"endpoint", "地址"},
	DoctorCheckToken:          {"token", "令牌"},
	DoctorCheckAccount:        {"account", "账号"},
	DoctorCheckVersion:        {"version", "版本"},
	DoctorCheckEvents:         {"events", "事件"},
	DoctorCheckDownload:       {"download directory", "下载目录"},
	DoctorCheckUpload:         {"upload root", "上传根目录"},
	DoctorCheckAudit:          {"audit file", "审计文件"},
	DoctorCheckTasks:          {"task directory", "任务目录"},
	DoctorCheckDryRun:         {"dry run", "演练"},
	DoctorCheckSandbox:        {"sandbox", "沙箱"},
	DoctorCheckArchive:        {"archive", "消息归档"},
	DoctorCheckChannel:        {"channel", "推送通道"},
	DoctorDryRunOn:            {"on (SNOWLUMA_MCP_DRY_RUN): write actions and uploads are checked and not sent; read-only actions go to SnowLuma", "已开启（SNOWLUMA_MCP_DRY_RUN）：写操作和上传只做检查、不发送；只读操作照常发往 SnowLuma"},
	DoctorSandboxOn:           {"the endpoint is the simulated SnowLuma of snowluma-mcp sandbox (seed %d), started by this process: nothing reaches QQ", "地址是 snowluma-mcp sandbox 在本进程内启动的模拟 SnowLuma（种子 %d）：不会有任何内容到达 QQ"},
	DoctorVarProblem:          {"%s: %s", "%s：%s"},
	DoctorSetVar:              {"set %s to %s", "把 %s 设为：%s"},
	DoctorConfigOK:            {"mode %s, endpoint %s, token %s, events token %s, timeout %d ms, params check %v", "模式 %s，地址 %s，令牌%s，事件令牌%s，超时 %d 毫秒，参数检查 %v"},
	DoctorEndpointNone:        {"none (docs mode)", "无（docs 模式）"},
	DoctorSet:                 {"set", "已设置"},
	DoctorUnset:               {"unset", "未设置"},
	DoctorInherited:           {"inherited from SNOWLUMA_MCP_TOKEN", "沿用 SNOWLUMA_MCP_TOKEN"},
	DoctorNoteFix:             {"remove the ignored variable or change the mode", "删去被忽略的变量，或改换模式"},
	DoctorMisspeltFix:         {"rename %s to %s, or remove it if it was not meant for this server", "把 %s 改名为 %s；若它不是给本服务器的，就删去"},
	DoctorNoEndpoint:          {"no endpoint: docs mode serves the catalog and executes nothing", "未设置地址：docs 模式只提供动作目录，不执行任何动作"},
	DoctorNoEndpointFix:       {"set SNOWLUMA_MCP_ENDPOINT to SnowLuma's OneBot HTTP endpoint, e.g. http://127.0.0.1:3000/, to run actions", "要执行动作，请把 SNOWLUMA_MCP_ENDPOINT 设为 SnowLuma 的 OneBot HTTP 地址，例如 http://127.0.0.1:3000/"},
	DoctorAuditOK:             {"%s can be appended to (mode 0600)", "%s 可以追加写入（权限 0600）"},
	DoctorTasksFix:            {"fix SNOWLUMA_MCP_TASK_DIR as the message says, or point it at a new private directory", "按提示修正 SNOWLUMA_MCP_TASK_DIR，或让它指向一个新的私有目录"},
	DoctorCheckEndpointVar:    {"check SNOWLUMA_MCP_ENDPOINT", "检查 SNOWLUMA_MCP_ENDPOINT"},
	DoctorAnswers:             {"%s answers as OneBot", "%s 有应答，是 OneBot 服务"},
	DoctorTokenUnsetFix:       {"set SNOWLUMA_MCP_TOKEN to the access token of SnowLuma's OneBot HTTP server (its WebUI: 节点配置 → HTTP API → the pencil → 授权 Token)", "把 SNOWLUMA_MCP_TOKEN 设为 SnowLuma OneBot HTTP 服务的授权 Token（WebUI 面板“节点配置” → “HTTP API” → 编辑 → “授权 Token”）"},
	DoctorTokenWrongFix:       {"SNOWLUMA_MCP_TOKEN does not match SnowLuma's access token: copy it again from SnowLuma's WebUI (节点配置 → HTTP API → the pencil → 授权 Token), or from httpServers' accessToken in config/onebot_<QQ number>.json in SnowLuma's folder", "SNOWLUMA_MCP_TOKEN 与 SnowLuma 的访问令牌不符：在 SnowLuma 的 WebUI 面板“节点配置” → “HTTP API” → 编辑 → “授权 Token”中重新复制（或 SnowLuma 文件夹下 config\\onebot_<QQ号>.json 里 httpServers 的 accessToken）"},
	DoctorTokenRefused:        {"SnowLuma refused the token (HTTP %d)", "SnowLuma 拒绝了令牌（HTTP %d）"},
	DoctorNotOneBot:           {"%s answers HTTP, but not as OneBot: %s", "%s 有 HTTP 应答，但不是 OneBot：%s"},
	DoctorNotOneBotFix:        {"point SNOWLUMA_MCP_ENDPOINT at SnowLuma's OneBot HTTP server (its host, port and path), not at a web page or another service", "让 SNOWLUMA_MCP_ENDPOINT 指向 SnowLuma 的 OneBot HTTP 服务器（它的主机、端口和路径），而不是网页或别的服务"},
	DoctorNoAnswer:            {"no answer from %s: %s", "%s 没有应答：%s"},
	DoctorNoAnswerFix:         {"start SnowLuma and enable its OneBot HTTP server (its WebUI: 节点配置 → HTTP API, the node switched on), or correct the host and port in SNOWLUMA_MCP_ENDPOINT", "启动 SnowLuma 并启用它的 OneBot HTTP 服务（WebUI 面板“节点配置” → “HTTP API”里的节点要打开），或改正 SNOWLUMA_MCP_ENDPOINT 中的主机和端口"},
	DoctorBadPath:             {"%s answers as OneBot, but every action is unknown there (retcode 1404): its path is probably not SnowLuma's HTTP path", "%s 是 OneBot 服务，但这个地址上所有动作都返回不存在（retcode 1404）：路径多半不是 SnowLuma 的 HTTP 路径"},
	DoctorBadPathFix:          {"set SNOWLUMA_MCP_ENDPOINT to SnowLuma's HTTP server with the path configured in SnowLuma (default /, e.g. http://127.0.0.1:3000/)", "把 SNOWLUMA_MCP_ENDPOINT 设为 SnowLuma 的 HTTP 服务器，带上 SnowLuma 中配置的路径（默认 /，例如 http://127.0.0.1:3000/）"},
	DoctorLoginFailed:         {"get_login_info did not succeed (status %q, retcode %s)", "get_login_info 没有成功（status %q，retcode %s）"},
	DoctorLoginFix:            {"check SnowLuma's logs; the account may not be logged in", "查看 SnowLuma 的日志；账号可能没有登录"},
	DoctorLoggedIn:            {"accepted; logged in as %s (%s)", "已接受；登录的是 %s（%s）"},
	DoctorNoToken:             {"SnowLuma answered without a token; %s", "SnowLuma 没有要求令牌；%s"},
	DoctorNoTokenFix:          {"set an access token in SnowLuma and in SNOWLUMA_MCP_TOKEN, so that nothing else on the machine can drive the account", "在 SnowLuma 和 SNOWLUMA_MCP_TOKEN 中设置访问令牌，免得本机上别的程序也能操纵这个账号"},
	DoctorActionFailed:        {"%s failed: %s", "%s 失败：%s"},
	DoctorLogsFix:             {"check SnowLuma's logs", "查看 SnowLuma 的日志"},
	DoctorOnlineUnknown:       {"get_status does not say whether the account is online", "get_status 没有说明账号是否在线"},
	DoctorOnlineFix:           {"check the account in SnowLuma", "在 SnowLuma 中查看账号"},
	DoctorOffline:             {"the account is offline", "账号离线"},
	DoctorOfflineFix:          {"log the account in again in SnowLuma", "在 SnowLuma 中重新登录账号"},
	DoctorOnline:              {"online", "在线"},
	DoctorNoVersion:           {"get_version_info does not name SnowLuma's version", "get_version_info 没有给出 SnowLuma 的版本"},
	DoctorNoVersionFix:        {"compare SnowLuma's version with the catalog's by hand", "手动对照 SnowLuma 的版本和内置动作目录的版本"},
	DoctorVersionOK:           {"SnowLuma %s matches the bundled catalog", "SnowLuma %s 与内置动作目录相符"},
	DoctorVersionOther:        {"SnowLuma %s, but the bundled catalog describes %s", "SnowLuma %s，但内置动作目录对应的是 %s"},
	DoctorVersionFix:          {"upgrade snowluma-mcp to a release for this SnowLuma; meanwhile SNOWLUMA_MCP_VALIDATE_PARAMS=false lets newer params through", "把 snowluma-mcp 升级到与这个 SnowLuma 对应的版本；在此之前，设 SNOWLUMA_MCP_VALIDATE_PARAMS=false 可放行新参数"},
	DoctorVersionOlderFix:     {"upgrade SnowLuma to %s; until then, expect actions and params the catalog lists that this SnowLuma lacks to fail (retcode 1404 for a missing action)", "把 SnowLuma 升级到 %s；在此之前，动作目录里有、而这个 SnowLuma 没有的动作和参数会失败（缺少的动作返回 retcode 1404）"},
	DoctorEventsRefused:       {"%s: %s", "%s：%s"},
	DoctorEventsTokenUnsetFix: {"set SNOWLUMA_MCP_EVENTS_TOKEN to the access token of SnowLuma's WebSocket server, its own, apart from the HTTP server's in SnowLuma's generated configuration (its WebUI: 节点配置 → WS 服务端 → the pencil → 授权 Token)", "把 SNOWLUMA_MCP_EVENTS_TOKEN 设为 SnowLuma WebSocket 服务自己的授权 Token（SnowLuma 生成的配置里它和 HTTP 的不同；WebUI 面板“节点配置” → “WS 服务端” → 编辑 → “授权 Token”）"},
	DoctorEventsTokenWrongFix: {"SNOWLUMA_MCP_EVENTS_TOKEN does not match the access token of SnowLuma's WebSocket server: copy it again from SnowLuma's WebUI (节点配置 → WS 服务端 → the pencil → 授权 Token), or from wsServers' accessToken in config/onebot_<QQ number>.json", "SNOWLUMA_MCP_EVENTS_TOKEN 与 SnowLuma WebSocket 服务器的访问令牌不符：在 SnowLuma 的 WebUI 面板“节点配置” → “WS 服务端” → 编辑 → “授权 Token”中重新复制（或 config\\onebot_<QQ号>.json 里 wsServers 的 accessToken）"},
	DoctorNoEvents:            {"no event connection at %s: %s", "%s 没有事件连接：%s"},
	DoctorNoEventsStep:        {"%s, or unset SNOWLUMA_MCP_EVENTS_URL", "%s；或者删去 SNOWLUMA_MCP_EVENTS_URL"},
	DoctorNoEventsFix:         {"enable SnowLuma's WebSocket server (its WebUI: 节点配置 → WS 服务端) and set SNOWLUMA_MCP_EVENTS_URL to it (SnowLuma's default is ws://127.0.0.1:3001/), or unset it", "在 SnowLuma 的 WebUI 面板“节点配置” → “WS 服务端”里启用 WebSocket 服务，并把 SNOWLUMA_MCP_EVENTS_URL 设为它（SnowLuma 默认是 ws://127.0.0.1:3001/），或者删去这个变量"},
	DoctorEventsSilent:        {"%s accepted the WebSocket upgrade but sent nothing within %v; SnowLuma greets an accepted connection at once, so whether the token is accepted is unknown", "%s 接受了 WebSocket 升级，但 %v 内什么也没发来；SnowLuma 接受连接后会立即发来第一条消息，所以无法确定令牌是否被接受"},
	DoctorEventsSilentFix:     {"check that SNOWLUMA_MCP_EVENTS_URL is SnowLuma's WebSocket server (SnowLuma's default is ws://127.0.0.1:3001/)", "确认 SNOWLUMA_MCP_EVENTS_URL 是 SnowLuma 的 WebSocket 服务器（SnowLuma 默认是 ws://127.0.0.1:3001/）"},
	DoctorEventsOK:            {"%s accepted the token (events token %s) and greeted with %s", "%s 接受了令牌（事件令牌%s），并发来了 %s"},
	DoctorDirWillCreate:       {"%s does not exist yet; it will be created (0700) at start", "%s 还不存在；启动时会创建（0700）"},
	DoctorDirNoCreate:         {"%s cannot be created: a part of its path is not a directory", "无法创建 %s：它的路径中有一段不是目录"},
	DoctorDirAbsFix:           {"point SNOWLUMA_MCP_DOWNLOAD_DIR at an absolute directory path", "让 SNOWLUMA_MCP_DOWNLOAD_DIR 指向一个绝对目录路径"},
	DoctorDirWritableFix:      {"point SNOWLUMA_MCP_DOWNLOAD_DIR at a directory this user can write", "让 SNOWLUMA_MCP_DOWNLOAD_DIR 指向此用户可写的目录"},
	DoctorNotDir:              {"%s is not a directory", "%s 不是目录"},
	DoctorNotDirFix:           {"point SNOWLUMA_MCP_DOWNLOAD_DIR at a directory", "让 SNOWLUMA_MCP_DOWNLOAD_DIR 指向一个目录"},
	DoctorDirNoWrite:          {"%s cannot be written: %s", "%s 无法写入：%s"},
	DoctorDirNoWriteFix:       {"make it writable for this user, or choose another SNOWLUMA_MCP_DOWNLOAD_DIR", "让此用户可以写入它，或另选 SNOWLUMA_MCP_DOWNLOAD_DIR"},
	DoctorDirWritable:         {"%s is writable", "%s 可写入"},
	DoctorDirShared:           {"%s can be written by other users (mode %#o); the server refuses it at start", "%s 可被其他用户写入（权限 %#o）；服务器启动时会拒绝它"},
	DoctorDirSharedFix:        {"run chmod go-w on it (chmod 700 makes it private)", "对它执行 chmod go-w（chmod 700 让它私有）"},
	DoctorDirReadable:         {"%s is readable by other users (mode %#o); downloads may hold private files", "%s 可被其他用户读取（权限 %#o）；下载的文件可能含有私密内容"},
	DoctorDirPrivateFix:       {"run chmod 700 on it", "对它执行 chmod 700"},
	DoctorDirPrivate:          {"private: %s", "%s"},
	DoctorAnd:                 {"%s, %s", "%s，%s"},
	DoctorFree:                {"%d MiB free for a quota of %d MiB", "可用 %d MiB，配额 %d MiB"},
	DoctorFreeFix:             {"free disk space, or lower SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES below the free space", "腾出磁盘空间，或把 SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES 调到可用空间以下"},
	DoctorUploadNoRead:        {"the upload root cannot be read: %s", "无法读取上传根目录：%s"},
	DoctorUploadFix:           {"point SNOWLUMA_MCP_UPLOAD_ROOT at an existing directory this user can read, or unset it", "让 SNOWLUMA_MCP_UPLOAD_ROOT 指向此用户可读的已有目录，或者删去它"},
	DoctorUploadOK:            {"%s is readable (%d entries); only files inside it can be uploaded", "%s 可读（%d 项）；只有其中的文件可以上传"},

	// Warnings that still serve, and each note's fix.
	NoteTokenShort:            {"warning: %s has %d characters, fewer than %d; SnowLuma accepts it and the server runs, but a token that short is easily guessed by anything that reaches the port, and error messages hide it wherever it appears, ordinary text included", "警告：%s 只有 %d 个字符，少于 %d 个；SnowLuma 接受它，服务器照常运行，但这么短的令牌，任何能连到端口的程序都容易猜中，而且错误信息里凡是和它相同的文字都会被遮掉，连普通文字也不例外"},
	NoteTokenShortFix:         {"set a longer token (SnowLuma generates 43-character ones) in SnowLuma's network settings and here alike", "在 SnowLuma 的网络配置和这里换成同一个更长的令牌（SnowLuma 自动生成的有 43 个字符）"},
	NoteModeIgnoredFix:        {"set SNOWLUMA_MCP_ENDPOINT to SnowLuma's OneBot HTTP address to use this mode, or remove SNOWLUMA_MCP_MODE", "要使用这个模式，请把 SNOWLUMA_MCP_ENDPOINT 设为 SnowLuma 的 OneBot HTTP 地址；否则删去 SNOWLUMA_MCP_MODE"},
	NoteEventsIgnoredFix:      {"set SNOWLUMA_MCP_ENDPOINT (read or write mode) to receive events, or remove SNOWLUMA_MCP_EVENTS_URL", "要接收事件，请设置 SNOWLUMA_MCP_ENDPOINT（read 或 write 模式）；否则删去 SNOWLUMA_MCP_EVENTS_URL"},
	NoteEventsTokenIgnoredFix: {"set SNOWLUMA_MCP_EVENTS_URL to SnowLuma's WebSocket server, or remove SNOWLUMA_MCP_EVENTS_TOKEN", "把 SNOWLUMA_MCP_EVENTS_URL 设为 SnowLuma 的 WebSocket 服务器地址，或删去 SNOWLUMA_MCP_EVENTS_TOKEN"},
	NoteTaskDirIgnoredFix:     {"set SNOWLUMA_MCP_MODE=write to run background transfers, or remove SNOWLUMA_MCP_TASK_DIR", "要运行后台传输，请设 SNOWLUMA_MCP_MODE=write；否则删去 SNOWLUMA_MCP_TASK_DIR"},
	NoteArchiveIgnoredFix:     {"set SNOWLUMA_MCP_ENDPOINT (read or write mode) to archive messages, or remove SNOWLUMA_MCP_ARCHIVE", "要归档消息，请设置 SNOWLUMA_MCP_ENDPOINT（read 或 write 模式）；否则删去 SNOWLUMA_MCP_ARCHIVE"},
	NoteArchiveEmptyFix:       {"list group numbers in SNOWLUMA_MCP_ARCHIVE_GROUPS or QQ numbers in SNOWLUMA_MCP_ARCHIVE_USERS, or * for every chat", "在 SNOWLUMA_MCP_ARCHIVE_GROUPS 中列出群号，或在 SNOWLUMA_MCP_ARCHIVE_USERS 中列出 QQ 号，或用 * 表示全部"},
	NoteArchiveNoEventsFix:    {"to archive messages as they arrive, set SNOWLUMA_MCP_EVENTS_URL to SnowLuma's WebSocket server (SnowLuma's default is ws://127.0.0.1:3001/)", "要在消息到达时就归档，请把 SNOWLUMA_MCP_EVENTS_URL 设为 SnowLuma 的 WebSocket 服务器地址（SnowLuma 默认是 ws://127.0.0.1:3001/）"},
	NoteChannelIgnoredFix:     {"set SNOWLUMA_MCP_CHANNEL to mentions or all, or remove those variables", "把 SNOWLUMA_MCP_CHANNEL 设为 mentions 或 all，或删去这些变量"},
	NoteChannelEmptyFix:       {"list group numbers in SNOWLUMA_MCP_CHANNEL_GROUPS or QQ numbers in SNOWLUMA_MCP_CHANNEL_USERS", "在 SNOWLUMA_MCP_CHANNEL_GROUPS 中列出群号，或在 SNOWLUMA_MCP_CHANNEL_USERS 中列出 QQ 号"},

	// --help.
	HelpIntro: {"%s %s: a stdio MCP server for SnowLuma (OneBot v11) bots.\n\n" +
		"It serves the bundled SnowLuma %s action catalog to any MCP client and, when SNOWLUMA_MCP_ENDPOINT is set, runs actions against that SnowLuma instance (read-only actions in read mode, any action in write mode). MCP hosts spawn it and talk to it over stdin/stdout; it is configured by environment variables only.\n\n" +
		"Usage: %s [--help | --version | doctor [--json] | sandbox [doctor [--json]]]\n\n" +
		"doctor checks the environment below against the running SnowLuma (read-only actions only) and prints what is wrong and how to fix it.\n\n" +
		"sandbox serves the same tools in write mode against a simulated SnowLuma and QQ account started inside this process (SNOWLUMA_MCP_SANDBOX_SEED chooses it): nothing reaches QQ. sandbox doctor runs doctor against it.\n\n" +
		"Environment variables (on Windows, names are read in any case):",
		"%s %s：用于 SnowLuma（OneBot v11）机器人的 stdio MCP 服务器。\n\n" +
			"它向任何 MCP 客户端提供内置的 SnowLuma %s 动作目录；设置了 SNOWLUMA_MCP_ENDPOINT 时，还会在这个 SnowLuma 上执行动作（read 模式只执行只读动作，write 模式可执行任何动作）。它由 MCP 宿主启动，通过标准输入输出通信，只用环境变量配置。\n\n" +
			"用法：%s [--help | --version | doctor [--json] | sandbox [doctor [--json]]]\n\n" +
			"doctor 按下面的环境变量检查正在运行的 SnowLuma（只执行只读动作），列出哪里有问题、怎么改。\n\n" +
			"sandbox 在本进程里启动模拟的 SnowLuma 和 QQ 账号，以 write 模式提供同样的工具（SNOWLUMA_MCP_SANDBOX_SEED 决定模拟哪个账号）：不会有任何内容发到 QQ。sandbox doctor 对它运行 doctor。\n\n" +
			"环境变量（Windows 上变量名不区分大小写）："},
	HelpDefault: {"default: %s", "默认：%s"},

	// doctor on Windows.
	DoctorDirWillCreateWindows: {"%s does not exist yet; it will be created at start", "%s 还不存在；启动时会创建"},
	DoctorAuditOKWindows:       {"%s can be appended to", "%s 可以追加写入"},
	DoctorArchiveNewWindows:    {"%s does not exist yet; the server creates it at its next start", "%s 还不存在；服务器下次启动时会创建它"},

	// Windows paths.
	ConfigPathUnexpanded:     {"%s is not expanded here: an MCP host passes the value as written, so it is not an absolute path", "%s 在这里不会被展开：MCP 宿主按原样传入这个值，所以它不是绝对路径"},
	ConfigTaskDirWindows:     {`an absolute path to a private directory, written out in full, e.g. C:\Users\you\AppData\Local\snowluma-mcp\tasks`, `私有目录的完整绝对路径，例如 C:\Users\you\AppData\Local\snowluma-mcp\tasks`},
	ConfigArchivePathWindows: {`an absolute path of the archive's SQLite file, written out in full, e.g. C:\Users\you\AppData\Local\snowluma-mcp\archive.db (its folder is created when missing), or a postgres:// URL`, `归档 SQLite 文件的完整绝对路径，例如 C:\Users\you\AppData\Local\snowluma-mcp\archive.db（文件夹不存在时会自动创建），或 postgres:// URL`},
	ConfigAuditFileWindows:   {`an absolute path of a file this process may create and append to, written out in full, e.g. C:\Users\you\AppData\Local\snowluma-mcp\audit.jsonl (its folder is created when missing)`, `本进程可以创建并追加写入的文件的完整绝对路径，例如 C:\Users\you\AppData\Local\snowluma-mcp\audit.jsonl（文件夹不存在时会自动创建）`},
	ConfigDownloadDirWindows: {`an absolute folder path on the MCP host, written out in full, e.g. C:\Users\you\Downloads\snowluma-mcp; it is created when missing`, `MCP 主机上文件夹的完整绝对路径，例如 C:\Users\you\Downloads\snowluma-mcp；不存在时会自动创建`},

	// A second server on the same file or folder.
	ArchiveInUse:  {"the archive %s is in use by another snowluma-mcp process (only one server may use the file): stop that server, or give this one its own SNOWLUMA_MCP_ARCHIVE file; until then the archive tools say so", "消息归档 %s 正被另一个 snowluma-mcp 进程使用（同一个文件只能由一个服务器使用）：请停掉那个服务器，或给这个服务器另设一个 SNOWLUMA_MCP_ARCHIVE 文件；在此之前，归档工具会说明无法使用"},
	TasksInUse:    {"the task folder %s is in use by %s: stop that server, or give this one its own SNOWLUMA_MCP_TASK_DIR", "任务文件夹 %s 正被%s使用：请停掉那个服务器，或给这个服务器另设一个 SNOWLUMA_MCP_TASK_DIR"},
	HolderProcess: {"snowluma-mcp process %s (since %s)", " snowluma-mcp 进程 %s（%s 起）"},
	HolderUnknown: {"another process", "另一个进程"},
}

// ArchiveProblem is the problem and the fix, as a person reads them, of an
// archive file that cannot be used for the reason p (the archive
// package's Problem: corrupt, foreign, newer, full; anything else is a
// file that cannot be read or written).
func ArchiveProblem(p string) (problem, fix Message) {
	switch p {
	case "corrupt":
		return ArchiveCorrupt, ArchiveCorruptFix
	case "foreign":
		return ArchiveForeign, ArchiveForeignFix
	case "newer":
		return ArchiveNewer, ArchiveNewerFix
	case "full":
		return ArchiveFull, ArchiveFullFix
	}
	return ArchiveIO, ArchiveIOFix
}
