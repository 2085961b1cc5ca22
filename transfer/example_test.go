package transfer_test

import (
	"context"
	"fmt"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// A Client posts one action to <endpoint>/<action> with the token in the
// Authorization header, and keeps SnowLuma's answer byte for byte.
func Example() {
	snowluma, err := simulator.New(simulator.WithToken("http-token"))
	if err != nil {
		panic(err)
	}
	defer snowluma.Close()

	c, err := transfer.New(transfer.Options{Endpoint: snowluma.URL, Token: "http-token"})
	if err != nil {
		panic(err)
	}
	resp, err := c.Call(context.Background(), transfer.Request{Action: "get_status"})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.HTTPStatus, resp.Status, resp.Retcode)
	fmt.Println(c.ActionURL("get_status") == snowluma.URL+"get_status")
	// Output:
	// 200 ok 0
	// true
}
