package safety_test

import (
	"encoding/json"
	"fmt"

	"github.com/snowluma/snowluma-mcp/safety"
)

// Before an action reaches SnowLuma, the ids its params name are read and
// held against the operator's allowlists; what is refused is named.
func Example() {
	groups, err := safety.ParseIDs("20001, 20002")
	if err != nil {
		panic(err)
	}
	policy := &safety.Policy{Groups: groups}
	for _, params := range []string{
		`{"group_id": 20001, "message": "hi"}`,
		`{"group_id": "30003", "user_id": 40004}`,
	} {
		targets, err := safety.ExtractTargets(json.RawMessage(params))
		if err != nil {
			panic(err)
		}
		fmt.Println(targets.Groups, targets.Users, "refused:", policy.CheckTargets(targets))
	}
	// Output:
	// [20001] [] refused: []
	// [30003] [40004] refused: [group:30003]
}
