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
	case err != nil:
		return archiveFailed(l, a.Path, err)
	}
	defer s.Close()
	if err := s.Check(ctx); err != nil {
		return archiveFailed(l, a.Path, err)
	}
	sum, err := s.Summary(ctx)
	if err != nil {
		return archiveFailed(l, a.Path, err)
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

// archiveFailed is the failed archive check for err, in l. In English the
// archive's own detail and fix are the report; another language gets the
// problem and its fix in its words, the archive's detail (with SQLite's
// error) quoted as it came.
func archiveFailed(l lang.Lang, path string, err error) finding {
	f := finding{Check: "archive", Verdict: verdictFail}
	var ae *archive.Error
	if !errors.As(err, &ae) {
		f.Detail, f.Fix = path+": "+err.Error(), l.Sprintf(lang.DoctorArchiveBadFix)
		return f
	}
	if l == lang.En {
		f.Detail, f.Fix = ae.File+": "+ae.Detail, ae.Fix
		return f
	}
	problem, fix := lang.ArchiveProblem(string(ae.Problem))
	f.Detail, f.Fix = l.Sprintf(lang.DoctorArchiveFailed, ae.File, l.Sprintf(problem), ae.Detail), l.Sprintf(fix)
	return f
}
