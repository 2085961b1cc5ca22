package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestArchive(t *testing.T) {
	c, err := Load(base(t, events, "SNOWLUMA_MCP_ARCHIVE=/var/lib/snowluma/archive.db", "SNOWLUMA_MCP_ARCHIVE_GROUPS=20001, 20002",
		"SNOWLUMA_MCP_ARCHIVE_USERS= * ", "SNOWLUMA_MCP_ARCHIVE_DAYS=7", "SNOWLUMA_MCP_ARCHIVE_KEEP_RECALLED=yes"))
	if err != nil {
		t.Fatal(err)
	}
	a := c.Archive
	if a == nil || a.Path != "/var/lib/snowluma/archive.db" || a.AllGroups || !slices.Equal(a.Groups.Sorted(), []int64{20001, 20002}) ||
		!a.AllUsers || a.Days != 7 || a.MaxBytes != 1<<30 || !a.KeepRecalled || c.Notes != nil {
		t.Errorf("archive %+v, notes %q", a, c.Notes)
	}
	// Without the event connection it says what it can do; with nothing
	// chosen it says it keeps nothing.
	c, err = Load(base(t, "SNOWLUMA_MCP_ARCHIVE=/a.db", "SNOWLUMA_MCP_LANG=en"))
	if err != nil || c.Archive == nil || len(c.Notes) != 2 || !strings.Contains(c.Notes[0], "keeps no chat") || !strings.Contains(c.Notes[1], "SNOWLUMA_MCP_EVENTS_URL") {
		t.Errorf("bare: %+v %q %v", c.Archive, c.Notes, err)
	}
	// Docs mode ignores it.
	c, err = Load([]string{"SNOWLUMA_MCP_ARCHIVE=/a.db", "SNOWLUMA_MCP_LANG=en"})
	if err != nil || c.Archive != nil || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "needs read or write mode") {
		t.Errorf("docs: %+v %q %v", c.Archive, c.Notes, err)
	}
	for _, bad := range []struct{ v, name string }{
		{"SNOWLUMA_MCP_ARCHIVE=archive.db", "ARCHIVE"},
		{"SNOWLUMA_MCP_ARCHIVE_GROUPS=all", "ARCHIVE_GROUPS"},
		{"SNOWLUMA_MCP_ARCHIVE_DAYS=0", "ARCHIVE_DAYS"},
		{"SNOWLUMA_MCP_ARCHIVE_MAX_BYTES=1GB", "ARCHIVE_MAX_BYTES"},
		{"SNOWLUMA_MCP_ARCHIVE_KEEP_RECALLED=maybe", "ARCHIVE_KEEP_RECALLED"},
	} {
		env := base(t, events, "SNOWLUMA_MCP_ARCHIVE=/a.db", bad.v)
		if bad.name == "ARCHIVE" {
			env = base(t, events, bad.v)
		}
		_, err := Load(env)
		var ce *Error
		if !errors.As(err, &ce) || ce.Var != bad.name {
			t.Errorf("%s: %v", bad.v, err)
		}
	}
}
