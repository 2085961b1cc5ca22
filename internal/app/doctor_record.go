package app

import (
	"errors"
	"io/fs"
	"os"

	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// checkRecord reports where the send gate's record lives (by default in
// the user's cache directory, one file per endpoint) and what a new
// connection starts from; a file that cannot be read, which starts every
// connection armed, is a warning with its fix. It reads the file and
// writes nothing. ok is false when the gate is off or there is no bot.
func checkRecord(l lang.Lang, cfg *config.Config) (f finding, ok bool) {
	if cfg.Mode == config.ModeDocs || cfg.UntrustedSends == untrusted.ModeOff {
		return finding{}, false
	}
	f = finding{Check: "untrusted record", Verdict: verdictOK}
	path := backend.RecordPath(cfg)
	if path == "" {
		f.Verdict, f.Detail, f.Fix = verdictWarn, l.Sprintf(lang.DoctorRecordMemory), l.Sprintf(lang.DoctorRecordMemFix)
		return f, true
	}
	hours := int(untrusted.DefaultWindow.Hours())
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		f.Detail = l.Sprintf(lang.DoctorRecordNew, path, hours)
		return f, true
	}
	r := &untrusted.Registry{Path: path}
	chats := r.Recent()
	if p := r.Problem(); p != "" {
		f.Verdict, f.Detail, f.Fix = verdictWarn, l.Sprintf(lang.DoctorRecordProblem, p), l.Sprintf(lang.DoctorRecordFix)
		return f, true
	}
	f.Detail = l.Sprintf(lang.DoctorRecordOK, path, len(chats), hours)
	return f, true
}
