package qqmsg_test

import (
	"fmt"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// A QQ message arrives as segments (here written as CQ codes); it
// renders as plain text with short placeholders, noting whether it
// addresses the bot.
func Example() {
	const bot = 10001
	segs := qqmsg.ParseCQ("[CQ:reply,id=77][CQ:at,qq=10001] 看看这张图 [CQ:image,file=a.jpg]")
	r := qqmsg.Render(segs, bot)
	fmt.Printf("%q mentioned=%v reply_to=%d\n", r.Text, r.Mentioned, r.ReplyTo)
	// Output: "[回复 #77][@我] 看看这张图 [图片 #1]" mentioned=true reply_to=77
}
