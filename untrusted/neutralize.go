package untrusted

import (
	"bytes"
	"strings"
)

// Pushed text is wrapped by the host in its own markup: Claude Code puts a
// channel push's content inside a <channel …> tag with the meta as its
// attributes, and tool calls and system notices are markup of the same
// kind. Text written by QQ users must not be able to close that tag, open
// another, or pass for a notice of the host. Neutralize keeps such text
// readable and makes it inert.

// NoticeMark starts a line of QQ users' text that poses as a system or
// role notice ("System: …", "【系统通知】…").
const NoticeMark = "[untrusted] "

// Neutralize returns s with every '<' that opens something tag-like
// (<x, </x, <!x, <?x) replaced by the full-width '＜', and every line
// that poses as a system or role notice prefixed with NoticeMark. The
// rest is unchanged; s without such markup comes back as is.
func Neutralize(s string) string {
	if !strings.Contains(s, "<") && !posesAnywhere(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, line := range strings.SplitAfter(s, "\n") {
		if posesAsNotice(line) {
			b.WriteString(NoticeMark)
		}
		b.WriteString(escapeTags(line))
	}
	return b.String()
}

// NeutralizeAttr is Neutralize for a string that becomes an attribute of
// the host's tag: a double quote, which could end the attribute, becomes
// the full-width '＂'.
func NeutralizeAttr(s string) string {
	return strings.ReplaceAll(Neutralize(s), `"`, "＂")
}

// escapeTags replaces the '<' of each tag-like token.
func escapeTags(s string) string {
	i := strings.IndexByte(s, '<')
	if i < 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		b.WriteString(s[:i])
		rest := s[i+1:]
		if tagLike(rest) {
			b.WriteString("＜")
		} else {
			b.WriteByte('<')
		}
		s = rest
		i = strings.IndexByte(s, '<')
	}
	b.WriteString(s)
	return b.String()
}

// tagLike reports whether rest (what follows a '<') starts a tag: a
// letter, or '/', '!' or '?' (spaces allowed) and then a letter.
func tagLike(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	if rest != "" && (rest[0] == '/' || rest[0] == '!' || rest[0] == '?') {
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	return rest != "" && (isLetter(rest[0]) || rest[0] >= 0x80)
}

// noticeWords are the words a forged notice starts with, lower-case.
var noticeWords = []string{"system", "assistant", "human", "developer", "claude", "系统", "系統", "管理员通知", "官方通知"}

// posesAsNotice reports whether a line starts like a notice of the host:
// one of noticeWords followed by a colon (of either width) or spaces and
// a colon, or inside an opening bracket ([system], 【系统通知】, (System)).
func posesAsNotice(line string) bool {
	s := strings.TrimLeft(line, " \t\u3000")
	if len(s) > 64 {
		s = s[:64] // a notice's word and colon come first
	}
	s = strings.ToLower(s)
	bracket := false
	for _, open := range []string{"[", "【", "［", "(", "（", "<", "＜", "{"} {
		if t, ok := strings.CutPrefix(s, open); ok {
			s, bracket = strings.TrimLeft(t, " \t\u3000"), true
			break
		}
	}
	for _, w := range noticeWords {
		rest, ok := strings.CutPrefix(s, w)
		if !ok || rest != "" && isLetter(rest[0]) {
			continue // "systematic" is not "system"
		}
		if bracket {
			return true
		}
		rest = strings.TrimLeft(rest, " \t\u3000")
		// "System notice:", "系统消息：" – a word or two then a colon.
		if j := strings.IndexAny(rest, ":："); j >= 0 && j <= 24 && !strings.ContainsAny(rest[:j], "。.!?！？\n") {
			return true
		}
	}
	return false
}

// posesAnywhere is the quick check that some line of s may pose as a
// notice.
func posesAnywhere(s string) bool {
	for line := range strings.SplitSeq(s, "\n") {
		if posesAsNotice(line) {
			return true
		}
	}
	return false
}

// EscapeJSON returns a JSON text with every '<' and '>' written as the
// escapes \u003c and \u003e: the same JSON to a parser, and no markup to a
// model that reads it as text. In valid JSON those bytes occur only inside
// strings. raw without them is returned as is.
func EscapeJSON(raw []byte) []byte {
	if bytes.IndexAny(raw, "<>") < 0 {
		return raw
	}
	out := make([]byte, 0, len(raw)+32)
	for _, c := range raw {
		switch c {
		case '<':
			out = append(out, `\u003c`...)
		case '>':
			out = append(out, `\u003e`...)
		default:
			out = append(out, c)
		}
	}
	return out
}
