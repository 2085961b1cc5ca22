package transfer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/internal/dirperm"
)

// Defaults of the download store's limits.
const (
	// DefaultMaxFileBytes caps one downloaded or uploaded file: 1 GiB.
	DefaultMaxFileBytes = 1 << 30
	// DefaultDownloadQuotaBytes caps the whole download directory: 4 GiB.
	DefaultDownloadQuotaBytes = 4 << 30
)

// Names of files in the download directory. A download is written to a
// hidden partial file and renamed to its sanitised name once complete;
// sanitised names never start with a dot, so the two cannot meet.
const (
	partialPrefix = ".snowluma-mcp-"
	partialSuffix = ".partial"
	// maxNameBytes bounds a saved file's name, extension included.
	maxNameBytes = 180
	// fallbackName is the name of a download whose name is empty once
	// sanitised.
	fallbackName = "download"
)

// A Store is the one directory downloads are saved in, with a size limit per
// file and a quota for the whole directory. It is safe for concurrent use:
// concurrent downloads share the quota.
type Store struct {
	dir     string
	maxFile int64
	quota   int64

	mu      sync.Mutex
	disk    int64           // bytes in dir outside running downloads, as last counted plus saves since
	running int64           // bytes reserved by running downloads
	active  map[string]bool // partial files of running downloads
}

// NewStore opens the download directory dir, an absolute path, creating it
// (mode 0700, parents too) when it is missing. maxFile caps one file and
// quota the bytes of every file in the directory; zero means the default.
func NewStore(dir string, maxFile, quota int64) (*Store, error) {
	if !filepath.IsAbs(dir) {
		return nil, errors.New("transfer: the download directory must be an absolute path")
	}
	if maxFile < 0 || quota < 0 {
		return nil, errors.New("transfer: file limits must not be negative")
	}
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("transfer: creating the download directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("transfer: the download directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("transfer: the download directory %s is not a directory", dir)
	}
	if perm := fi.Mode().Perm(); dirperm.WritableByOthers(runtime.GOOS, perm) {
		// Used as it is, another user could plant or swap the files the
		// server saves and reports; changing the mode is the operator's
		// call, never the server's.
		return nil, fmt.Errorf("transfer: the download directory %s can be written by other users (mode %#o); run chmod go-w on it (chmod 700 makes it private), or choose another directory", dir, perm)
	}
	return &Store{
		dir:     dir,
		maxFile: orDefault(maxFile, DefaultMaxFileBytes),
		quota:   orDefault(quota, DefaultDownloadQuotaBytes),
		active:  map[string]bool{},
	}, nil
}

// Dir is the download directory.
func (st *Store) Dir() string { return st.dir }

// MaxFileBytes is the size limit of one file.
func (st *Store) MaxFileBytes() int64 { return st.maxFile }

// QuotaBytes is the quota of the whole directory.
func (st *Store) QuotaBytes() int64 { return st.quota }

// bodyLimit caps the body of one download stream: base64 and the frames'
// envelopes around a file of the largest allowed size, with room for chunks
// as small as about 1 KiB.
func (st *Store) bodyLimit() int64 { return 2*st.maxFile + 64<<20 }

// used counts the bytes of the directory's files, except the partial files
// of running downloads (they are counted as reservations). st.mu is held.
func (st *Store) used() (int64, error) {
	entries, err := os.ReadDir(st.dir)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		if st.active[e.Name()] || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += fi.Size()
	}
	return n, nil
}

// fits reports, without reserving, whether n more bytes stay within the
// quota, counting the directory afresh.
func (st *Store) fits(n int64) (bool, int64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	disk, err := st.used()
	if err != nil {
		return false, 0, err
	}
	st.disk = disk
	free := st.quota - st.disk - st.running
	return n <= free, free, nil
}

// create makes a new partial file for a running download.
func (st *Store) create() (*os.File, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f, err := os.CreateTemp(st.dir, partialPrefix+"*"+partialSuffix)
	if err != nil {
		return nil, err
	}
	st.active[filepath.Base(f.Name())] = true
	return f, nil
}

// reserve takes n bytes of the quota for a running download, or reports
// how many are free.
func (st *Store) reserve(n int64) (bool, int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	free := st.quota - st.disk - st.running
	if n > free {
		return false, free
	}
	st.running += n
	return true, free
}

// discard removes a partial file and returns its reservation.
func (st *Store) discard(f *os.File, reserved int64) {
	f.Close()
	os.Remove(f.Name())
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.active, filepath.Base(f.Name()))
	st.running -= reserved
}

// commit gives the closed partial file at tmp its final name, name made
// unique in the directory (an existing file is never replaced), and moves
// its reserved bytes to the directory's count. It returns the final path.
func (st *Store) commit(tmp, name string, reserved int64) (string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	final, err := st.place(tmp, name)
	if err != nil {
		return "", err
	}
	delete(st.active, filepath.Base(tmp))
	st.running -= reserved
	st.disk += reserved
	return final, nil
}

// place renames tmp to name or, when that exists, to name with the first
// free numeric suffix. It first creates the final name exclusively, so that
// a file that appeared meanwhile is never replaced.
func (st *Store) place(tmp, name string) (string, error) {
	for i := range 10000 {
		final := filepath.Join(st.dir, withSuffix(name, i))
		p, err := os.OpenFile(final, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		p.Close()
		if err := os.Rename(tmp, final); err != nil {
			os.Remove(final)
			return "", err
		}
		return final, nil
	}
	return "", fmt.Errorf("no free name for %q in the download directory", name)
}

// withSuffix returns name for i == 0, else name with "-i" before its
// extension: report.pdf, report-1.pdf, report-2.pdf, ...
func withSuffix(name string, i int) string {
	if i == 0 {
		return name
	}
	ext := filepath.Ext(name)
	if ext == name || len(ext) > 16 {
		ext = ""
	}
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(name, ext), i, ext)
}

// SafeName turns a file name sent by SnowLuma into one that is safe to
// create inside the download directory: only what follows the last / or \,
// without control or invisible formatting characters, without characters
// that some desktop file systems refuse, without leading dots (so never "."
// or ".." and never hidden) or trailing dots and spaces, at most
// maxNameBytes bytes with the extension kept, and never empty.
func SafeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(name, "_") {
		switch {
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
		case strings.ContainsRune(`<>:"|?*`, r):
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	name = strings.TrimLeft(strings.TrimSpace(b.String()), ".")
	name = strings.TrimRight(name, ". ")
	if name == "" {
		return fallbackName
	}
	if stem := strings.ToUpper(strings.TrimSuffix(name, filepath.Ext(name))); reservedOnWindows(stem) {
		name = "_" + name
	}
	if len(name) > maxNameBytes {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:len(name)-len(ext)]
		cut := maxNameBytes - len(ext)
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		name = stem[:cut] + ext
	}
	return name
}

// reservedOnWindows reports device names Windows will not create as files.
func reservedOnWindows(stem string) bool {
	switch stem {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(stem) == 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) && stem[3] >= '1' && stem[3] <= '9' {
		return true
	}
	return false
}
