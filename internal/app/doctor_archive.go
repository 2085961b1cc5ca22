package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
)

// checkArchive checks the message archive's file: that it opens as this
// server's archive (not corrupt, not another program's, not newer), passes
// SQLite's quick check and is private, with what it holds and how recent
// each chat is. A file a running server holds is a warning, not a fault.
// A PostgreSQL archive is checked for reachability (the open), its schema
// version and the role's privileges (Check); only its URL without the
// password is ever shown.
func checkArchive(ctx context.Context, l lang.Lang, cfg *config.Config) finding {
	a := cfg.Archive
	f := finding{Check: "archive"}
	var fi os.FileInfo
	if a.URL == "" {
		var err error
		fi, err = os.Stat(a.Path)
		if errors.Is(err, fs.ErrNotExist) {
			f.Verdict, f.Detail = verdictOK, l.Sprintf(posixOr(runtime.GOOS, lang.DoctorArchiveNew, lang.DoctorArchiveNewWindows), a.Path)
			return f
		}
	}
	s, err := archive.Open(ctx, backend.ArchiveOptions(a, &cfg.Safety))
	var ae *archive.Error
	switch {
	case errors.As(err, &ae) && ae.Problem == archive.ProblemLocked:
		f.Verdict, f.Detail, f.Fix = verdictWarn, l.Sprintf(lang.DoctorArchiveHeld, a.Path), l.Sprintf(lang.DoctorArchiveHeldFix)
		return f
	case errors.As(err, &ae):
		f.Verdict, f.Detail, f.Fix = verdictFail, ae.File+": "+ae.Detail, ae.Fix
		return f
	case err != nil:
		f.Verdict, f.Detail, f.Fix = verdictFail, err.Error(), l.Sprintf(lang.DoctorNoteFix)
		return f
	}
	defer s.Close()
	if err := s.Check(ctx); err != nil {
		f.Verdict, f.Detail, f.Fix = verdictFail, err.Error(), "move the file aside and restart; a new archive is created"
		if errors.As(err, &ae) {
			f.Detail, f.Fix = ae.File+": "+ae.Detail, ae.Fix
		}
		return f
	}
	sum, err := s.Summary(ctx)
	if err != nil {
		f.Verdict, f.Detail, f.Fix = verdictFail, err.Error(), l.Sprintf(lang.DoctorNoteFix)
		return f
	}
	chats, _ := s.Chats(ctx, false)
	var newest []string
	for i, c := range chats {
		if i == 5 {
			newest = append(newest, fmt.Sprintf("+%d", len(chats)-5))
			break
		}
		newest = append(newest, c.Chat+" "+c.Newest)
	}
	f.Verdict = verdictOK
	f.Detail = l.Sprintf(lang.DoctorArchiveOK, a.Path, sum.SchemaVersion, sum.Messages, sum.Chats, float64(sum.Bytes)/(1<<20), strings.Join(newest, ", "))
	if fi == nil {
		return f
	}
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		f.Verdict, f.Detail, f.Fix = verdictWarn, l.Sprintf(lang.DoctorArchiveShared, a.Path, perm), l.Sprintf(lang.DoctorArchiveFix)
	}
	return f
}
