package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/dirperm"
	"github.com/snowluma/snowluma-mcp/internal/lang"
)

// checkDownloadDir checks the download directory: a private directory (or
// one the server will create), with room for the download quota. It reports
// in l.
func checkDownloadDir(l lang.Lang, s config.StreamConfig) finding {
	f := finding{Check: "download directory"}
	dir := s.DownloadDir
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The server creates it, parents included: the nearest existing
		// ancestor must be a directory.
		for a := filepath.Dir(dir); ; a = filepath.Dir(a) {
			afi, aerr := os.Stat(a)
			if aerr == nil && afi.IsDir() {
				f.Verdict, f.Detail = verdictOK, l.Sprintf(posixOr(runtime.GOOS, lang.DoctorDirWillCreate, lang.DoctorDirWillCreateWindows), dir)
				return f
			}
			if aerr == nil || !errors.Is(aerr, fs.ErrNotExist) || a == filepath.Dir(a) {
				break
			}
		}
		f.Verdict, f.Detail = verdictFail, l.Sprintf(lang.DoctorDirNoCreate, dir)
		f.Fix = l.Sprintf(lang.DoctorDirAbsFix)
		return f
	case err != nil:
		f.Verdict, f.Detail, f.Fix = verdictFail, err.Error(), l.Sprintf(lang.DoctorDirWritableFix)
		return f
	case !fi.IsDir():
		f.Verdict, f.Detail, f.Fix = verdictFail, l.Sprintf(lang.DoctorNotDir, dir), l.Sprintf(lang.DoctorNotDirFix)
		return f
	}
	probe, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		f.Verdict, f.Detail, f.Fix = verdictFail, l.Sprintf(lang.DoctorDirNoWrite, dir, err.Error()), l.Sprintf(lang.DoctorDirNoWriteFix)
		return f
	}
	probe.Close()
	os.Remove(probe.Name())
	f.Verdict, f.Detail = verdictOK, l.Sprintf(lang.DoctorDirWritable, dir)
	if perm := fi.Mode().Perm(); dirperm.WritableByOthers(runtime.GOOS, perm) {
		// As the server refuses it at start.
		f.Verdict = verdictFail
		f.Detail = l.Sprintf(lang.DoctorDirShared, dir, perm)
		f.Fix = l.Sprintf(lang.DoctorDirSharedFix)
		return f
	}
	v, detail, fix := privacy(l, runtime.GOOS, dir, fi.Mode())
	if v != verdictOK {
		f.Verdict, f.Detail, f.Fix = v, detail, fix
		return f
	}
	f.Detail = l.Sprintf(lang.DoctorAnd, f.Detail, detail)
	if free, ok := freeBytes(dir); ok {
		f.Detail = l.Sprintf(lang.DoctorAnd, f.Detail, l.Sprintf(lang.DoctorFree, free>>20, s.QuotaBytes>>20))
		if free < uint64(s.QuotaBytes) {
			f.Verdict = verdictWarn
			f.Fix = l.Sprintf(lang.DoctorFreeFix)
		}
	}
	return f
}

// privacy judges the download directory's mode on goos, in l: a warning,
// with its fix, when other users may read it on POSIX systems (as
// dirperm.Problem finds); on Windows, where Go shows every directory as
// 0777, only what is checked is said.
func privacy(l lang.Lang, goos, dir string, mode fs.FileMode) (verdict, detail, fix string) {
	if dirperm.Problem(goos, mode) != "" {
		if !mode.IsDir() {
			return verdictWarn, l.Sprintf(lang.DoctorNotDir, dir), l.Sprintf(lang.DoctorNotDirFix)
		}
		return verdictWarn, l.Sprintf(lang.DoctorDirReadable, dir, mode.Perm()), l.Sprintf(lang.DoctorDirPrivateFix)
	}
	return verdictOK, l.Sprintf(lang.DoctorDirPrivate, privateMeans(l, goos)), ""
}

// privateMeans says in l what "private" was checked to mean on goos.
func privateMeans(l lang.Lang, goos string) string {
	if dirperm.POSIX(goos) {
		return l.Sprintf(lang.DoctorPrivatePOSIX)
	}
	return l.Sprintf(lang.DoctorPrivateWindows)
}

// checkUploadRoot checks that the upload root is a readable directory,
// reporting in l.
func checkUploadRoot(l lang.Lang, root string) finding {
	f := finding{Check: "upload root"}
	entries, err := os.ReadDir(root)
	if err != nil {
		f.Verdict, f.Detail = verdictFail, l.Sprintf(lang.DoctorUploadNoRead, err.Error())
		f.Fix = l.Sprintf(lang.DoctorUploadFix)
		return f
	}
	f.Verdict, f.Detail = verdictOK, l.Sprintf(lang.DoctorUploadOK, root, len(entries))
	return f
}
