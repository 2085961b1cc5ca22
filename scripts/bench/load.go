package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// The load mode (-load): what a small call waits while the server is busy.
// The real binary runs over stdio in read mode against an in-process fake
// SnowLuma, with the archive on and the event connection open, once with
// GOMAXPROCS=1 and once with GOMAXPROCS=2. In each, tools/list and
// search_actions "group" are timed one at a time, n of each in turns,
// while the server is idle, while a client calls view_media on a
// 12-megapixel photo over and over (one call in flight), and from the
// start of a 10,000-message burst of group messages that the fake pushes
// into the event connection as fast as it goes, which the archive
// ingests. Its p99 is what docs/performance.md held against the 50 ms a
// small call may wait, to choose between one processor and all.

// loadCalls are the small calls the load mode times.
var loadCalls = []callKind{
	{"tools/list", "tools/list", `{}`},
	{`search_actions "group"`, "tools/call", `{"name":"search_actions","arguments":{"query":"group"}}`},
}

// viewMediaCall shows the 12-megapixel photo of message 7.
var viewMediaCall = callKind{"view_media 12 MP", "tools/call", `{"name":"view_media","arguments":{"message_id":7}}`}

// burstSize is the messages of one event burst.
const burstSize = 10_000

// load runs the load mode against server.
func load(server string, n int, modern bool) error {
	fake, err := simulator.New(simulator.WithoutRecording())
	if err != nil {
		return err
	}
	defer fake.Close()
	fake.AddFile("big.jpg", simulator.File{Name: "big.jpg", Data: simulator.SamplePhoto(4000, 3000)})
	fake.Handle("get_msg", func(json.RawMessage) simulator.Reply {
		return simulator.OK(json.RawMessage(`{"message_id":7,"message_type":"group","group_id":30003,"user_id":20002,"time":1700000000,"sender":{"user_id":20002},"message":[{"type":"image","data":{"file":"big.jpg","url":""}}]}`))
	})
	fake.Handle("ocr_image", func(json.RawMessage) simulator.Reply {
		return simulator.OK(json.RawMessage(`{"texts":[],"language":"zh"}`))
	})
	fmt.Printf("small calls under load over stdio, %d of each kind per scenario, one at a time (%s)\n", n, time.Now().Format(time.DateOnly))
	fmt.Printf("%-24s %-12s %-28s %9s %9s %9s %s\n", "processors", "scenario", "call", "p50 ms", "p99 ms", "max ms", "load done meanwhile")
	for _, procs := range []string{"1", "2"} {
		name := "GOMAXPROCS=" + procs
		if err := loadRun(server, fake, procs, name, n, modern); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// loadRun measures one server: idle, under view_media, under bursts.
func loadRun(server string, fake *simulator.Server, procs, name string, n int, modern bool) error {
	dir, err := os.MkdirTemp("", "snowluma-bench-load")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_MODE=read", "SNOWLUMA_MCP_DOWNLOAD_DIR=" + filepath.Join(dir, "downloads"),
		"SNOWLUMA_MCP_EVENTS_URL=" + fake.EventsURL(), "SNOWLUMA_MCP_ARCHIVE=" + filepath.Join(dir, "archive.db"), "SNOWLUMA_MCP_ARCHIVE_GROUPS=*"}
	env = append(env, "GOMAXPROCS="+procs)
	before := len(fake.EventConns())
	p, err := spawn(server, env, modern)
	if err != nil {
		return err
	}
	c := newLoadClient(p)
	defer c.close()
	// The archive opens the event connection once the server has started.
	for deadline := time.Now().Add(30 * time.Second); len(fake.EventConns()) == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the server opened no event connection")
		}
	}
	conn := fake.EventConns()[len(fake.EventConns())-1]
	if _, err := c.call(viewMediaCall); err != nil { // checked once, and warm
		return err
	}
	nextMsg := int64(1_000_000)
	for _, sc := range []struct {
		name string
		run  func(stop <-chan struct{}) (string, error) // the load, until stop
	}{
		{"idle", func(stop <-chan struct{}) (string, error) { <-stop; return "-", nil }},
		{"view_media", func(stop <-chan struct{}) (string, error) {
			calls := 0
			for {
				select {
				case <-stop:
					return fmt.Sprintf("%d view_media calls", calls), nil
				default:
				}
				if _, err := c.call(viewMediaCall); err != nil {
					return "", err
				}
				calls++
			}
		}},
		{"event burst", func(stop <-chan struct{}) (string, error) {
			start := time.Now()
			for range burstSize {
				nextMsg++
				ev := fmt.Sprintf(`{"time":%d,"self_id":10001,"post_type":"message","message_type":"group","sub_type":"normal","group_id":20001,"user_id":20002,"message_id":%d,"message":[{"type":"text","data":{"text":"message %d of the burst"}}],"raw_message":"message %d of the burst","font":0,"sender":{"user_id":20002,"nickname":"burst"}}`,
					1700000000+nextMsg, nextMsg, nextMsg, nextMsg)
				if err := conn.Send(ev); err != nil {
					return "", err
				}
			}
			pushed := time.Since(start)
			<-stop
			return fmt.Sprintf("%d messages pushed in %d ms", burstSize, pushed.Milliseconds()), nil
		}},
	} {
		stop := make(chan struct{})
		var done string
		var loadErr error
		var wg sync.WaitGroup
		wg.Go(func() { done, loadErr = sc.run(stop) })
		if sc.name == "view_media" {
			time.Sleep(200 * time.Millisecond) // the first call under way
		}
		lat := make([][]time.Duration, len(loadCalls))
		var probeErr error
		for i := range n * len(loadCalls) {
			k := i % len(loadCalls)
			d, err := c.call(loadCalls[k])
			if err != nil {
				probeErr = err
				break
			}
			lat[k] = append(lat[k], d)
		}
		close(stop)
		wg.Wait()
		if probeErr != nil {
			return probeErr
		}
		if loadErr != nil {
			return fmt.Errorf("%s: %w", sc.name, loadErr)
		}
		for k, kind := range loadCalls {
			s := summarise(lat[k], time.Second)
			fmt.Printf("%-24s %-12s %-28s %9.2f %9.2f %9.2f %s\n", name, sc.name, kind.name, ms(s.p50), ms(s.p99), ms(lat[k][len(lat[k])-1]), done)
		}
	}
	return nil
}

// A loadClient has several requests in flight on one server's stdio: a
// reader hands each answer line to the call waiting for its id.
type loadClient struct {
	p       *proc
	mu      sync.Mutex // the writer, nextID and waiting
	waiting map[int]chan []byte
	nextID  atomic.Int64
	done    chan struct{}
}

func newLoadClient(p *proc) *loadClient {
	c := &loadClient{p: p, waiting: map[int]chan []byte{}, done: make(chan struct{})}
	c.nextID.Store(int64(p.nextID) + 1000)
	go c.read(p.out)
	return c
}

func (c *loadClient) read(out *bufio.Reader) {
	defer close(c.done)
	for {
		line, err := out.ReadBytes('\n')
		if err != nil {
			return
		}
		id, err := idOf(line)
		if err != nil {
			continue // a notification
		}
		c.mu.Lock()
		ch := c.waiting[id]
		delete(c.waiting, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- line
		}
	}
}

// call sends k and returns how long its answer took, failing on a tool
// error or a JSON-RPC error.
func (c *loadClient) call(k callKind) (time.Duration, error) {
	id := int(c.nextID.Add(1))
	ch := make(chan []byte, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	req := c.p.request(id, k.method, k.params)
	start := time.Now()
	_, err := c.p.stdin.Write(req)
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	var line []byte
	select {
	case line = <-ch:
	case <-c.done:
		return 0, io.ErrUnexpectedEOF
	case <-time.After(2 * time.Minute):
		return 0, fmt.Errorf("%s: no answer in two minutes", k.name)
	}
	d := time.Since(start)
	var resp struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.Result == nil || resp.Result.IsError {
		return 0, fmt.Errorf("%s: bad answer (%v): %.300s", k.name, err, line)
	}
	return d, nil
}

// close ends the server: its stdin closes, and it exits once it has
// answered what it read.
func (c *loadClient) close() {
	c.p.stdin.Close()
	<-c.done
	c.p.cmd.Wait()
}
