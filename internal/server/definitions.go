package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/media"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// Definitions returns every tool a fully capable 2026-07-28 client sees
// from a server in mode with every optional service configured, in
// tools/list order. Release bundles and docs/tools.md's table are generated from it,
// so they cannot drift from the code. scratch is a directory for the
// throwaway task store.
func Definitions(mode config.Mode, scratch string) ([]*mcp.Tool, error) {
	return definitions(mode, scratch, &mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
		Extensions:  map[string]any{TasksExtension: map[string]any{}},
	})
}

// definitions returns the tools a 2026-07-28 client with caps sees from a
// server in mode with every optional service configured.
func definitions(mode config.Mode, scratch string, caps *mcp.ClientCapabilities) ([]*mcp.Tool, error) {
	return botDefinitions(mode, scratch, caps, nil)
}

// botDefinitions is definitions for a server that drives the bots
// labelled further besides the first (main), each with a client alone.
func botDefinitions(mode config.Mode, scratch string, caps *mcp.ClientCapabilities, further []string) ([]*mcp.Tool, error) {
	b := &backend.Backend{}
	opts := Options{Catalog: catalog.Preload(), Mode: mode, Backend: b}
	if len(further) > 0 {
		opts.Bots = []Bot{{Label: "main", Backend: b}}
		for _, l := range further {
			c, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
			if err != nil {
				return nil, err
			}
			opts.Bots = append(opts.Bots, Bot{Label: l, Backend: &backend.Backend{Client: c}})
		}
	}
	if mode != config.ModeDocs {
		c, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
		if err != nil {
			return nil, err
		}
		b.Client = c
		// A download directory and a picture decoder, as backend.Open
		// gives them (view_media needs both).
		if b.Downloads, err = transfer.NewStore(filepath.Join(scratch, "downloads"), transfer.DefaultMaxFileBytes, transfer.DefaultDownloadQuotaBytes); err != nil {
			return nil, err
		}
		b.Media = media.NewDecoder(0, 0)
		// Nothing connects until a subscribe_events call, which this never
		// makes.
		b.Events = events.New(events.Options{URL: "ws://127.0.0.1:9/event"})
		defer b.Events.Close()
		// The archive's tools are listed whether or not its file opens;
		// none is opened here.
		b.ArchivePath, b.ArchiveProblem = filepath.Join(scratch, "archive.db"), errors.New("not opened for the definitions")
	}
	if mode == config.ModeWrite {
		store, err := tasks.Open(filepath.Join(scratch, "tasks"), tasks.Scope{Mode: string(mode)}, tasks.Options{})
		if err != nil {
			return nil, err
		}
		defer store.Close()
		r := tasks.NewRunner(store)
		defer r.Close()
		b.Tasks = r
	}
	s, err := New(opts)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "definitions", Version: Version}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("server: list tools: %w", err)
	}
	return res.Tools, nil
}
