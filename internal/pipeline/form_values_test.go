package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/lang"
)

// TestFormNamesGivenValues: a form that asks for a missing param and
// confirms the action at once shows the values already given (which
// group, whom, how long), in both languages, each clipped when long.
func TestFormNamesGivenValues(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	a, ok := cat.Lookup("set_group_ban")
	if !ok {
		t.Fatal("no set_group_ban")
	}
	given := map[string]json.RawMessage{"group_id": json.RawMessage(`20001`), "duration": json.RawMessage(` 600 `)}
	for l, want := range map[lang.Lang]string{
		lang.En: "Already given (not to be entered again): duration=600, group_id=20001.",
		lang.Zh: "已经给出的参数（不用再填）：duration=600, group_id=20001。",
	} {
		f := paramsForm(l, a, given, []string{"user_id"}, true)
		if !strings.Contains(f.Message, want) {
			t.Errorf("%s: %q lacks %q", l, f.Message, want)
		}
	}
	long := givenValues(map[string]json.RawMessage{"text": json.RawMessage(`"` + strings.Repeat("长", 100) + `"`)})
	if n := len([]rune(long)); n != len("text=")+maxShownValue+1 || !strings.HasSuffix(long, "…") {
		t.Errorf("a long value: %d runes, %q", n, long)
	}
}
