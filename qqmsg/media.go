package qqmsg

import (
	"strconv"
	"strings"
)

// A Kind is what a media segment of a message holds.
type Kind string

const (
	KindImage   Kind = "image"   // a photo or screenshot
	KindSticker Kind = "sticker" // a market face (mface) or a sticker image
	KindVoice   Kind = "voice"   // a record segment
	KindVideo   Kind = "video"
	KindFile    Kind = "file"
)

// Visual reports whether a kind is a picture a model can be shown.
func (k Kind) Visual() bool { return k == KindImage || k == KindSticker }

// KindOf returns the kind of a message segment of type typ with data, or
// "" when it is not media. SnowLuma sends a market face as an image with an
// emoji_id; other OneBot servers send an mface segment.
func KindOf(typ string, data map[string]string) Kind {
	switch typ {
	case "image":
		if data["emoji_id"] != "" {
			return KindSticker
		}
		return KindImage
	case "mface":
		return KindSticker
	case "record":
		return KindVoice
	case "video":
		return KindVideo
	case "file":
		return KindFile
	}
	return ""
}

// An Item is one media segment of a message.
type Item struct {
	// Index counts the message's media segments from 1, in order: the
	// number its placeholder shows and view_media's index.
	Index int
	Kind  Kind
	Data  map[string]string
}

// Items returns the media segments of a message, numbered from 1.
func Items(segs []Segment) []Item {
	var out []Item
	for _, s := range segs {
		if k := KindOf(s.Type, s.Data); k != "" {
			out = append(out, Item{Index: len(out) + 1, Kind: k, Data: s.Data})
		}
	}
	return out
}

// Placeholder is the short text that stands for media item n of kind k in
// a rendered message: [图片 #1], [表情包 #2], [语音 #3] (with the seconds,
// [语音 3s #3], when the segment carries a duration), [视频 #4]. A file's
// placeholder carries its name, which the caller cleans: see FilePlaceholder.
func Placeholder(k Kind, n int, data map[string]string) string {
	num := " #" + strconv.Itoa(n) + "]"
	switch k {
	case KindImage:
		return "[图片" + num
	case KindSticker:
		return "[表情包" + num
	case KindVoice:
		if s := Seconds(data); s > 0 {
			return "[语音 " + strconv.Itoa(s) + "s" + num
		}
		return "[语音" + num
	case KindVideo:
		return "[视频" + num
	}
	return "[文件" + num
}

// FilePlaceholder is a file's placeholder, with its name when there is one
// ([文件 报告.pdf #2]); name must already be cleaned for one line.
func FilePlaceholder(name string, n int) string {
	if name == "" {
		return "[文件 #" + strconv.Itoa(n) + "]"
	}
	return "[文件 " + name + " #" + strconv.Itoa(n) + "]"
}

// Seconds is a voice or video segment's duration in whole seconds, or 0
// when it carries none. SnowLuma 1.11.1 sends none: its record segments
// hold file and url only.
func Seconds(data map[string]string) int {
	v, err := strconv.ParseFloat(strings.TrimSpace(data["duration"]), 64)
	if err != nil || v <= 0 || v > 24*3600 {
		return 0
	}
	return max(1, int(v+0.5))
}

// Source is what SnowLuma's download and OCR actions take for an item: the
// cached media id in file (SnowLuma signs its CDN URL afresh), else the
// url. A market face's file is a made-up name SnowLuma has not cached, so
// its public url is used.
func Source(it Item) string {
	file, url := strings.TrimSpace(it.Data["file"]), strings.TrimSpace(it.Data["url"])
	if it.Kind == KindSticker && isHTTP(url) {
		return url
	}
	if file != "" {
		return file
	}
	return url
}

func isHTTP(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}
