package transfer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/jsonscan"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// Saved describes a download saved to disk. It never holds file bytes.
type Saved struct {
	// Path is the saved file's absolute path on the MCP host.
	Path string `json:"path"`
	// FileName is the file's name in the download directory: SnowLuma's
	// name sanitised, with a numeric suffix when that name was taken.
	FileName string `json:"file_name"`
	Bytes    int64  `json:"bytes"`
	// SHA256 is the lower-case hex SHA-256 of the saved bytes.
	SHA256 string `json:"sha256"`
	Chunks int64  `json:"chunks"`
}

// DownloadResult is the outcome of a download that SnowLuma finished:
// either a saved file, or (Saved nil) SnowLuma's failure frame.
type DownloadResult struct {
	Saved    *Saved
	Terminal Frame
}

// Progress receives a transfer's progress: done counts decoded bytes
// written (downloads), bytes acknowledged (uploads) or frames accepted
// (generic streams); total is the size when a positive one is known, else 0.
// It is called on the transfer's goroutine and must not block for long.
type Progress func(done, total int64)

// Download runs req, one of SnowLuma's download stream actions, and saves
// the file it streams into store. Each chunk is decoded and written as it
// arrives, so memory stays flat whatever the size; the chunk order, the
// announced size and the final totals are checked; the file size limit and
// the directory's quota are enforced before each write. The file is written
// to a hidden partial file and renamed into place (under a sanitised,
// unique name) only once the terminal frame confirms it; any failure,
// limit, timeout or cancellation removes the partial file.
//
// When SnowLuma ends the stream with a failure frame, Download returns that
// frame with Saved nil and no error. Every other problem is an *Error. It
// holds one stream slot and uses the stream timeouts, like Stream; it never
// retries. progress may be nil.
func (c *Client) Download(ctx context.Context, req Request, store *Store, progress Progress) (*DownloadResult, error) {
	return c.download(ctx, req, store, progress, "")
}

// download is Download with known, the file's own name when the caller
// knows it: it is used when SnowLuma's name has no extension (SnowLuma
// names a link's download after the link's last path segment).
func (c *Client) download(ctx context.Context, req Request, store *Store, progress Progress, known string) (*DownloadResult, error) {
	release, err := c.acquire(req.Action)
	if err != nil {
		return nil, err
	}
	defer release()
	body, err := requestBody(req)
	if err != nil {
		return nil, err
	}
	s, err := c.open(ctx, req, body, store.bodyLimit())
	if err != nil {
		return nil, err
	}
	defer s.close()
	if !s.framed() {
		f, err := s.single()
		if err != nil {
			return nil, err
		}
		if !failed(f) {
			return nil, s.fail(outcome.KindProtocol, errors.New("SnowLuma answered a download with one envelope instead of file frames"))
		}
		return &DownloadResult{Terminal: f}, nil
	}

	d := &download{ctx: ctx, s: s, store: store, hash: sha256.New(), progress: progress, known: known}
	defer d.discard()
	fr := NewFrameReader(s.body, DefaultMaxFrameBytes)
	for {
		raw, err := fr.view() // valid until the next read: nothing keeps it
		if err == io.EOF && ctx.Err() != nil {
			// A cancelled call can see the body end cleanly.
			return nil, s.readFailure(ctx.Err(), "the download was interrupted")
		}
		if err == io.EOF {
			return nil, s.fail(outcome.KindStreamFailed, errors.New("stream ended before its final frame"))
		}
		if err != nil {
			return nil, s.readFailure(err, "connection lost during the download")
		}
		f, err := parseDownloadFrame(raw)
		if err != nil && ctx.Err() != nil {
			// Cut inside a frame by the cancellation, not SnowLuma's mistake.
			return nil, s.readFailure(ctx.Err(), "the download was interrupted")
		}
		if err != nil {
			return nil, s.fail(outcome.KindProtocol, err)
		}
		if f.Terminal {
			// The terminal frame outlives the reader: it goes in the result.
			if f, err = parseDownloadFrame(bytes.Clone(raw)); err != nil {
				return nil, s.fail(outcome.KindProtocol, err)
			}
			if failed(f.Frame) {
				return &DownloadResult{Terminal: f.Frame}, nil
			}
			saved, err := d.finish(f)
			if err != nil {
				return nil, err
			}
			return &DownloadResult{Saved: saved, Terminal: f.Frame}, nil
		}
		if f.Type != "stream" {
			continue
		}
		switch f.dataType {
		case "file_info":
			err = d.info(f)
		case "file_chunk":
			err = d.chunk(f)
		}
		// Other intermediate frames carry nothing to save.
		if err != nil {
			return nil, err
		}
	}
}

// failed reports a terminal frame that is not SnowLuma's confirmation.
func failed(f Frame) bool {
	return f.Status != "ok" || f.Retcode != "0" || f.Type != "response"
}

// download is the state of one running download.
type download struct {
	ctx      context.Context
	s        *openStream
	store    *Store
	progress Progress

	announced bool
	size      int64 // file_size from file_info; 0 when unknown
	name      string
	known     string   // the file's own name, when the caller knows it
	file      *os.File // the partial file; nil before file_info and once saved
	written   int64
	chunks    int64
	reserved  int64
	hash      hash.Hash
	buf       []byte
}

// info handles file_info: the limits are checked against the announced
// size before anything is written, then the partial file is created.
func (d *download) info(f downloadFrame) error {
	if d.announced {
		return d.s.fail(outcome.KindProtocol, errors.New("a second file_info frame"))
	}
	d.announced = true
	d.size = f.fileSize
	if d.size < 0 {
		return d.s.fail(outcome.KindProtocol, errors.New("file_info announces a negative file_size"))
	}
	d.name = f.fileName
	if d.size > d.store.maxFile {
		return d.s.fail(outcome.KindTooLarge, fmt.Errorf("the file is %d bytes, more than the %d-byte file size limit (SNOWLUMA_MCP_MAX_FILE_BYTES); nothing was saved", d.size, d.store.maxFile))
	}
	ok, free, err := d.store.fits(d.size)
	if err != nil {
		return d.s.fail(outcome.KindLocalIO, fmt.Errorf("reading the download directory: %w", err))
	}
	if !ok {
		return d.quota(d.size, free)
	}
	if d.file, err = d.store.create(); err != nil {
		return d.s.fail(outcome.KindLocalIO, fmt.Errorf("creating a file in the download directory: %w", err))
	}
	return nil
}

// quota reports that n more bytes do not fit.
func (d *download) quota(n, free int64) error {
	return d.s.fail(outcome.KindQuota, fmt.Errorf("%d more bytes do not fit in the download directory's %d-byte quota (SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES; %d bytes free); nothing was kept", n, d.store.quota, max(free, 0)))
}

// chunk decodes, checks and writes one file_chunk.
func (d *download) chunk(f downloadFrame) error {
	if d.file == nil {
		return d.s.fail(outcome.KindProtocol, errors.New("a file_chunk frame before file_info"))
	}
	if !f.hasIndex || f.index != d.chunks {
		return d.s.fail(outcome.KindProtocol, fmt.Errorf("chunk %d arrived where chunk %d was expected", f.index, d.chunks))
	}
	data, err := d.decode(f.data)
	if err != nil {
		return d.s.fail(outcome.KindProtocol, fmt.Errorf("chunk %d: %w", f.index, err))
	}
	n := int64(len(data))
	if f.hasSize && f.size != n {
		return d.s.fail(outcome.KindProtocol, fmt.Errorf("chunk %d decodes to %d bytes but says size %d", f.index, n, f.size))
	}
	if d.size > 0 && d.written+n > d.size {
		return d.s.fail(outcome.KindProtocol, fmt.Errorf("chunk %d goes past the announced file_size of %d bytes", f.index, d.size))
	}
	if d.written+n > d.store.maxFile {
		return d.s.fail(outcome.KindTooLarge, fmt.Errorf("the file grew past the %d-byte file size limit (SNOWLUMA_MCP_MAX_FILE_BYTES); nothing was saved", d.store.maxFile))
	}
	if ok, free := d.store.reserve(n); !ok {
		return d.quota(n, free)
	}
	d.reserved += n
	// Cancellation reaches the write too, not only the reads.
	if err := d.ctx.Err(); err != nil {
		return d.s.readFailure(err, "writing the download")
	}
	if _, err := d.file.Write(data); err != nil {
		return d.s.fail(outcome.KindLocalIO, fmt.Errorf("writing the download: %w", err))
	}
	d.hash.Write(data)
	d.written += n
	d.chunks++
	if d.progress != nil {
		d.progress(d.written, d.size)
	}
	return nil
}

// decode decodes a chunk's base64 string token into a buffer reused from
// chunk to chunk.
func (d *download) decode(tok []byte) ([]byte, error) {
	if len(tok) < 2 || tok[0] != '"' {
		return nil, errors.New("data is not a base64 string")
	}
	text := tok[1 : len(tok)-1]
	if bytes.IndexByte(text, '\\') >= 0 {
		// Escapes such as \/ are valid JSON; take the slow path.
		var v string
		if err := json.Unmarshal(tok, &v); err != nil {
			return nil, errors.New("data is not a valid JSON string")
		}
		text = []byte(v)
	}
	need := base64.StdEncoding.DecodedLen(len(text))
	if cap(d.buf) < need {
		d.buf = make([]byte, need)
	}
	n, err := base64.StdEncoding.Decode(d.buf[:need], text)
	if err != nil {
		return nil, errors.New("data is not valid base64")
	}
	return d.buf[:n], nil
}

// finish checks the terminal frame against what arrived and saves the file.
func (d *download) finish(f downloadFrame) (*Saved, error) {
	switch {
	case f.dataType != "file_complete":
		return nil, d.s.fail(outcome.KindProtocol, fmt.Errorf("the final frame is %q, not file_complete", f.dataType))
	case d.file == nil:
		return nil, d.s.fail(outcome.KindProtocol, errors.New("the stream completed without a file_info frame"))
	case !f.hasTotalChunks || f.totalChunks != d.chunks:
		return nil, d.s.fail(outcome.KindProtocol, fmt.Errorf("file_complete counts %d chunks but %d arrived", f.totalChunks, d.chunks))
	case !f.hasTotalBytes || f.totalBytes != d.written:
		return nil, d.s.fail(outcome.KindProtocol, fmt.Errorf("file_complete counts %d bytes but %d arrived", f.totalBytes, d.written))
	case d.size > 0 && d.written != d.size:
		return nil, d.s.fail(outcome.KindProtocol, fmt.Errorf("file_info announced %d bytes but %d arrived", d.size, d.written))
	}
	name := d.name
	if name == "" {
		name = f.fileName
	}
	tmp := d.file.Name()
	err := d.file.Close()
	if err != nil {
		return nil, d.s.fail(outcome.KindLocalIO, fmt.Errorf("closing the download: %w", err))
	}
	if err := d.ctx.Err(); err != nil {
		return nil, d.s.readFailure(err, "saving the download")
	}
	if d.known != "" && filepath.Ext(SafeName(name)) == "" && filepath.Ext(SafeName(d.known)) != "" {
		// A name a double-click can open, rather than a link's segment.
		name = d.known
	}
	final, err := d.store.commit(tmp, SafeName(name), d.reserved)
	if err != nil {
		return nil, d.s.fail(outcome.KindLocalIO, fmt.Errorf("saving the download: %w", err))
	}
	d.file = nil
	return &Saved{
		Path:     final,
		FileName: filepath.Base(final),
		Bytes:    d.written,
		SHA256:   hex.EncodeToString(d.hash.Sum(nil)),
		Chunks:   d.chunks,
	}, nil
}

// discard removes the partial file unless the download was saved.
func (d *download) discard() {
	if d.file != nil {
		d.store.discard(d.file, d.reserved)
		d.file = nil
	}
}

// downloadFrame is a frame of a download with the fields of its data that
// the download checks.
type downloadFrame struct {
	Frame
	chunkFields
}

// chunkFields are the members of a download frame's data.
type chunkFields struct {
	dataType, fileName                               string
	fileSize, index, size, totalChunks, totalBytes   int64
	hasIndex, hasSize, hasTotalChunks, hasTotalBytes bool
	data                                             []byte // the raw base64 string token
	bad                                              error  // the first member of the wrong type
}

// parseDownloadFrame reads a download frame in one pass over its bytes
// (see members), the envelope and its data object together. It accepts
// what parseFrame accepts, and reads the same envelope fields.
func parseDownloadFrame(raw []byte) (downloadFrame, error) {
	f := downloadFrame{Frame: Frame{Raw: raw}}
	var status, retcode []byte
	var dataIsObject bool
	readData := func(k, v []byte) error {
		var err error
		c := &f.chunkFields
		switch key(k) {
		case "type":
			f.Type, _ = jsonscan.String(v)
		case "data_type":
			c.dataType, _ = jsonscan.String(v)
		case "file_name":
			c.fileName, _ = jsonscan.String(v)
		case "file_size":
			if !bytes.Equal(v, []byte("null")) {
				c.fileSize, err = jsonscan.Int(v)
			}
		case "index":
			c.index, err = jsonscan.Int(v)
			c.hasIndex = true
		case "size":
			c.size, err = jsonscan.Int(v)
			c.hasSize = true
		case "total_chunks":
			c.totalChunks, err = jsonscan.Int(v)
			c.hasTotalChunks = true
		case "total_bytes":
			c.totalBytes, err = jsonscan.Int(v)
			c.hasTotalBytes = true
		case "data":
			c.data = v
		}
		if err != nil && c.bad == nil {
			c.bad = fmt.Errorf("stream frame data.%s is %w", key(k), err)
		}
		return nil
	}
	err := jsonscan.Object(raw, func(k, v []byte) error {
		switch key(k) {
		case "status":
			status = v
		case "retcode":
			retcode = v
		case "data":
			// As with encoding/json, the last "data" wins.
			f.Data = v
			if dataIsObject = v[0] == '{'; !dataIsObject {
				f.Type, f.chunkFields = "", chunkFields{}
			}
		}
		return nil
	}, func(k []byte) jsonscan.Visitor {
		if key(k) != "data" {
			return nil
		}
		f.Type, f.chunkFields = "", chunkFields{}
		return readData
	})
	if err != nil {
		var se *jsonscan.SyntaxError
		if errors.As(err, &se) {
			return f, fmt.Errorf("stream frame is not a valid JSON object (at byte %d)", se.Offset)
		}
		return f, err
	}
	if status == nil {
		return f, errors.New("stream frame has no envelope status")
	}
	var ok bool
	if f.Status, ok = jsonscan.String(status); !ok || f.Status == "" {
		return f, errors.New("stream frame has a status of the wrong type")
	}
	if retcode != nil && !bytes.Equal(retcode, []byte("null")) {
		n := retcode
		if n[0] == '"' {
			v, _ := jsonscan.String(n)
			n = []byte(v)
		}
		if !jsonscan.IsNumber(n) {
			return f, errors.New("stream frame has a retcode of the wrong type")
		}
		f.Retcode = json.Number(n)
	}
	if f.bad != nil {
		return f, f.bad
	}
	f.Terminal = f.Status == "failed" || f.Type == "response" || f.Type == "error"
	return f, nil
}

// frameKeys are the member names the download reads, in their canonical
// spelling.
var frameKeys = []string{"status", "retcode", "data", "type", "data_type", "file_name", "file_size",
	"index", "size", "total_chunks", "total_bytes"}

// key decodes a raw member key token and, as encoding/json does when it
// fills a struct, matches it to a known name without regard to case.
func key(k []byte) string {
	v, _ := jsonscan.String(k)
	for _, name := range frameKeys {
		if v == name {
			return name
		}
	}
	for _, name := range frameKeys {
		if strings.EqualFold(v, name) {
			return name
		}
	}
	return v
}
