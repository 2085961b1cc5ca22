package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/dirperm"
)

// checkDownloadDir checks the download directory: a private directory (or
// one the server will create), with room for the download quota.
func checkDownloadDir(s StreamConfig) finding {
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
				f.Verdict, f.Detail = verdictOK, dir+" does not exist yet; it will be created (0700) at start"
				return f
			}
			if aerr == nil || !errors.Is(aerr, fs.ErrNotExist) || a == filepath.Dir(a) {
				break
			}
		}
		f.Verdict, f.Detail = verdictFail, dir+" cannot be created: a part of its path is not a directory"
		f.Fix = "point SNOWLUMA_MCP_DOWNLOAD_DIR at an absolute directory path"
		return f
	case err != nil:
		f.Verdict, f.Detail, f.Fix = verdictFail, err.Error(), "point SNOWLUMA_MCP_DOWNLOAD_DIR at a directory this user can write"
		return f
	case !fi.IsDir():
		f.Verdict, f.Detail, f.Fix = verdictFail, dir+" is not a directory", "point SNOWLUMA_MCP_DOWNLOAD_DIR at a directory"
		return f
	}
	probe, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		f.Verdict, f.Detail, f.Fix = verdictFail, dir+" cannot be written: "+err.Error(), "make it writable for this user, or choose another SNOWLUMA_MCP_DOWNLOAD_DIR"
		return f
	}
	probe.Close()
	os.Remove(probe.Name())
	f.Verdict, f.Detail = verdictOK, dir+" is writable"
	if perm := fi.Mode().Perm(); dirperm.WritableByOthers(runtime.GOOS, perm) {
		// As the server refuses it at start.
		f.Verdict = verdictFail
		f.Detail = fmt.Sprintf("%s can be written by other users (mode %#o); the server refuses it at start", dir, perm)
		f.Fix = "run chmod go-w on it (chmod 700 makes it private)"
		return f
	}
	v, detail, fix := privacy(runtime.GOOS, dir, fi.Mode())
	if v != verdictOK {
		f.Verdict, f.Detail, f.Fix = v, detail, fix
		return f
	}
	f.Detail += ", " + detail
	if free, ok := freeBytes(dir); ok {
		f.Detail += fmt.Sprintf(", %d MiB free for a quota of %d MiB", free>>20, s.QuotaBytes>>20)
		if free < uint64(s.QuotaBytes) {
			f.Verdict = verdictWarn
			f.Fix = "free disk space, or lower SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES below the free space"
		}
	}
	return f
}

// privacy judges the download directory's mode on goos: a warning, with its
// fix, when other users may read it on POSIX systems; on Windows, where Go
// shows every directory as 0777, only what is checked is said.
func privacy(goos, dir string, mode fs.FileMode) (verdict, detail, fix string) {
	if problem := dirperm.Problem(goos, mode); problem != "" {
		if before, after, ok := strings.Cut(problem, "; "); ok {
			return verdictWarn, dir + " " + before + "; downloads may hold private files", after
		}
		return verdictWarn, dir + " " + problem, "point SNOWLUMA_MCP_DOWNLOAD_DIR at a private directory"
	}
	return verdictOK, "private: " + dirperm.Checked(goos), ""
}

// checkUploadRoot checks that the upload root is a readable directory.
func checkUploadRoot(root string) finding {
	f := finding{Check: "upload root"}
	entries, err := os.ReadDir(root)
	if err != nil {
		f.Verdict, f.Detail = verdictFail, "the upload root cannot be read: "+err.Error()
		f.Fix = "point SNOWLUMA_MCP_UPLOAD_ROOT at an existing directory this user can read, or unset it"
		return f
	}
	f.Verdict, f.Detail = verdictOK, fmt.Sprintf("%s is readable (%d entries); only files inside it can be uploaded", root, len(entries))
	return f
}
