package untrusted

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
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
	if len(s) > 96 {
		s = s[:96] // a notice's word and colon come first
	}
	// A notice needs a colon or an opening bracket, in any width: most
	// lines have neither and are not folded.
	if !strings.ContainsAny(s, ":：﹕︓[【［(（<＜{｛") {
		return false
	}
	s = strings.ToLower(foldLookalikes(s))
	// Markdown around a line does not change what it poses as: a quote
	// ("> System:"), a heading, a list item, bold or code ("**System:**").
	s = strings.TrimLeft(s, " \t*_>#-`~|")
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

// foldLookalikes returns s as it reads to a person: compatibility forms
// folded (full-width Ｓｙｓｔｅｍ：, mathematical 𝐒𝐲𝐬𝐭𝐞𝐦), invisible
// format characters dropped (zero-width spaces and joiners), and the
// Cyrillic and Greek letters that look like Latin ones made Latin (the е
// of "Systеm"). It is for matching only; the text shown is unchanged.
func foldLookalikes(s string) string {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < 0x80
	}
	if ascii {
		return s // nothing to fold
	}
	s = norm.NFKC.String(s)
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		if l, ok := lookalikes[r]; ok {
			return l
		}
		return r
	}, s)
}

// lookalikes maps Cyrillic and Greek letters to the Latin letters they
// pass for.
var lookalikes = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x',
	'і': 'i', 'ї': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'һ': 'h', 'ӏ': 'l', 'ԛ': 'q', 'ԝ': 'w', 'ɡ': 'g', 'ʏ': 'y',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'У': 'Y', 'Х': 'X',
	'І': 'I', 'Ј': 'J', 'Ѕ': 'S', 'Ԁ': 'D', 'Һ': 'H', 'Ԛ': 'Q', 'Ԝ': 'W',
	'α': 'a', 'ο': 'o', 'ν': 'v', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'ι': 'i', 'κ': 'k', 'ε': 'e', 'μ': 'u', 'χ': 'x', 'γ': 'y',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
}

// NeutralizeAnswer returns a JSON answer (SnowLuma's envelope of a read
// that holds QQ users' text: get_msg, a history, a forward, feeds) with
// every string neutralized as Neutralize does: a '<' that opens something
// tag-like becomes '＜' and a line posing as a notice is marked; the rest
// of the JSON, numbers and key order included, is unchanged, and an
// answer without such text comes back as is (its size is the answer's:
// the result cap sees what SnowLuma sent). Text that is not valid JSON
// comes back escaped as EscapeJSON does.
func NeutralizeAnswer(raw []byte) []byte {
	if !json.Valid(raw) {
		return EscapeJSON(raw)
	}
	var out []byte
	last := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(raw) && raw[j] != '"' {
			if raw[j] == '\\' {
				j++
			}
			j++
		}
		var str string
		ok := true
		if body := raw[i+1 : min(j, len(raw))]; bytes.IndexByte(body, '\\') < 0 {
			str = string(body) // no escapes: the bytes are the string
		} else {
			ok = json.Unmarshal(raw[i:j+1], &str) == nil
		}
		if ok {
			if n := Neutralize(str); n != str {
				out = append(append(out, raw[last:i]...), quoteJSON(n)...)
				last = j + 1
			}
		}
		i = j
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// quoteJSON is s as a JSON string, without the HTML escapes
// encoding/json adds (the '<' left are not markup; the answer stays the
// size it was).
func quoteJSON(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
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
