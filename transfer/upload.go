package transfer

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/jsonscan"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// UploadChunkBytes is the largest upload chunk: one HTTP call each. A chunk
// is smaller when the request body limit leaves less room for its base64.
const UploadChunkBytes = 1 << 20

// resetTimeout bounds the reset sent after a failed or cancelled upload, so
// that a stopped SnowLuma cannot hold a cancelled call.
const resetTimeout = 5 * time.Second

// uploadAction is SnowLuma's upload stream action.
const uploadAction = "upload_file_stream"

// An UploadRoot is the one directory whose files may be uploaded.
type UploadRoot struct {
	dir string // absolute, symlinks resolved
}

// NewUploadRoot checks that dir is an absolute path to an existing
// directory and resolves its symlinks.
func NewUploadRoot(dir string) (*UploadRoot, error) {
	if !filepath.IsAbs(dir) {
		return nil, errors.New("transfer: the upload root must be an absolute path")
	}
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("transfer: the upload root: %w", err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return nil, fmt.Errorf("transfer: the upload root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("transfer: the upload root %s is not a directory", dir)
	}
	return &UploadRoot{dir: resolved}, nil
}

// Dir is the root, symlinks resolved.
func (u *UploadRoot) Dir() string { return u.dir }

// refuse reports a path that may not be uploaded; nothing was sent.
func refuse(format string, a ...any) *Error {
	return &Error{Kind: outcome.KindPathRefused, Op: uploadAction, Err: fmt.Errorf(format+"; nothing was sent", a...)}
}

// Open opens path for upload: an absolute path without ".." elements that,
// once its symlinks are resolved, names a readable regular file inside the
// root. Anything else is refused with outcome.KindPathRefused.
func (u *UploadRoot) Open(path string) (*os.File, error) {
	if !filepath.IsAbs(path) {
		return nil, refuse("input_file %q is not an absolute path", path)
	}
	for _, elem := range strings.Split(filepath.ToSlash(path), "/") {
		if elem == ".." {
			return nil, refuse("input_file %q contains a .. element", path)
		}
	}
	resolved, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, refuse("input_file %q does not exist", path)
	}
	if err != nil {
		return nil, refuse("input_file %q cannot be resolved: %v", path, cause(err))
	}
	rel, err := filepath.Rel(u.dir, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, refuse("input_file %q leads outside the upload root %s", path, u.dir)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return nil, refuse("input_file %q cannot be read: %v", path, cause(err))
	}
	if fi.IsDir() {
		return nil, refuse("input_file %q is a directory, not a file", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, refuse("input_file %q is not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.Open(resolved)
	if err != nil {
		return nil, refuse("input_file %q cannot be read: %v", path, cause(err))
	}
	// The file opened must be the file checked.
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) || !ofi.Mode().IsRegular() {
		f.Close()
		return nil, refuse("input_file %q changed while it was being opened", path)
	}
	return f, nil
}

// cause is the system's reason inside a file error, without the path the
// message already names.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Upload describes one automatic upload.
type Upload struct {
	// InputFile is the file to send: an absolute path on the MCP host
	// inside the upload root.
	InputFile string
	// Filename names the merged file on the SnowLuma host; empty means the
	// input file's base name.
	Filename string
	// Retention is file_retention (milliseconds, a JSON number) as the
	// caller gave it; nil leaves SnowLuma's default.
	Retention json.RawMessage
	// Header holds extra HTTP headers for every call, such as trace context.
	Header http.Header
	// MaxFileBytes caps the file's size; zero means DefaultMaxFileBytes.
	MaxFileBytes int64
}

// Sent describes what an upload sent.
type Sent struct {
	InputFile string `json:"input_file"`
	Bytes     int64  `json:"bytes"`
	SHA256    string `json:"sha256"`
	Chunks    int64  `json:"chunks"`
	StreamID  string `json:"stream_id"`
}

// ResetOutcome says how the reset of a failed upload went.
type ResetOutcome struct {
	// Confirmed is true when SnowLuma answered that it dropped the stream.
	Confirmed bool `json:"confirmed"`
	// Detail is SnowLuma's wording, or why the reset itself failed.
	Detail string `json:"detail"`
}

// UploadResult is what an upload did. Terminal is SnowLuma's completion
// frame when Completed, else its failure frame (when it sent one). Reset is
// set when a reset was sent for the stream.
type UploadResult struct {
	Sent      Sent
	Completed bool
	Terminal  Frame
	Reset     *ResetOutcome
}

// Upload sends up.InputFile, a file inside root, to SnowLuma with
// upload_file_stream, as SnowLuma's stream action expects: it hashes the
// file, sends it in chunks (at most UploadChunkBytes, fewer when the
// request body limit needs it) under a stream id it chooses, each call
// carrying total_chunks, file_size, expected_sha256 and filename, and checks
// that every chunk, the last included, is acknowledged with chunk_received.
// Then one more call without chunk_data (is_complete: true) asks SnowLuma to
// merge; only its file_complete answer, with the size and hash checked, is
// success, and that answer is the result's Terminal. An empty file is one
// empty chunk and the merge. A path that may not be uploaded is refused
// before anything is sent.
//
// Progress counts the bytes SnowLuma acknowledged. A missing or wrong
// acknowledgement is an error, never a retry. After any failure or
// cancellation once a chunk was sent, Upload sends reset: true for the
// stream and reports in the result whether that worked. SnowLuma's own
// failure frames are returned in the result with no error; everything
// else is an *Error, returned together with the result so far. It holds one
// stream slot and uses the stream timeouts for every call. progress may be
// nil.
func (c *Client) Upload(ctx context.Context, root *UploadRoot, up Upload, progress Progress) (*UploadResult, error) {
	f, err := root.Open(up.InputFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if up.Retention != nil && !jsonscan.IsNumber(up.Retention) {
		return nil, &Error{Kind: outcome.KindProtocol, Op: uploadAction, Err: errors.New("file_retention is not a JSON number; nothing was sent")}
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{Kind: outcome.KindLocalIO, Op: uploadAction, Err: fmt.Errorf("reading input_file: %w", err)}
	}
	size, limit := fi.Size(), orDefault(up.MaxFileBytes, DefaultMaxFileBytes)
	if size > limit {
		return nil, &Error{Kind: outcome.KindTooLarge, Op: uploadAction, Err: fmt.Errorf("input_file is %d bytes, more than the %d-byte file size limit (SNOWLUMA_MCP_MAX_FILE_BYTES); nothing was sent", size, limit)}
	}
	name := up.Filename
	if name == "" {
		name = filepath.Base(up.InputFile)
	}
	u := &uploader{c: c, up: up, f: f, size: size, name: name, progress: progress}
	if u.chunkSize = u.fittingChunk(); u.chunkSize < 1 {
		return nil, c.fail(uploadAction, 0, outcome.KindTooLarge, &bodyLimitError{limit: c.maxBody})
	}
	u.chunks = max((size+u.chunkSize-1)/u.chunkSize, 1) // an empty file is one empty chunk
	release, err := c.acquire(uploadAction)
	if err != nil {
		return nil, err
	}
	defer release()

	if u.sum, err = hashFile(ctx, f, size); err != nil {
		return nil, c.localFailure(ctx, "reading input_file", err)
	}
	if u.id, err = newStreamID(); err != nil {
		return nil, &Error{Kind: outcome.KindLocalIO, Op: uploadAction, Err: err}
	}
	u.res = &UploadResult{Sent: Sent{InputFile: up.InputFile, SHA256: u.sum, StreamID: u.id}}
	err = u.run(ctx)
	if err != nil || (!u.res.Completed && u.started) {
		u.reset(ctx)
	}
	return u.res, err
}

// hashFile returns the hex SHA-256 of the first size bytes of f and leaves
// f at its start.
func hashFile(ctx context.Context, f *os.File, size int64) (string, error) {
	h := sha256.New()
	buf := make([]byte, min(max(size, 1), UploadChunkBytes))
	if err := copyChecked(ctx, h, io.LimitReader(f, size), buf); err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyChecked copies r to w through buf, checking ctx between reads.
func copyChecked(ctx context.Context, w io.Writer, r io.Reader, buf []byte) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		w.Write(buf[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// localFailure classifies a failure while reading the input file.
func (c *Client) localFailure(ctx context.Context, doing string, err error) *Error {
	if ctx.Err() != nil {
		return c.failure(ctx, ctx, uploadAction, 0, doing, ctx.Err())
	}
	return &Error{Kind: outcome.KindLocalIO, Op: uploadAction, Err: fmt.Errorf("%s: %w", doing, err)}
}

// placeholderID has the length of every id newStreamID chooses.
const placeholderID = "snowluma-mcp-000000000000000000000000"

// newStreamID chooses a stream id SnowLuma accepts ([A-Za-z0-9_-], at most
// 128 characters) that no other upload will choose.
func newStreamID() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("choosing a stream id: %w", err)
	}
	return "snowluma-mcp-" + hex.EncodeToString(b), nil
}

// uploader is the state of one running upload.
type uploader struct {
	c         *Client
	up        Upload
	f         *os.File
	size      int64
	sum       string
	id        string
	name      string
	chunks    int64
	chunkSize int64 // bytes of file data in each chunk but the last
	progress  Progress
	res       *UploadResult
	started   bool // a chunk call was attempted
}

// ack is the part of an upload answer's data that is checked.
type ack struct {
	Type           string      `json:"type"`
	StreamID       string      `json:"stream_id"`
	Status         string      `json:"status"`
	ReceivedChunks json.Number `json:"received_chunks"`
	TotalChunks    json.Number `json:"total_chunks"`
	FileSize       json.Number `json:"file_size"`
	SHA256         string      `json:"sha256"`
	FilePath       string      `json:"file_path"`
}

func (u *uploader) run(ctx context.Context) error {
	h := sha256.New()
	chunk := make([]byte, min(u.size, u.chunkSize))
	var b64 []byte
	var sent int64
	for i := range u.chunks {
		n := min(u.size-sent, u.chunkSize)
		if _, err := io.ReadFull(u.f, chunk[:n]); err != nil {
			return u.c.localFailure(ctx, "reading input_file (it may have shrunk)", err)
		}
		h.Write(chunk[:n])
		if i == u.chunks-1 {
			if err := u.unchanged(h); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return u.c.failure(ctx, ctx, uploadAction, 0, "sending the upload", err)
		}
		b64 = base64.StdEncoding.AppendEncode(b64[:0], chunk[:n])
		u.started = true
		f, a, err := u.send(ctx, u.body(i, b64))
		if err != nil || f.Status == "failed" || f.Type == "error" {
			return err
		}
		if a.Type != "stream" || a.Status != "chunk_received" || a.StreamID != u.id ||
			a.ReceivedChunks.String() != strconv.FormatInt(i+1, 10) || a.TotalChunks.String() != strconv.FormatInt(u.chunks, 10) {
			return u.c.fail(uploadAction, 0, outcome.KindProtocol, fmt.Errorf(
				"chunk %d of %d was not acknowledged (expected chunk_received with %d of %d chunks for stream %s, got type %q, status %q)",
				i, u.chunks, i+1, u.chunks, u.id, a.Type, a.Status))
		}
		sent += n
		u.res.Sent.Bytes = sent
		u.res.Sent.Chunks = i + 1
		if u.progress != nil {
			u.progress(sent, u.size)
		}
	}
	return u.merge(ctx)
}

// send posts one upload call and decodes its answer. A failed frame from
// SnowLuma becomes the result's Terminal, with no error.
func (u *uploader) send(ctx context.Context, body []byte) (Frame, ack, error) {
	f, err := u.c.callFrame(ctx, Request{Action: uploadAction, Header: u.up.Header}, body)
	if err != nil {
		return f, ack{}, err
	}
	var a ack
	if len(f.Data) > 0 && f.Data[0] == '{' {
		json.Unmarshal(f.Data, &a) // a data object of another shape fails the caller's checks
	}
	if f.Status == "failed" || f.Type == "error" {
		u.res.Terminal = f
	}
	return f, a, nil
}

// merge sends the call without chunk_data that makes SnowLuma join the
// chunks and check the hash, and checks its file_complete answer.
func (u *uploader) merge(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return u.c.failure(ctx, ctx, uploadAction, 0, "sending the upload", err)
	}
	body := []byte(`{"action":"` + uploadAction + `","params":{"stream_id":"` + u.id + `","is_complete":true` +
		`,"file_size":` + strconv.FormatInt(u.size, 10) + `,"expected_sha256":"` + u.sum + `"}}`)
	f, a, err := u.send(ctx, body)
	if err != nil || f.Status == "failed" || f.Type == "error" {
		return err
	}
	if a.Type != "response" || a.Status != "file_complete" {
		return u.c.fail(uploadAction, 0, outcome.KindProtocol, fmt.Errorf("the merge call was not answered with file_complete (got type %q, status %q)", a.Type, a.Status))
	}
	if a.StreamID != "" && a.StreamID != u.id {
		return u.c.fail(uploadAction, 0, outcome.KindProtocol, fmt.Errorf("SnowLuma merged stream %q, not %s", a.StreamID, u.id))
	}
	if !strings.EqualFold(a.SHA256, u.sum) {
		return u.c.fail(uploadAction, 0, outcome.KindProtocol, fmt.Errorf("SnowLuma's merged file has SHA-256 %q, not the %s that was sent", a.SHA256, u.sum))
	}
	if a.FileSize != "" && a.FileSize.String() != strconv.FormatInt(u.size, 10) {
		return u.c.fail(uploadAction, 0, outcome.KindProtocol, fmt.Errorf("SnowLuma's merged file has %s bytes, not the %d that were sent", a.FileSize, u.size))
	}
	u.res.Completed = true
	u.res.Terminal = f
	return nil
}

// unchanged checks, before the last chunk goes, that the bytes read for
// sending hash to what was announced.
func (u *uploader) unchanged(h hash.Hash) error {
	if hex.EncodeToString(h.Sum(nil)) != u.sum {
		return &Error{Kind: outcome.KindLocalIO, Op: uploadAction, Err: errors.New("input_file changed while it was being sent")}
	}
	return nil
}

// fittingChunk is the most file bytes one chunk call may carry with its
// base64 and the JSON around it under the request body limit: the framing
// is measured with the widest index and total there can be, and the hash
// and stream id at their fixed lengths.
func (u *uploader) fittingChunk() int64 {
	saved := *u
	u.chunks, u.sum, u.id = math.MaxInt64, strings.Repeat("0", sha256.Size*2), placeholderID
	framing := int64(len(u.body(math.MaxInt64, nil)))
	*u = saved
	return min(UploadChunkBytes, (u.c.maxBody-framing)/4*3)
}

// body builds the request of chunk i with its base64 data. It is written
// by hand: the chunk is already safe JSON text, and a 1 MiB string through
// encoding/json would be scanned twice more for nothing.
func (u *uploader) body(i int64, b64 []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(b64) + 512 + len(u.name))
	b.WriteString(`{"action":"` + uploadAction + `","params":{"stream_id":"` + u.id + `"`)
	b.WriteString(`,"chunk_index":` + strconv.FormatInt(i, 10))
	b.WriteString(`,"total_chunks":` + strconv.FormatInt(u.chunks, 10))
	b.WriteString(`,"file_size":` + strconv.FormatInt(u.size, 10))
	b.WriteString(`,"expected_sha256":"` + u.sum + `"`)
	name, _ := json.Marshal(u.name) // a string always encodes
	b.WriteString(`,"filename":`)
	b.Write(name)
	if u.up.Retention != nil {
		b.WriteString(`,"file_retention":`)
		b.Write(u.up.Retention)
	}
	b.WriteString(`,"chunk_data":"`)
	b.Write(b64)
	b.WriteString(`"}}`)
	return b.Bytes()
}

// reset asks SnowLuma to drop the stream, on a context that outlives a
// cancelled call but not by more than resetTimeout.
func (u *uploader) reset(ctx context.Context) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resetTimeout)
	defer cancel()
	body := []byte(`{"action":"` + uploadAction + `","params":{"stream_id":"` + u.id + `","reset":true}}`)
	f, err := u.c.callFrame(rctx, Request{Action: uploadAction, Header: u.up.Header}, body)
	out := &ResetOutcome{}
	if err != nil {
		out.Detail = "the reset failed: " + err.Error()
	} else {
		var e struct {
			Wording string `json:"wording"`
			Message string `json:"message"`
		}
		json.Unmarshal(f.Raw, &e)
		out.Detail = e.Wording
		if out.Detail == "" {
			out.Detail = e.Message
		}
		out.Confirmed = strings.Contains(strings.ToLower(out.Detail), "reset completed")
	}
	u.res.Reset = out
}
