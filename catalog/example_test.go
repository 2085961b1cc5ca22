package catalog_test

import (
	"fmt"

	"github.com/snowluma/snowluma-mcp/catalog"
)

// A server loads the catalog once and answers every docs call from it:
// look an action up by name or alias, and read what it takes.
func Example() {
	c, err := catalog.Load()
	if err != nil {
		panic(err)
	}
	a, ok := c.Lookup("set_group_ban")
	if !ok {
		panic("set_group_ban is not in the catalog")
	}
	fmt.Println(a.Name, "read-only:", a.ReadOnly, "required:", a.Required())
	fmt.Println(c.Version())
	// Output:
	// set_group_ban read-only: false required: [group_id user_id]
	// 1.11.1
}
