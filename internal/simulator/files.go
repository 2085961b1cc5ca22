package simulator

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// uploadAction is SnowLuma's upload stream action.
const uploadAction = "upload_file_stream"

// Download chunk sizes: SnowLuma's default, and its cap on a requested one.
const (
	defaultChunkSize = 64 << 10
	maxChunkSize     = 16 << 20
)

// File is a file the fake streams to download_file_stream and its image
// and record variants, given its id as file or file_id.
type File struct {
	// Name is the file_name the frames carry; hostile names are welcome.
	Name string
	// Size and Seed make the content: the first Size bytes of
	// Content(Seed, Size), generated while streaming, never held whole.
	Size int64
	Seed uint64
	// UnknownSize announces file_size 0, as SnowLuma does for a URL without
	// a length.
	UnknownSize bool
	// Data, when not nil, is the content instead of Size bytes of Seed's:
	// the world's sample files and the files uploaded into it.
	Data []byte
	// Path, when set, is a file on this host whose bytes are the content
	// (a merged upload, which a world streams from the stream directory).
	Path string
	// Stall, when set, stops the stream after StallAfter chunks with the
	// body left open until the client goes away.
	Stall      bool
	StallAfter int
}

// Content returns the bytes of a File: size bytes generated from seed. A
// test computes a download's expected hash from it, and writes files to
// upload with it. The bytes are an AES-CTR key stream: assembly, so that
// tests under the race detector still generate hundreds of MB quickly.
func Content(seed uint64, size int64) io.Reader {
	var key [16]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic(err) // a 16-byte key is always accepted
	}
	return &keyStream{ctr: cipher.NewCTR(block, make([]byte, aes.BlockSize)), left: size}
}

// keyStream reads a cipher's key stream, left bytes long.
type keyStream struct {
	ctr  cipher.Stream
	left int64
}

func (k *keyStream) Read(p []byte) (int, error) {
	if k.left <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), k.left)]
	clear(p)
	k.ctr.XORKeyStream(p, p)
	k.left -= int64(len(p))
	return len(p), nil
}

// AddFile makes f downloadable under id.
func (s *Server) AddFile(id string, f File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files.byName[id] = f
}

// Uploaded is a file merged by upload_file_stream.
type Uploaded struct {
	StreamID string
	// Path is the merged file on this host; it lives until the server
	// closes.
	Path   string
	Size   int64
	SHA256 string
}

// Uploads returns the files merged so far, in order.
func (s *Server) Uploads() []Uploaded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Uploaded(nil), s.files.done...)
}

// files is the state of the file stream actions, guarded by Server.mu.
type files struct {
	dir     string // merged uploads and their chunks
	byName  map[string]File
	uploads map[string]*upload // unfinished streams by id
	done    []Uploaded
}

// upload is one unfinished upload stream.
type upload struct {
	total    int
	size     *int64
	sha      string
	filename string
	chunks   map[int]string // index -> file holding its bytes
}

// download streams a registered file: file_info, its chunks, file_complete.
func (s *Server) download(params json.RawMessage) Reply {
	var p struct {
		File      string      `json:"file"`
		FileID    string      `json:"file_id"`
		ChunkSize json.Number `json:"chunk_size"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return Failed(1400, "invalid params")
	}
	id := p.File
	if id == "" {
		id = p.FileID
	}
	var f File
	if s.world != nil {
		var why string
		if f, why = s.worldSource(id); why != "" {
			return Reply{Frames: [][]byte{StreamError(100, why)}}
		}
	} else {
		s.mu.Lock()
		found, ok := s.files.byName[id]
		s.mu.Unlock()
		if !ok {
			found, ok = s.mediaFile(id)
		}
		if !ok {
			return Reply{Frames: [][]byte{StreamError(1404, "file not found")}}
		}
		f = found
	}
	chunk := defaultChunkSize
	if p.ChunkSize != "" {
		n, err := strconv.Atoi(p.ChunkSize.String())
		if err != nil || n < 1 {
			return Reply{Frames: [][]byte{StreamError(1400, "invalid chunk_size")}}
		}
		chunk = min(n, maxChunkSize)
	}
	var content io.Reader
	switch {
	case f.Path != "":
		st, err := os.Stat(f.Path)
		if err != nil || !st.Mode().IsRegular() {
			return Reply{Frames: [][]byte{StreamError(100, "file not found (expected a stream-dir path, an http(s) URL, or a cached image/voice id)")}}
		}
		f.Size = st.Size()
	case f.Data != nil:
		f.Size = int64(len(f.Data))
		content = bytes.NewReader(f.Data)
	default:
		content = Content(f.Seed, f.Size)
	}
	return Reply{Produce: func(ctx context.Context, emit func([]byte) bool) {
		announced := f.Size
		if f.UnknownSize {
			announced = 0
		}
		info, _ := json.Marshal(map[string]any{"type": "stream", "data_type": "file_info",
			"file_name": f.Name, "file_size": announced, "chunk_size": chunk})
		if !emit(StreamOK(json.RawMessage(info))) {
			return
		}
		r := content
		if f.Path != "" {
			file, err := os.Open(f.Path)
			if err != nil {
				emit(StreamError(100, "download failed: the file could not be read"))
				return
			}
			defer file.Close()
			r = file
		}
		buf := make([]byte, chunk)
		var frame []byte
		var sent int64
		index := 0
		for {
			if f.Stall && index == f.StallAfter {
				<-ctx.Done()
				return
			}
			n, err := io.ReadFull(r, buf)
			if n > 0 {
				sent += int64(n)
				progress := 0
				if !f.UnknownSize && f.Size > 0 {
					progress = int(sent * 100 / f.Size)
				}
				frame = chunkFrame(frame[:0], index, buf[:n], progress)
				if !emit(frame) {
					return
				}
				index++
			}
			if err != nil {
				break
			}
		}
		done, _ := json.Marshal(map[string]any{"type": "response", "data_type": "file_complete",
			"file_name": f.Name, "total_chunks": index, "total_bytes": sent, "message": "Download completed"})
		emit(StreamOK(json.RawMessage(done)))
	}}
}

// chunkFrame appends a file_chunk frame for data to dst.
func chunkFrame(dst []byte, index int, data []byte, progress int) []byte {
	b64 := base64.StdEncoding.EncodedLen(len(data))
	dst = append(dst, `{"status":"ok","retcode":0,"stream":"stream-action","data":{"type":"stream","data_type":"file_chunk","index":`...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	dst = append(dst, `,"data":"`...)
	dst = appendBase64(dst, data)
	dst = append(dst, `","size":`...)
	dst = strconv.AppendInt(dst, int64(len(data)), 10)
	dst = append(dst, `,"progress":`...)
	dst = strconv.AppendInt(dst, int64(progress), 10)
	dst = append(dst, `,"base64_size":`...)
	dst = strconv.AppendInt(dst, int64(b64), 10)
	return append(dst, `}}`...)
}

// streamIDPattern is what SnowLuma accepts as a stream id.
var streamIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// one answers a single stream frame.
func one(frame []byte) Reply { return Reply{Frames: [][]byte{frame}} }

// upload follows SnowLuma's upload_file_stream: a call carrying chunk_data
// stores that chunk and is answered chunk_received, the last chunk too, even
// with is_complete on it; a call without chunk_data merges when it has
// is_complete or every chunk is written, and otherwise answers file_created.
// Metadata (expected_sha256, file_size) may come on any call. A merge with a
// chunk missing or a hash mismatch is a failed frame that leaves the stream
// as it was, for a reset or another try.
func (s *Server) upload(params json.RawMessage) Reply {
	var p struct {
		StreamID       string  `json:"stream_id"`
		ChunkData      *string `json:"chunk_data"`
		ChunkIndex     *int    `json:"chunk_index"`
		TotalChunks    *int    `json:"total_chunks"`
		FileSize       *int64  `json:"file_size"`
		ExpectedSHA256 *string `json:"expected_sha256"`
		Filename       string  `json:"filename"`
		IsComplete     bool    `json:"is_complete"`
		Reset          bool    `json:"reset"`
		VerifyOnly     bool    `json:"verify_only"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return one(StreamError(1400, "invalid params"))
	}
	if !streamIDPattern.MatchString(p.StreamID) {
		return one(StreamError(1200, "invalid stream_id (allowed: 1-128 chars of A-Z a-z 0-9 _ -)"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.files.uploads[p.StreamID]
	if p.Reset {
		s.files.drop(p.StreamID)
		return one(StreamError(1200, "Stream reset completed"))
	}
	if p.VerifyOnly {
		if st == nil {
			return one(StreamError(1200, "stream not found"))
		}
		return one(statusFrame(p.StreamID, st, "file_created"))
	}
	if st == nil {
		if p.TotalChunks == nil || *p.TotalChunks < 1 {
			return one(StreamError(1200, "total_chunks required for new stream"))
		}
		st = &upload{total: *p.TotalChunks, filename: p.Filename, chunks: map[int]string{}}
		s.files.uploads[p.StreamID] = st
	}
	if p.FileSize != nil {
		st.size = p.FileSize
	}
	if p.ExpectedSHA256 != nil {
		st.sha = *p.ExpectedSHA256
	}
	if p.ChunkData != nil && p.ChunkIndex != nil {
		i := *p.ChunkIndex
		if i < 0 || i >= st.total {
			return one(StreamError(1200, fmt.Sprintf("invalid chunk index: %d", i)))
		}
		if _, dup := st.chunks[i]; dup {
			return one(statusFrame(p.StreamID, st, "chunk_received"))
		}
		data, err := base64.StdEncoding.DecodeString(*p.ChunkData)
		if err != nil {
			return one(StreamError(1200, "chunk_data is not base64"))
		}
		path := filepath.Join(s.files.dir, fmt.Sprintf("%s.chunk%d", p.StreamID, i))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return one(StreamError(1200, "could not store the chunk"))
		}
		st.chunks[i] = path
		return one(statusFrame(p.StreamID, st, "chunk_received"))
	}
	if p.IsComplete || len(st.chunks) == st.total {
		return s.merge(p.StreamID, st)
	}
	return one(statusFrame(p.StreamID, st, "file_created"))
}

// dots is a run of two or more dots, a traversal token in a file name.
var dots = regexp.MustCompile(`\.\.+`)

// safeFilename makes a client's filename safe as SnowLuma does: separators
// and runs of dots become "_", leading dots go, and an empty result is
// upload_<id>.
func safeFilename(name, id string) string {
	name = strings.NewReplacer("/", "_", "\\", "_").Replace(name)
	name = dots.ReplaceAllString(name, "_")
	name = strings.TrimSpace(strings.TrimLeft(name, "."))
	if name == "" {
		return "upload_" + id
	}
	return name
}

// statusFrame is an upload stream's state as SnowLuma reports it.
func statusFrame(id string, st *upload, status string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "stream", "stream_id": id, "status": status,
		"received_chunks": len(st.chunks), "total_chunks": st.total})
	return StreamOK(json.RawMessage(b))
}

// drop forgets an unfinished stream and removes its chunks. s.mu is held.
func (f *files) drop(id string) {
	if st := f.uploads[id]; st != nil {
		for _, path := range st.chunks {
			os.Remove(path)
		}
		delete(f.uploads, id)
	}
}

// merge joins a stream's chunks in order into one file and checks its hash,
// as SnowLuma does at completion; file_size is reported, not checked. On
// success the stream is forgotten and its chunks removed; on failure it is
// kept as it was. s.mu is held.
func (s *Server) merge(id string, st *upload) Reply {
	if len(st.chunks) != st.total {
		return one(StreamError(1200, fmt.Sprintf("incomplete stream: missing %d chunk(s)", st.total-len(st.chunks))))
	}
	path := filepath.Join(s.files.dir, id+"__"+safeFilename(st.filename, id))
	out, err := os.Create(path)
	if err != nil {
		return one(StreamError(1200, "could not create the merged file"))
	}
	defer out.Close()
	h := sha256.New()
	var n int64
	for i := range st.total {
		in, err := os.Open(st.chunks[i])
		if err != nil {
			return one(StreamError(1200, "could not read a chunk"))
		}
		k, err := io.Copy(io.MultiWriter(out, h), in)
		in.Close()
		if err != nil {
			return one(StreamError(1200, "could not merge the chunks"))
		}
		n += k
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if st.sha != "" && st.sha != sum {
		os.Remove(path)
		return one(StreamError(1200, fmt.Sprintf("sha256 mismatch (expected %s, got %s)", st.sha, sum)))
	}
	s.files.drop(id)
	s.files.done = append(s.files.done, Uploaded{StreamID: id, Path: path, Size: n, SHA256: sum})
	b, _ := json.Marshal(map[string]any{"type": "response", "stream_id": id, "status": "file_complete",
		"received_chunks": st.total, "total_chunks": st.total, "file_path": path, "file_size": n, "sha256": sum})
	return one(StreamOK(json.RawMessage(b)))
}

// withoutChunkData replaces an upload call's chunk_data by its length.
func withoutChunkData(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	d, ok := m["chunk_data"]
	if !ok {
		return params
	}
	m["chunk_data"] = json.RawMessage(strconv.Quote(fmt.Sprintf("<%d bytes>", len(d)-2)))
	b, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return b
}
