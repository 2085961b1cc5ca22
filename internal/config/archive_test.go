package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestZone: SNOWLUMA_MCP_TZ takes offsets (no zone database needed) and
// IANA names, defaults to the system's zone, and refuses anything else
// naming the variable; the archive shows and reads times in it.
func TestZone(t *testing.T) {
	for v, want := range map[string]int{"+08:00": 8 * 3600, "UTC+8": 8 * 3600, "+0530": 5*3600 + 1800, "-03:00": -3 * 3600, "UTC": 0} {
		loc, err := ParseZone(v)
		if err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		if _, off := time.Date(2026, 12, 3, 9, 40, 0, 0, loc).Zone(); off != want {
			t.Errorf("%q: offset %d, want %d", v, off, want)
		}
	}
	if loc, err := ParseZone(""); err != nil || loc != time.Local {
		t.Errorf("unset: %v %v", loc, err)
	}
	for _, v := range []string{"+25:00", "Mars/Olympus", "+8:99"} {
		if _, err := ParseZone(v); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
	c, err := Load(base(t, events, "SNOWLUMA_MCP_ARCHIVE=/a.db", "SNOWLUMA_MCP_ARCHIVE_GROUPS=1", "SNOWLUMA_MCP_TZ=+08:00"))
	if err != nil || c.Archive.Location == nil || c.Archive.Location.String() != "UTC+08:00" {
		t.Fatalf("archive zone: %+v %v", c.Archive, err)
	}
	_, err = Load(base(t, "SNOWLUMA_MCP_TZ=nowhere", "SNOWLUMA_MCP_LANG=en"))
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "SNOWLUMA_MCP_TZ") || !strings.Contains(err.Error(), "+08:00") {
		t.Errorf("a bad zone: %v", err)
	}
}

// TestArchivePostgres: a postgres:// URL is accepted as the archive; what
// may be shown of it (Path) has no password, the URL to connect with keeps
// it; the reader defaults to the operator's user name and is bounded.
func TestArchivePostgres(t *testing.T) {
	const secret = "s3cr%3Ft-pw"
	c, err := Load(base(t, events, "SNOWLUMA_MCP_ARCHIVE=postgresql://bot:"+secret+"@db.example:5432/archive?sslmode=verify-full",
		"SNOWLUMA_MCP_ARCHIVE_GROUPS=*", "SNOWLUMA_MCP_ARCHIVE_READER=alice"))
	if err != nil {
		t.Fatal(err)
	}
	a := c.Archive
	if a == nil || strings.Contains(a.Path, "s3cr") || !strings.Contains(a.Path, "db.example:5432/archive") || !strings.Contains(a.URL, secret) || a.Reader != "alice" {
		t.Fatalf("archive %+v", a)
	}
	c, err = Load(base(t, events, "SNOWLUMA_MCP_ARCHIVE=postgres://bot@db.example/archive", "SNOWLUMA_MCP_ARCHIVE_GROUPS=*"))
	if err != nil || c.Archive.Reader == "" {
		t.Fatalf("default reader: %+v %v", c.Archive, err)
	}
	_, err = Load(base(t, events, "SNOWLUMA_MCP_ARCHIVE=postgres://db.example/archive", "SNOWLUMA_MCP_ARCHIVE_READER="+strings.Repeat("x", 65)))
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "ARCHIVE_READER") {
		t.Fatalf("long reader: %v", err)
	}
}
