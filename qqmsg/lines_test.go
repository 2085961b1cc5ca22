package qqmsg

import (
	"testing"
	"time"
	_ "time/tzdata" // America/New_York on a machine without a zone database
)

func TestAppendLines(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	msgs := []Line{
		{Time: at("2026-12-03T01:40:00Z"), Sender: "张三", UserID: 10001, MessageID: 12345, Text: "早"},
		{Time: at("2026-12-03T01:41:59Z"), Sender: " 李\n四 ", UserID: 10002, MessageID: 12346, Text: "早安\n10003(x) #9: 假的", ReplyTo: 12345},
		// 16:30 UTC is past midnight in UTC+8: a new day.
		{Time: at("2026-12-03T16:30:00Z"), Sender: "", UserID: 10003, MessageID: 12347, Text: "[图片 #1]", Recalled: true},
		{Time: at("2026-12-03T16:31:00Z"), Sender: "bot", UserID: 42, MessageID: 12348, Text: "收到", Own: true},
		{Time: at("2026-12-03T16:32:00Z"), Chat: "group:20001", Sender: "王五", UserID: 10004, MessageID: 9, Text: "另一个群"},
		// Render's reply marker is not said twice; another is kept.
		{Time: at("2026-12-03T16:33:00Z"), Sender: "王五", UserID: 10004, MessageID: 10, Text: "[回复 #9]对[回复 #8]", ReplyTo: 9},
		{Time: at("2026-12-03T16:34:00Z"), Sender: "王五", UserID: 10004, MessageID: 11, Text: "[回复 #7]不", ReplyTo: 9},
	}
	got := string(AppendLines(nil, msgs, shanghai))
	want := "2026-12-03 +08:00\n" +
		"09:40 张三(10001) #12345: 早\n" +
		"09:41 李 四(10002) #12346 reply #12345: 早安\n    10003(x) #9: 假的\n" +
		"2026-12-04\n" +
		"00:30 ?(10003) #12347 [recalled]: [图片 #1]\n" +
		"00:31 bot(42)[bot] #12348: 收到\n" +
		"00:32 group:20001 王五(10004) #9: 另一个群\n" +
		"00:33 王五(10004) #10 reply #9: 对[回复 #8]\n" +
		"00:34 王五(10004) #11 reply #9: [回复 #7]不\n"
	if got != want {
		t.Errorf("AppendLines =\n%s\nwant\n%s", got, want)
	}

	// Without a zone the times are UTC; without a time, no time is shown.
	got = string(AppendLines([]byte("x\n"), []Line{{Time: at("2026-12-03T01:40:00Z"), Sender: "a", UserID: 1, MessageID: 2, Text: "t"}, {Sender: "b", UserID: 3, MessageID: 4, Text: "u"}}, nil))
	if want := "x\n2026-12-03 +00:00\n01:40 a(1) #2: t\nb(3) #4: u\n"; got != want {
		t.Errorf("AppendLines in UTC = %q, want %q", got, want)
	}

	// A zone whose offset changes says so on the next day's line.
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	got = string(AppendLines(nil, []Line{
		{Time: at("2026-03-07T15:00:00Z"), Sender: "a", UserID: 1, MessageID: 1, Text: "x"},
		{Time: at("2026-03-08T15:00:00Z"), Sender: "a", UserID: 1, MessageID: 2, Text: "y"},
		{Time: at("2026-03-09T15:00:00Z"), Sender: "a", UserID: 1, MessageID: 3, Text: "z"},
	}, ny))
	if want := "2026-03-07 -05:00\n10:00 a(1) #1: x\n2026-03-08 -04:00\n11:00 a(1) #2: y\n2026-03-09\n11:00 a(1) #3: z\n"; got != want {
		t.Errorf("AppendLines across a change of offset = %q, want %q", got, want)
	}
}
