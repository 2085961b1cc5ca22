package completion

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/snowluma/snowluma-mcp/transfer"
)

// FromClient is the Fetcher that asks SnowLuma through client.
func FromClient(client *transfer.Client) Fetcher { return clientFetcher{client} }

type clientFetcher struct{ client *transfer.Client }

// Fetch posts one action and returns the data of an "ok" envelope with
// retcode 0; any other answer is an error naming its status and retcode.
func (f clientFetcher) Fetch(ctx context.Context, action string, params json.RawMessage) (json.RawMessage, error) {
	resp, err := f.client.Call(ctx, transfer.Request{Action: action, Params: params})
	if err != nil {
		return nil, err
	}
	var env struct {
		Status  string          `json:"status"`
		Retcode json.Number     `json:"retcode"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(resp.Envelope, &env); err != nil {
		return nil, fmt.Errorf("completion: %s: reading the answer: %w", action, err)
	}
	if env.Status != "ok" || env.Retcode != "0" {
		return nil, fmt.Errorf("completion: %s answered status %q, retcode %s", action, env.Status, env.Retcode)
	}
	return env.Data, nil
}
