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
	FormAlreadySet  Message = "form.already_set"  // param names
	FormMustConfirm Message = "form.must_confirm" // confirm field, action, summary
	FormJSONTitle   Message = "form.json_title"
	FormJSONHelp    Message = "form.json_help"   // field names, first field
	ConfirmQuestion Message = "confirm.question" // action, its short summary, targets, summary
	ConfirmNoTarget Message = "confirm.no_target"
	ConfirmGroup    Message = "confirm.group"  // group number
	ConfirmUser     Message = "confirm.user"   // QQ number, alone
	ConfirmMember   Message = "confirm.member" // QQ number, beside a group
	ConfirmSep      Message = "confirm.sep"
	ConfirmRunTitle Message = "confirm.run_title"
	ConfirmRunHelp  Message = "confirm.run_help"
)

type text struct{ en, zh string }

// texts holds every message in both languages.
var texts = map[Message]text{
	FormNeedsOne:    {"%s needs one more parameter.", "%s 还缺 1 个参数。"},
	FormNeedsMany:   {"%s needs %d more parameters.", "%s 还缺 %d 个参数。"},
	FormFillIn:      {" Fill in %s.", "请填写 %s。"},
	FormEnterJSON:   {" Enter a JSON object with exactly these fields in %s:", "请在 %s 中填一个 JSON 对象，只含下列字段："},
	FormAlreadySet:  {"\nAlready set, and not to be repeated: %s.", "\n已经给出、不要重复：%s。"},
	FormMustConfirm: {"\nThis action must be confirmed: set %s to true to run %s once with these parameters. %s", "\n此操作须经确认：把 %s 设为 true，即用这些参数执行一次 %s。%s"},
	FormJSONTitle:   {"Parameters (JSON object)", "参数（JSON 对象）"},
	FormJSONHelp:    {`A JSON object with exactly: %s. For example {"%s": ...}`, `一个只含 %s 的 JSON 对象，例如 {"%s": ...}`},
	ConfirmQuestion: {"Allow %[1]s on %[3]s? %[4]s", "%[2]s %[1]s：%[3]s。允许执行吗？%[4]s"},
	ConfirmNoTarget: {"no named group or user", "未指定群或用户"},
	ConfirmGroup:    {"group %d", "群 %d"},
	ConfirmUser:     {"user %d", "用户 %d"},
	ConfirmMember:   {"user %d", "成员 %d"},
	ConfirmSep:      {", ", "，"},
	ConfirmRunTitle: {"Run it", "执行"},
	ConfirmRunHelp:  {"true runs the action once; false runs nothing.", "true：执行一次；false：什么也不执行。"},
}
