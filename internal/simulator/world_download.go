package simulator

import (
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// downloadNotFound is SnowLuma's refusal of a download source it cannot
// place.
const downloadNotFound = "file not found (expected a stream-dir path, an http(s) URL, or a cached image/voice id)"

// worldSource resolves what a world's download_file_stream is asked for as
// SnowLuma 1.11.1 does (actions/stream-download.ts), in its order: an
// existing file on the host, which must be inside the stream directory (a
// file merged by upload_file_stream); then an http(s) URL, never a private
// or loopback one; then a cached image or voice id from a received message.
// A group file is not a source: its route is get_group_file_url, whose
// link the world serves as QQ's download server would. A URL outside the
// world is refused, since the sandbox fetches nothing from the network.
// why is SnowLuma's wording of a refusal, "" when f is found.
func (s *Server) worldSource(target string) (f File, why string) {
	if target == "" {
		return File{}, "file is required"
	}
	local := strings.TrimPrefix(target, "file://")
	s.mu.Lock()
	i := slices.IndexFunc(s.files.done, func(u Uploaded) bool { return u.Path == local })
	var up Uploaded
	if i >= 0 {
		up = s.files.done[i]
	}
	s.mu.Unlock()
	if i >= 0 {
		return File{Name: filepath.Base(up.Path), Path: up.Path}, ""
	}
	if st, err := os.Stat(local); err == nil && st.Mode().IsRegular() {
		return File{}, "local downloads are restricted to the stream temp directory"
	}
	lower := strings.ToLower(target)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		return s.worldURL(target)
	}
	// A cached image or voice id, from a message with media.
	if f, ok := s.mediaFile(target); ok {
		return f, ""
	}
	return File{}, downloadNotFound
}

// worldURL is a download of an http(s) URL: one of the world's own group
// file links, or a refusal.
func (s *Server) worldURL(raw string) (File, string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return File{}, "invalid URL"
	}
	host := strings.Trim(u.Hostname(), "[]")
	if a, err := netip.ParseAddr(host); err == nil {
		if privateAddr(a) {
			return File{}, "refusing to fetch a private/loopback address"
		}
	} else if strings.EqualFold(host, "localhost") {
		return File{}, "refusing to fetch a host that resolves to a private address"
	}
	if "https://"+u.Host != sandboxHost {
		// A media link of the world's messages stands for what QQ's
		// server would answer.
		if f, ok := s.mediaFile(raw); ok {
			return f, ""
		}
		return File{}, "the sandbox fetches nothing from the network: only its own links (get_group_file_url) download; SnowLuma would fetch this URL"
	}
	// /group/<group id>/file/<file uuid>, as fileURL makes them.
	parts := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	if len(parts) != 4 || parts[0] != "group" || parts[2] != "file" {
		return File{}, "download failed: HTTP 404"
	}
	gid, _ := strconv.ParseInt(parts[1], 10, 64)
	w := s.world
	w.mu.Lock()
	var id string
	if g := w.groupByID(gid); g != nil {
		if i := slices.IndexFunc(g.files, func(f *groupFile) bool { return f.id == "/"+parts[3] }); i >= 0 {
			id = g.files[i].id
		}
	}
	w.mu.Unlock()
	s.mu.Lock()
	stored, ok := s.files.byName[id]
	s.mu.Unlock()
	if id == "" || !ok {
		return File{}, "download failed: HTTP 404"
	}
	// SnowLuma names a URL download after the URL's last path segment,
	// not the file's name.
	return File{Name: path.Base(u.Path), Data: stored.Data}, ""
}

// privateAddr reports the addresses SnowLuma refuses to fetch from:
// unspecified (0.0.0.0/8 too), loopback, private, link-local and
// carrier-grade NAT.
func privateAddr(a netip.Addr) bool {
	a = a.Unmap()
	cgnat := netip.MustParsePrefix("100.64.0.0/10")
	this := netip.MustParsePrefix("0.0.0.0/8")
	return a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || cgnat.Contains(a) || this.Contains(a)
}
