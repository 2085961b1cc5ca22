package safety

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePolicies(t *testing.T) {
	for in, want := range map[string]Sensitive{"": SensitiveDeny, "deny": SensitiveDeny, " Redact ": SensitiveRedact, "allow": SensitiveAllow} {
		if got, err := ParseSensitive(in); err != nil || got != want {
			t.Errorf("ParseSensitive(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseSensitive("yes"); err == nil {
		t.Error("yes accepted")
	}
	for in, want := range map[string]Confirm{"": ConfirmNone, "none": ConfirmNone, "destructive": ConfirmDestructive, "WRITES": ConfirmWrites} {
		if got, err := ParseConfirm(in); err != nil || got != want {
			t.Errorf("ParseConfirm(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseConfirm("all"); err == nil {
		t.Error("all accepted")
	}
}

func TestConfirmNeeds(t *testing.T) {
	cases := []struct {
		c                     Confirm
		destructive, readOnly bool
		want                  bool
	}{
		{ConfirmNone, true, false, false},
		{ConfirmDestructive, true, false, true},
		{ConfirmDestructive, false, false, false},
		{ConfirmWrites, false, false, true},
		{ConfirmWrites, false, true, false},
		{ConfirmWrites, true, false, true},
	}
	for _, c := range cases {
		if got := c.c.Needs(c.destructive, c.readOnly); got != c.want {
			t.Errorf("%+v: got %v", c, got)
		}
	}
}

func TestExtractTargets(t *testing.T) {
	cases := []struct {
		params        string
		groups, users []int64
		unreadable    []string
	}{
		{`{}`, nil, nil, nil},
		{`{"group_id": 20001, "message": "hi"}`, []int64{20001}, nil, nil},
		{`{"group_id": "20001", "user_id": 30001}`, []int64{20001}, []int64{30001}, nil},
		{`{"group_id": 20001, "user_id": [30001, "30002", 30001]}`, []int64{20001}, []int64{30001, 30002}, nil},
		{`{"message_type": "private", "user_id": 30001, "group_id": null}`, nil, []int64{30001}, nil},
		{`{"group_id": 20001.5}`, nil, nil, []string{"group_id=20001.5"}},
		{`{"group_id": -3, "user_id": "abc"}`, nil, nil, []string{"group_id=-3", `user_id="abc"`}},
		{`{"user_id": [1, {"x": 1}], "group_id": 0}`, nil, []int64{1}, []string{"group_id=0", `user_id={"x": 1}`}},
		{`{"user_id": 99999999999999999999}`, nil, nil, []string{"user_id=99999999999999999999"}},
		// Ids nested below the top level name no target.
		{`{"messages": [{"type": "node", "data": {"user_id": 5}}]}`, nil, nil, nil},
	}
	for _, c := range cases {
		got, err := ExtractTargets(json.RawMessage(c.params))
		if err != nil {
			t.Fatalf("%s: %v", c.params, err)
		}
		if !slices.Equal(got.Groups, c.groups) || !slices.Equal(got.Users, c.users) || !slices.Equal(got.Unreadable, c.unreadable) {
			t.Errorf("%s: got %+v", c.params, got)
		}
	}
	if _, err := ExtractTargets(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array was accepted as params")
	}
}

func TestPaceKeys(t *testing.T) {
	tg, _ := ExtractTargets(json.RawMessage(`{"group_id": 7, "user_id": [8, 9], "x": 1}`))
	if got := tg.PaceKeys(); !slices.Equal(got, []string{"group:7", "user:8", "user:9"}) {
		t.Errorf("keys %v", got)
	}
	tg, _ = ExtractTargets(json.RawMessage(`{"group_id": 7.0}`))
	if got := tg.PaceKeys(); !slices.Equal(got, []string{"group_id=7.0"}) {
		t.Errorf("keys %v", got)
	}
}

func TestParseIDs(t *testing.T) {
	set, err := ParseIDs(" 20001, 20002,,20001 ")
	if err != nil || !slices.Equal(set.Sorted(), []int64{20001, 20002}) {
		t.Fatalf("%v %v", set.Sorted(), err)
	}
	if set, err := ParseIDs("  "); err != nil || set != nil || !set.Allows(5) {
		t.Errorf("blank: %v %v", set, err)
	}
	for _, bad := range []string{",", "0", "-1", "1.5", "abc", "+5", "1,x", "99999999999999999999"} {
		if _, err := ParseIDs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCheckTargets(t *testing.T) {
	groups, _ := ParseIDs("20001")
	p := &Policy{Groups: groups}
	check := func(params string) []string {
		tg, err := ExtractTargets(json.RawMessage(params))
		if err != nil {
			t.Fatal(err)
		}
		return p.CheckTargets(tg)
	}
	if got := check(`{"group_id": 20001, "user_id": 5}`); got != nil {
		t.Errorf("allowed group refused: %v", got)
	}
	if got := check(`{"group_id": [20001, 20002]}`); !slices.Equal(got, []string{"group:20002"}) {
		t.Errorf("got %v", got)
	}
	if got := check(`{"group_id": "x", "user_id": "y"}`); !slices.Equal(got, []string{`group_id="x" (not an id)`}) {
		t.Errorf("unreadable: %v", got)
	}
	p.Users, _ = ParseIDs("30001")
	if got := check(`{"user_id": [30001, 30002], "group_id": 20001}`); !slices.Equal(got, []string{"user:30002"}) {
		t.Errorf("got %v", got)
	}
	if !p.Restricted() || (&Policy{}).Restricted() {
		t.Error("Restricted")
	}
}

// clock is a manual clock for the pacer.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }

func TestPacerPerTarget(t *testing.T) {
	c := &clock{time.Unix(1000, 0)}
	p := NewPacer(time.Second, 0, c.now)
	if d := p.Admit([]string{"group:1"}); d != 0 {
		t.Fatalf("first send waits %v", d)
	}
	c.add(300 * time.Millisecond)
	if d := p.Check([]string{"group:1"}); d != 700*time.Millisecond {
		t.Errorf("check: %v", d)
	}
	if d := p.Admit([]string{"group:1"}); d != 700*time.Millisecond {
		t.Errorf("second send to the same target: %v", d)
	}
	if d := p.Admit([]string{"group:2"}); d != 0 {
		t.Errorf("another target waits %v", d)
	}
	// A refused send is not recorded: the wait does not grow.
	c.add(700 * time.Millisecond)
	if d := p.Admit([]string{"group:1"}); d != 0 {
		t.Errorf("after the interval: %v", d)
	}
	// A send to several targets waits for the slowest.
	c.add(500 * time.Millisecond)
	if d := p.Admit([]string{"group:3", "group:1"}); d != 500*time.Millisecond {
		t.Errorf("multi-target: %v", d)
	}
	// No keys: only the per-minute budget applies, which is off.
	if d := p.Admit(nil); d != 0 {
		t.Errorf("untargeted: %v", d)
	}
}

func TestPacerPerMinute(t *testing.T) {
	c := &clock{time.Unix(1000, 0)}
	p := NewPacer(0, 3, c.now)
	for i := range 3 {
		if d := p.Admit([]string{"group:1"}); d != 0 {
			t.Fatalf("send %d waits %v", i, d)
		}
		c.add(10 * time.Second)
	}
	// Sends at 0, 10 and 20 s; now 30 s: the slot frees at 60 s.
	if d := p.Admit([]string{"user:9"}); d != 30*time.Second {
		t.Errorf("fourth send: %v", d)
	}
	c.add(30 * time.Second)
	if d := p.Admit([]string{"user:9"}); d != 0 {
		t.Errorf("after the window: %v", d)
	}
	if d := p.Admit(nil); d != 10*time.Second {
		t.Errorf("next: %v", d)
	}
}

func TestPacerOff(t *testing.T) {
	p := NewPacer(0, 0, nil)
	for range 100 {
		if d := p.Admit([]string{"group:1"}); d != 0 {
			t.Fatalf("disabled pacer waits %v", d)
		}
	}
	if p.Interval() != 0 || p.PerMinute() != 0 {
		t.Error("limits")
	}
}

func TestPacerForgetsOldTargets(t *testing.T) {
	c := &clock{time.Unix(1000, 0)}
	p := NewPacer(time.Second, 0, c.now)
	for i := range sweepAt + 10 {
		p.Admit([]string{"user:" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)})
	}
	c.add(2 * time.Second)
	p.Admit([]string{"group:1"})
	if len(p.last) != 1 {
		t.Errorf("%d targets remembered", len(p.last))
	}
}

func TestRedactData(t *testing.T) {
	in := `{"status":"ok","retcode":0,"data":{"cookies":"p_skey=abc; uin=o123","bkn":12345,"nested":{"list":["k1",2.5,true,null],"ok":false},"empty":[],"<tag>":"x"},"message":"","wording":"","echo":"e1"}`
	got, err := RedactData(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":"ok","retcode":0,"data":{"cookies":"[redacted]","bkn":"[redacted]","nested":{"list":["[redacted]","[redacted]",true,null],"ok":false},"empty":[],"<tag>":"[redacted]"},"message":"","wording":"","echo":"e1"}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, in := range []string{`{"status":"ok","retcode":0,"data":"secret"}`, `{"status":"ok","retcode":0,"data":7}`} {
		got, err := RedactData(json.RawMessage(in))
		if err != nil || strings.Contains(string(got), "secret") || strings.Contains(string(got), ":7") || !strings.Contains(string(got), `"data":"[redacted]"`) {
			t.Errorf("%s -> %s %v", in, got, err)
		}
	}
	same := `{"status":"failed","retcode":100,"data":null,"message":"no"}`
	if got, err := RedactData(json.RawMessage(same)); err != nil || string(got) != same {
		t.Errorf("%s -> %s %v", same, got, err)
	}
	for _, bad := range []string{`[]`, `{"data":`, `{"data":1} x`, `"s"`, ``} {
		if _, err := RedactData(json.RawMessage(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestAuditLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	if _, err := OpenAudit("audit.jsonl"); err == nil {
		t.Error("relative path accepted")
	}
	// An existing file with wider permissions is narrowed.
	if err := os.WriteFile(path, []byte("{\"earlier\":true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	if err := l.Append(Record{Time: at, Tool: "invoke_action", Action: "send_group_msg", Groups: []int64{20001}, Outcome: "success", Traceparent: "00-aa-bb-01"}); err != nil {
		t.Fatal(err)
	}
	e, err := l.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(Record{Time: at, Tool: "invoke_action", Action: "set_group_kick", Users: []int64{1, 2}, Outcome: "failed", Kind: "rate_limited"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Record{Time: at, Tool: "invoke_action", Action: "set_group_ban", Groups: []int64{20001}, Users: []int64{3}, Outcome: "success", Kind: "dry_run", DryRun: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := []string{
		`{"earlier":true}`,
		`{"time":"2026-11-30T10:00:00Z","tool":"invoke_action","action":"send_group_msg","groups":[20001],"users":[],"outcome":"success","traceparent":"00-aa-bb-01"}`,
		`{"time":"2026-11-30T10:00:00Z","tool":"invoke_action","action":"set_group_kick","groups":[],"users":[1,2],"outcome":"failed","kind":"rate_limited","traceparent":""}`,
		`{"time":"2026-11-30T10:00:00Z","tool":"invoke_action","action":"set_group_ban","groups":[20001],"users":[3],"outcome":"success","kind":"dry_run","traceparent":"","dry_run":true}`,
	}
	if !slices.Equal(lines, want) {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v", fi.Mode(), err)
	}

	// A file that became unwritable fails Begin.
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// root writes through the mode bits; replace the file with a
		// directory instead.
		os.Remove(path)
		os.Mkdir(path, 0o700)
	}
	if _, err := l.Begin(); err == nil {
		t.Error("an unwritable audit file was accepted")
	}
	// A missing directory is created, private, as the archive's is; one
	// under a file cannot be.
	fresh := filepath.Join(t.TempDir(), "审计 日志", "audit.jsonl")
	if _, err := OpenAudit(fresh); err != nil {
		t.Errorf("a file in a missing directory: %v", err)
	} else if fi, err := os.Stat(filepath.Dir(fresh)); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("the directory made for it: %v %v", fi.Mode(), err)
	}
	if _, err := OpenAudit(filepath.Join(fresh, "under-a-file", "audit.jsonl")); err == nil {
		t.Error("a file under a file was accepted")
	}
}

// TestExtractTargetsByRole: the catalog's target params are read like
// group_id and user_id, and an unreadable one is refused by the list of
// its own kind.
func TestExtractTargetsByRole(t *testing.T) {
	extra := []TargetParam{{Name: "target_uin"}, {Name: "target_id"}, {Name: "owner_group", Group: true}}
	got, err := ExtractTargets(json.RawMessage(`{"user_id": 1, "target_id": 2, "target_uin": ["3", 2], "owner_group": 4, "other": 5}`), extra...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Users, []int64{1, 3, 2}) || !slices.Equal(got.Groups, []int64{4}) {
		t.Errorf("got %+v", got)
	}
	users, _ := ParseIDs("1")
	p := &Policy{Users: users}
	if out := p.CheckTargets(got); !slices.Equal(out, []string{"user:3", "user:2"}) {
		t.Errorf("refused %v", out)
	}
	bad, _ := ExtractTargets(json.RawMessage(`{"target_uin": "me", "owner_group": [[4]]}`), extra...)
	if out := p.CheckTargets(bad); !slices.Equal(out, []string{`target_uin="me" (not an id)`}) {
		t.Errorf("unreadable with a user list only: %v", out)
	}
	groups, _ := ParseIDs("4")
	if out := (&Policy{Groups: groups}).CheckTargets(bad); !slices.Equal(out, []string{"owner_group=[4] (not an id)"}) {
		t.Errorf("unreadable with a group list only: %v", out)
	}
}
