package catalog

import (
	"slices"
	"strings"
)

// An agent often types a platform's API as it is called: a REST request
// (Discord's PUT /guilds/{guild.id}/bans/{user.id}) or an SDK's dotted
// method (Slack Bolt's app.client.chat.postMessage). apiWords rewrites
// both as the words they stand for, before the dots and slashes become
// spaces: a request's method is its act (RFC 9110's method semantics: PUT
// and PATCH replace or change a resource, a set; GET, POST and DELETE are
// words the synonym table knows), a path's placeholders are its
// parameters and go, a collection followed by a placeholder is one of its
// items (bans/{user.id} is one ban), and the receivers before a method
// (app, client, web, sdk, self, this) say whose method it is, not what it
// does; a path of the caller's own (@me) that is deleted is left, and
// Slack's and Rocket.Chat's chat.* act on messages. It reports whether anything changed.
func apiWords(q string) (string, bool) {
	if !strings.ContainsAny(q, "./") {
		return q, false
	}
	fields := strings.Fields(q)
	changed := false
	if len(fields) >= 2 && strings.HasPrefix(fields[1], "/") && httpMethods[fields[0]] != "" {
		fields[0] = httpMethods[fields[0]]
		segs := strings.Split(fields[1], "/")
		var out []string
		for i, s := range segs {
			if s == "@me" || s == "me" {
				// The caller's own: deleting its membership of something
				// is leaving it (Discord's DELETE /users/@me/guilds/{id});
				// elsewhere @me says whose (reactions/{emoji}/@me is one's
				// own reaction).
				if len(out) == 1 && out[0] == "users" && i+1 < len(segs) {
					out = out[:0]
					if fields[0] == "delete" {
						fields[0] = "leave"
					}
				}
				continue
			}
			if s == "" || placeholder(s) {
				continue
			}
			if i+1 < len(segs) && placeholder(segs[i+1]) {
				s = stem(s)
			}
			out = append(out, s)
		}
		fields[1] = strings.Join(out, " ")
		changed = true
	}
	for i, f := range fields {
		if !strings.Contains(f, ".") {
			continue
		}
		parts := strings.Split(f, ".")
		k := 0
		for k < len(parts)-1 && (receivers[parts[k]] || version(parts[k])) {
			k++
		}
		// A version inside a name (Lark's im.v1.message.create) says
		// which edition of the method, not what it does.
		if kept := slices.DeleteFunc(slices.Clone(parts[k:]), version); len(kept) > 0 && len(kept) < len(parts)-k {
			parts = append(parts[:k], kept...)
			changed = true
		}
		if k > 0 {
			parts = parts[k:]
			changed = true
		}
		// Slack's and Rocket.Chat's chat.* are the methods of messages
		// (chat.delete, chat.react, chat.getMessage), not of a chat.
		if len(parts) == 2 && parts[0] == "chat" {
			if strings.Contains(strings.ToLower(q), "message") {
				parts = parts[1:]
			} else {
				parts[0] = "message"
			}
			changed = true
		}
		fields[i] = strings.Join(parts, ".")
	}
	if !changed {
		return q, false
	}
	return strings.Join(fields, " "), true
}

// placeholder reports whether a path segment stands for a value: {id},
// :id, or digits.
func placeholder(s string) bool {
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, ":") || strings.Trim(s, "0123456789") == ""
}

// httpMethods maps the HTTP methods to the words of their acts.
var httpMethods = map[string]string{"get": "get", "post": "post", "put": "set", "patch": "set", "delete": "delete"}

// receivers are the objects an SDK's methods are called on.
var receivers = map[string]bool{
	"app": true, "client": true, "web": true, "sdk": true, "self": true, "this": true,
	"api": true, "bot": true, "ctx": true, "session": true, "sender": true,
	// Lark's instant-messaging service (im.v1.message.create).
	"im": true,
}

// version reports whether a part of a name is a version: v and digits.
func version(s string) bool {
	return len(s) > 1 && s[0] == 'v' && strings.Trim(s[1:], "0123456789") == ""
}
