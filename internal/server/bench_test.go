package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/internal/stdio"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// The per-call benchmarks. BenchmarkCall drives the whole server (the
// go-sdk's JSON-RPC layer and ours, over internal/stdio as the binary
// serves it) with raw JSON-RPC lines through an in-process pipe, as a
// legacy initialize client, so that its allocations
// are the server's and not a client library's. BenchmarkOwn runs only this
// server's per-call path (toolkit.Serve: gate, argument check, handler,
// rendering) to tell our cost from the SDK's. query_action reaches a fake
// SnowLuma over loopback HTTP in the same process, so its figures include
// the fake's side of each request. go run ./scripts/bench -percall times
// the real binary over stdio.

// benchCalls are the calls both benchmarks measure, as tools/call params
// (or, for resources/read and tools/list, their own params).
var benchCalls = []struct{ name, method, params string }{
	{"tools_list", "tools/list", `{}`},
	{"list_categories", "tools/call", `{"name":"list_categories","arguments":{}}`},
	{"search_keywords", "tools/call", `{"name":"search_actions","arguments":{"query":"群 禁言","match":"keywords"}}`},
	{"search_group", "tools/call", `{"name":"search_actions","arguments":{"query":"group"}}`},
	{"get_action", "tools/call", `{"name":"get_action","arguments":{"name":"send_group_msg"}}`},
	{"resources_read", "resources/read", `{"uri":"snowluma://onebot/actions"}`},
	{"query_action", "tools/call", `{"name":"query_action","arguments":{"action":"get_msg","params":{"message_id":-123456}}}`},
}

func BenchmarkCall(b *testing.B) {
	fake := simtest.Start(b, simulator.WithoutRecording())
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		b.Fatal(err)
	}
	rs := rawConnect(b, func(pass mcpseam.Passer) (*mcp.Server, error) {
		return New(Options{Catalog: catalog.Preload(), Mode: config.ModeWrite, Backend: &backend.Backend{Client: client}, Speed: Speed{PassEncoded: pass, GrowStacks: true}})
	})
	for _, c := range benchCalls {
		b.Run(c.name, func(b *testing.B) {
			rs.call(b, c.method, c.params) // warm: first-use encodings, connections
			b.ReportAllocs()
			for b.Loop() {
				rs.call(b, c.method, c.params)
			}
		})
	}
}

func BenchmarkOwn(b *testing.B) {
	fake := simtest.Start(b, simulator.WithoutRecording())
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		b.Fatal(err)
	}
	sealer, err := seal.New(seal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cat := catalogSource(catalog.Preload())
	// As New builds it; the default safety policy lets read-only actions
	// through unpaced.
	x := newExecutor(cat, &backend.Backend{Client: client}, config.ModeWrite, sealer, lang.En, quiet, pipeline.Options{})
	specs := append(docsTools(cat), execTools(x)...)
	for _, c := range benchCalls {
		if c.method != "tools/call" {
			continue
		}
		var p mcp.CallToolParamsRaw
		if err := json.Unmarshal([]byte(c.params), &p); err != nil {
			b.Fatal(err)
		}
		var h mcp.ToolHandler
		for _, s := range specs {
			if s.Name == p.Name {
				if h, err = toolkit.Serve(s, config.ModeWrite, quiet); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(c.name, func(b *testing.B) {
			req := &mcp.CallToolRequest{Params: &p}
			call := func() {
				res, err := h(context.Background(), req)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			call()
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
}

// rawSession is a JSON-RPC peer writing request lines to a server and
// reading its answer lines, with no client library in between.
type rawSession struct {
	w  io.Writer
	r  *bufio.Reader
	id int
}

// rawConnect connects the server newServer builds over in-process pipes
// through the binary's stdio transport, which it gives the server as
// the binary does, and completes a 2025-11-25 initialize handshake.
func rawConnect(b *testing.B, newServer func(pass mcpseam.Passer) (*mcp.Server, error)) *rawSession {
	b.Helper()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	tr := stdio.New(sr, sw, stdio.Options{})
	s, err := newServer(tr)
	if err != nil {
		b.Fatal(err)
	}
	ss, err := s.Connect(context.Background(), tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cw.Close(); cr.Close(); ss.Wait() })
	rs := &rawSession{w: cw, r: bufio.NewReaderSize(cr, 1<<20)}
	rs.call(b, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	if _, err := io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return rs
}

// call sends one request and reads its answer, failing on an error or a
// tool error. The answer line is read in place, without a copy.
func (rs *rawSession) call(b *testing.B, method, params string) {
	rs.id++
	line := []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(rs.id) + `,"method":"` + method + `","params":` + params + "}\n")
	if _, err := rs.w.Write(line); err != nil {
		b.Fatal(err)
	}
	answer, err := rs.r.ReadSlice('\n')
	if err != nil {
		b.Fatal(err)
	}
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":`, rs.id)
	if !bytes.HasPrefix(answer, []byte(want)) || bytes.Contains(answer[max(0, len(answer)-200):], []byte(`"isError":true`)) {
		b.Fatalf("%s: %.300s", method, answer)
	}
}
