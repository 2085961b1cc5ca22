package catalog

import (
	"slices"
	"testing"
)

// TestEffectEveryAction: every write and every read of the catalog has an
// effect, of its own kind (a write says where it lands, a read whose text
// it holds), citing its SnowLuma handler; every param the model names is
// one the action declares, and no effect names an action the catalog
// lacks.
func TestEffectEveryAction(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Effects()
	if err != nil {
		t.Fatal(err)
	}
	dests := []string{DestGroup, DestUser, DestMember, DestSendMsg, DestSendForward, DestPoke, DestEach, DestMessage, DestFlag, DestSelf, DestPublic}
	reads := []string{ReadsNone, ReadsGroup, ReadsUser, ReadsTarget, ReadsAnswer, ReadsAnswerIDs, ReadsUnknown}
	seen := map[string]bool{}
	for _, a := range c.Actions() {
		e, ok := EffectOf(a.Name)
		if !ok {
			t.Errorf("%s has no effect", a.Name)
			continue
		}
		seen[a.Name] = true
		if e.Source == "" || len(e.Source) < len("actions/x.ts") || e.Source[:8] != "actions/" {
			t.Errorf("%s: source %q is not a handler file", a.Name, e.Source)
		}
		switch {
		case a.ReadOnly && (e.To != "" || !slices.Contains(reads, e.Reads)):
			t.Errorf("%s is a read; effect %+v", a.Name, e)
		case !a.ReadOnly && (e.Reads != "" || !slices.Contains(dests, e.To)):
			t.Errorf("%s is a write; effect %+v", a.Name, e)
		}
		declared := func(p string) bool {
			return slices.ContainsFunc(a.Params, func(q Param) bool { return q.Name == p })
		}
		for _, group := range [][]string{e.Text, e.Message, e.Media, e.Fetch, e.Carries} {
			for _, p := range group {
				// click_inline_keyboard_button reads button_id and
				// callback_data from the raw params, undeclared.
				if !declared(p) && a.Name != "click_inline_keyboard_button" {
					t.Errorf("%s: effect names param %q it does not declare", a.Name, p)
				}
			}
		}
	}
	for name := range m {
		if !seen[name] {
			t.Errorf("effect for %q, which the catalog does not have", name)
		}
	}
}
