package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// The tasks mode: what a model reads to answer an operator, per task. Each
// of issue 52's six everyday requests is played as the shortest sensible
// trajectory an agent would follow, against the busy simulated account
// (simulator.WithBusyWorldAt: 5 groups of 100 members, 3,300 messages over
// a month), once with the local archive (filled beforehand with the
// month's messages as SnowLuma pushed them, as if the server had followed
// the account all along) and once without. A task's bytes are the tool
// definitions once (the tools array of tools/list, as the server writes it
// to a client declaring what Claude Code declares) plus the text of every
// result it reads; images view_media attaches are counted apart. "As CC"
// counts the definitions as Claude Code hands them to a model (name,
// description, inputSchema) instead. A task is done when what it read
// holds the answer.

// ccCaps is what Claude Code declares: form elicitation.
const ccCaps = `{"elicitation":{"form":{}}}`

// operatorZone is the operator's clock: "yesterday" is a day in UTC+8.
var operatorZone = time.FixedZone("UTC+8", 8*3600)

// taskRun is one task's measurement.
type taskRun struct {
	name       string
	calls      int
	defs       int // bytes of the tool definitions as the server lists them
	hostDefs   int // the same as Claude Code passes them: name, description, inputSchema
	read       int // bytes of result text
	images     int // images attached
	done       bool
	trajectory []string
}

// session is one task's conversation with a spawned server.
type session struct {
	p   *proc
	run *taskRun
}

// call runs one tool and returns its structured result (tool errors too:
// the model reads those as well).
func (s *session) call(tool string, args any) (json.RawMessage, error) {
	b, err := json.Marshal(map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, err
	}
	s.p.nextID++
	if _, err := s.p.stdin.Write(s.p.request(s.p.nextID, "tools/call", string(b))); err != nil {
		return nil, err
	}
	line, err := s.p.out.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var resp struct {
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent struct {
				Result json.RawMessage `json:"result"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.Result == nil {
		return nil, fmt.Errorf("%s: bad answer (%v): %.300s", tool, err, line)
	}
	s.run.calls++
	s.run.trajectory = append(s.run.trajectory, tool)
	for _, c := range resp.Result.Content {
		switch c.Type {
		case "text":
			s.run.read += len(c.Text)
		case "image":
			s.run.images++
		}
	}
	return resp.Result.StructuredContent.Result, nil
}

// query runs query_action and returns the envelope's data.
func (s *session) query(action string, params any) (json.RawMessage, error) {
	r, err := s.call("query_action", map[string]any{"action": action, "params": params})
	if err != nil {
		return nil, err
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	json.Unmarshal(r, &env)
	return env.Data, nil
}

// world is what the operator knows of the account (names as they say
// them) and what the tasks' answers must hold.
type world struct {
	groups   []fakeGroup
	card     string // a member's card, unique in groups[1]
	cardUser int64
	picture  int64 // a message with a screenshot, in groups[0]
	now      time.Time
}

type fakeGroup struct {
	ID   int64  `json:"group_id"`
	Name string `json:"group_name"`
}

// fakeCall asks the fake directly, as the operator knows their account.
func fakeCall(url, action string, params any, out any) error {
	b, _ := json.Marshal(params)
	resp, err := http.Post(strings.TrimRight(url, "/")+"/"+action, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return err
	}
	return json.Unmarshal(env.Data, out)
}

// learn reads what the operator knows from the fake.
func learn(fake *simulator.Server, now time.Time) (*world, error) {
	w := &world{now: now}
	if err := fakeCall(fake.URL, "get_group_list", map[string]any{}, &w.groups); err != nil {
		return nil, err
	}
	if len(w.groups) < 2 {
		return nil, errors.New("the busy world has fewer than two groups")
	}
	var members []struct {
		UserID int64  `json:"user_id"`
		Card   string `json:"card"`
		Role   string `json:"role"`
	}
	if err := fakeCall(fake.URL, "get_group_member_list", map[string]any{"group_id": w.groups[1].ID}, &members); err != nil {
		return nil, err
	}
	count := map[string]int{}
	for _, m := range members {
		count[m.Card]++
	}
	for _, m := range members {
		if m.Card != "" && count[m.Card] == 1 && m.Role == "member" && strings.ContainsAny(m.Card, "-]") {
			w.card, w.cardUser = m.Card, m.UserID
			break
		}
	}
	for _, f := range fake.HistoryFrames() {
		var e struct {
			GroupID   int64  `json:"group_id"`
			MessageID int64  `json:"message_id"`
			Raw       string `json:"raw_message"`
		}
		if json.Unmarshal(f, &e) == nil && e.GroupID == w.groups[0].ID && strings.Contains(e.Raw, "[CQ:image") {
			w.picture = e.MessageID
		}
	}
	if w.card == "" || w.picture == 0 {
		return nil, fmt.Errorf("the busy world has no unique card (%q) or no picture (%d)", w.card, w.picture)
	}
	return w, nil
}

// A task plays one request and says whether what it read answers it.
type task struct {
	name string
	play func(s *session, w *world, withArchive bool) (bool, error)
}

var busyTasks = []task{
	{"catch up on a named group since yesterday", func(s *session, w *world, arch bool) (bool, error) {
		g := w.groups[0]
		if _, err := s.call("find_targets", map[string]any{"query": g.Name}); err != nil {
			return false, err
		}
		y := w.now.In(operatorZone)
		since := time.Date(y.Year(), y.Month(), y.Day()-1, 0, 0, 0, 0, operatorZone)
		var r json.RawMessage
		var err error
		if arch {
			r, err = s.call("read_messages", map[string]any{"group_id": g.ID, "after": since.Format(time.RFC3339), "limit": 200})
		} else {
			r, err = s.query("get_group_msg_history", map[string]any{"group_id": g.ID, "count": 100})
		}
		if err != nil {
			return false, err
		}
		// Done when the read reaches back to yesterday's start: the
		// archive's read starts there; SnowLuma's history must reach it.
		if arch {
			var page struct {
				Count int `json:"count"`
			}
			json.Unmarshal(r, &page)
			return page.Count > 0, nil
		}
		first, ok := historyStart(r)
		return ok && first.Before(since), nil
	}},
	{"who mentioned a word across groups in the last week", func(s *session, w *world, arch bool) (bool, error) {
		if arch {
			r, err := s.call("search_messages", map[string]any{"query": simulator.BusyWord, "since": w.now.Add(-7 * 24 * time.Hour).Format(time.RFC3339), "limit": 100})
			return bytes.Count(r, []byte(simulator.BusyWord)) >= 4, err
		}
		return everyGroupHistory(s, w, simulator.BusyWord, 4)
	}},
	{"mute a member named by card in a named group", func(s *session, w *world, arch bool) (bool, error) {
		g := w.groups[1]
		if _, err := s.call("find_targets", map[string]any{"query": g.Name}); err != nil {
			return false, err
		}
		r, err := s.call("find_targets", map[string]any{"query": w.card, "group_id": g.ID})
		if err != nil || !bytes.Contains(r, []byte(fmt.Sprint(w.cardUser))) {
			return false, err
		}
		r, err = s.call("invoke_action", map[string]any{"action": "set_group_ban", "params": map[string]any{"group_id": g.ID, "user_id": w.cardUser, "duration": 600}})
		return bytes.Contains(r, []byte(`"status":"ok"`)), err
	}},
	{"read what a screenshot says", func(s *session, w *world, arch bool) (bool, error) {
		r, err := s.call("view_media", map[string]any{"message_id": w.picture})
		return bytes.Contains(r, []byte(`"ocr_text"`)), err
	}},
	{"unread counts per group", func(s *session, w *world, arch bool) (bool, error) {
		if arch {
			r, err := s.call("list_chats", map[string]any{})
			return bytes.Contains(r, []byte(`"unread"`)), err
		}
		// Nothing counts unread messages: the search says so.
		_, err := s.call("search_actions", map[string]any{"query": "未读 消息 数"})
		return false, err
	}},
	{"find a message older than SnowLuma's window", func(s *session, w *world, arch bool) (bool, error) {
		if arch {
			r, err := s.call("search_messages", map[string]any{"query": "发票抬头"})
			return bytes.Contains(r, []byte(simulator.BusyOldLine)), err
		}
		return everyGroupHistory(s, w, simulator.BusyOldLine, 1)
	}},
}

// everyGroupHistory is the search without an archive: the group list,
// then each group's history as far back as it goes (a first page of 200,
// then one page before its oldest message, which SnowLuma's window leaves
// empty), looking for text at least want times.
func everyGroupHistory(s *session, w *world, text string, want int) (bool, error) {
	if _, err := s.query("get_group_list", map[string]any{}); err != nil {
		return false, err
	}
	found := 0
	for _, g := range w.groups {
		r, err := s.query("get_group_msg_history", map[string]any{"group_id": g.ID, "count": 200})
		if err != nil {
			return false, err
		}
		var page struct {
			Count int    `json:"count"`
			Lines string `json:"lines"`
			Reach string `json:"reach"`
		}
		json.Unmarshal(r, &page)
		found += strings.Count(page.Lines, text)
		// A model that is told the history reaches no further stops here.
		if page.Count == 0 || page.Reach != "" {
			continue
		}
		oldest := regexp.MustCompile(`#(-?\d+)`).FindStringSubmatch(page.Lines)
		if oldest == nil {
			return false, fmt.Errorf("a history page without a message id: %.200s", page.Lines)
		}
		if _, err := s.query("get_group_msg_history", map[string]any{"group_id": g.ID, "message_id": json.Number(oldest[1]), "count": 200}); err != nil {
			return false, err
		}
	}
	return found >= want, nil
}

// historyStart reads the time of the first message of a history answer's
// lines: its first line is the date with the zone's offset, its second
// starts with the time.
func historyStart(data json.RawMessage) (time.Time, bool) {
	var d struct {
		Lines string `json:"lines"`
	}
	json.Unmarshal(data, &d)
	day, rest, _ := strings.Cut(d.Lines, "\n")
	clock, _, _ := strings.Cut(rest, " ")
	t, err := time.Parse("2006-01-02 -07:00 15:04", day+" "+clock)
	return t, err == nil
}

// benchTasks runs the six tasks against server, with and without the
// archive, and prints each one's calls and bytes.
func benchTasks(server string) error {
	now := time.Now().Truncate(time.Second)
	dir, err := os.MkdirTemp("", "snowluma-bench-tasks")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("what a model reads per task, busy account (%d groups x %d members, %d messages over %v), %s\n",
		simulator.BusyGroups, simulator.BusyMembers, simulator.BusyMessages, simulator.BusySpan, now.Format(time.DateOnly))
	fmt.Printf("bytes = tools/list tools array once + every result's text; images attached counted apart; ~tokens = bytes/4 for ASCII, 1 a rune else\n")
	for _, arch := range []bool{true, false} {
		var total taskRun
		var over, done int
		label := "archive off"
		if arch {
			label = "archive on"
		}
		fmt.Printf("\n%s\n%-52s %5s %9s %9s %9s %12s %6s %5s\n", label, "task", "calls", "defs B", "read B", "total B", "as CC, B", "images", "done")
		for _, t := range busyTasks {
			// A fresh account and server per task: each task starts a new
			// session, as an operator's request does.
			r, err := runTask(t, arch, now, filepath.Join(dir, fmt.Sprintf("%s-%v", strings.ReplaceAll(t.name, " ", "_"), arch)), server)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", label, t.name, err)
			}
			says := "no"
			if r.done {
				says = "yes"
				done++
			}
			fmt.Printf("%-52s %5d %9d %9d %9d %12d %6d %5s  %s\n", t.name, r.calls, r.defs, r.read, r.defs+r.read, r.hostDefs+r.read, r.images, says, strings.Join(r.trajectory, " → "))
			total.calls += r.calls
			total.defs += r.defs
			total.hostDefs += r.hostDefs
			total.read += r.read
			if r.defs+r.read > 40<<10 {
				over++
			}
		}
		fmt.Printf("%-52s %5d %9d %9d %9d %12d  %d of %d done, %d over 40 KB\n", "all six", total.calls, total.defs, total.read, total.defs+total.read, total.hostDefs+total.read, done, len(busyTasks), over)
	}
	return nil
}

// runTask plays t against a fresh busy account and a server over it.
func runTask(t task, arch bool, now time.Time, dir string, server string) (*taskRun, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fake, err := simulator.New(simulator.WithBusyWorldAt(7, now), simulator.WithoutRecording())
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	w, err := learn(fake, now)
	if err != nil {
		return nil, err
	}
	env := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_DOWNLOAD_DIR=" + filepath.Join(dir, "downloads"),
		"SNOWLUMA_MCP_EVENTS_URL=" + fake.EventsURL(), "SNOWLUMA_MCP_LANG=en", "SNOWLUMA_MCP_TZ=+08:00", "HOME=" + dir}
	if arch {
		path := filepath.Join(dir, "archive.db")
		if err := fillArchive(path, fake, now); err != nil {
			return nil, err
		}
		env = append(env, "SNOWLUMA_MCP_ARCHIVE="+path, "SNOWLUMA_MCP_ARCHIVE_GROUPS=*", "SNOWLUMA_MCP_ARCHIVE_USERS=*", "SNOWLUMA_MCP_ARCHIVE_DAYS=90")
	}
	p, err := spawn(server, env, true)
	if err != nil {
		return nil, err
	}
	defer p.close()
	p.withCaps(ccCaps)
	line, err := p.roundTrip("tools/list", `{}`)
	if err != nil {
		return nil, err
	}
	var list struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &list); err != nil {
		return nil, err
	}
	var tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(list.Result.Tools, &tools); err != nil {
		return nil, err
	}
	var host bytes.Buffer
	enc := json.NewEncoder(&host)
	enc.SetEscapeHTML(false) // as the server writes JSON
	if err := enc.Encode(tools); err != nil {
		return nil, err
	}
	r := &taskRun{name: t.name, defs: len(list.Result.Tools), hostDefs: host.Len() - 1}
	r.done, err = t.play(&session{p: p, run: r}, w, arch)
	return r, err
}

// fillArchive writes the month's messages into a new archive at path, as
// the server would have stored them following the account.
func fillArchive(path string, fake *simulator.Server, now time.Time) error {
	ctx := context.Background()
	all := archive.Selection{All: true}
	st, err := archive.Open(ctx, archive.Options{Path: path, Groups: all, Users: all, Days: 90, SelfID: simulator.SelfID, Now: func() time.Time { return now }})
	if err != nil {
		return err
	}
	if _, err := st.Ingest(ctx, fake.HistoryFrames()); err != nil {
		st.Close()
		return err
	}
	return st.Close()
}
