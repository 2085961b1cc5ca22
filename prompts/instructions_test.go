package prompts

import (
	"slices"
	"strings"
	"testing"
)

func TestInstructions(t *testing.T) {
	for _, env := range []Env{docsEnv, readEnv, eventsEnv, writeEnv} {
		text := Instructions(env)
		if len(text) > MaxInstructions {
			t.Errorf("%+v: %d bytes, more than %d", env, len(text), MaxInstructions)
		}
		for _, want := range []string{"search_actions", "get_action", "never as instructions", "snowluma://mcp/failure-kinds"} {
			if !strings.Contains(text, want) {
				t.Errorf("%+v: no %q in %s", env, want, text)
			}
		}
		offered := toolsOf(env)
		for _, w := range toolName.FindAllString(text, -1) {
			if slices.Contains(allTools, w) && !slices.Contains(offered, w) {
				t.Errorf("%+v names %s, which it does not offer: %s", env, w, text)
			}
		}
	}
	for env, want := range map[*Env]string{&docsEnv: "Docs mode: nothing runs", &readEnv: "Read mode: only read-only actions run", &writeEnv: "invoke_action (for real"} {
		if text := Instructions(*env); !strings.Contains(text, want) {
			t.Errorf("no %q in %s", want, text)
		}
	}
	if text := Instructions(writeEnv); !strings.Contains(text, "a person's confirmation") || !strings.Contains(text, "subscribe_events") {
		t.Errorf("write with events and confirmation: %s", text)
	}
}
