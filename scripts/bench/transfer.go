package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// The transfer mode moves one file of -size MiB through the real server
// over stdio, from and to the in-process fake SnowLuma (real loopback HTTP,
// chunked frames), and the same stream with a plain HTTP client and no
// server: read the frames, decode the chunks and write the file; or read
// the file and post the chunks, checking each acknowledgement. It prints
// MB/s (10^6 bytes of file per second), the server's share of the plain
// client's speed, and the server's peak RSS.

// benchTransfer runs the transfer mode with server, the built binary.
func benchTransfer(server string, sizeMiB, runs int) error {
	size := int64(sizeMiB) << 20
	fake, err := simulator.New()
	if err != nil {
		return err
	}
	defer fake.Close()
	fake.AddFile("bench", simulator.File{Name: "bench.bin", Size: size, Seed: 1})
	work, err := os.MkdirTemp("", "snowluma-bench-transfer")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "uploads")
	if err := os.Mkdir(root, 0o700); err != nil {
		return err
	}
	input := filepath.Join(root, "bench.bin")
	f, err := os.Create(input)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, simulator.Content(2, size)); err != nil {
		return err
	}
	f.Close()

	type result struct{ raw, served, rss []float64 }
	var down, up result
	for i := range runs {
		dir := filepath.Join(work, fmt.Sprintf("raw-%d", i))
		os.Mkdir(dir, 0o700)
		d, err := rawChild("download", fake.URL, filepath.Join(dir, "bench.bin"), size)
		if err != nil {
			return fmt.Errorf("raw download: %w", err)
		}
		os.RemoveAll(dir)
		down.raw = append(down.raw, mbps(size, d))

		d, rss, err := serverCall(server, fake.URL, filepath.Join(work, fmt.Sprintf("server-%d", i)), root,
			`{"action":"download_file_stream","params":{"file":"bench"}}`, `"saved"`)
		if err != nil {
			return fmt.Errorf("server download: %w", err)
		}
		os.RemoveAll(filepath.Join(work, fmt.Sprintf("server-%d", i)))
		down.served = append(down.served, mbps(size, d))
		down.rss = append(down.rss, float64(rss)/1024)

		if d, err = rawChild("upload", fake.URL, input, size); err != nil {
			return fmt.Errorf("raw upload: %w", err)
		}
		up.raw = append(up.raw, mbps(size, d))
		d, rss, err = serverCall(server, fake.URL, filepath.Join(work, "dl"), root,
			`{"action":"upload_file_stream","execution":{"input_file":`+strconv.Quote(input)+`}}`, `"sent"`)
		if err != nil {
			return fmt.Errorf("server upload: %w", err)
		}
		up.served = append(up.served, mbps(size, d))
		up.rss = append(up.rss, float64(rss)/1024)
	}
	fmt.Printf("transfer of a %d MiB file, median of %d runs (%s)\n", sizeMiB, runs, time.Now().Format(time.DateOnly))
	fmt.Printf("%-10s %16s %18s %8s %16s\n", "direction", "plain HTTP MB/s", "through server MB/s", "ratio", "server peak RSS MB")
	for _, r := range []struct {
		name string
		res  result
	}{{"download", down}, {"upload", up}} {
		raw, served := median(r.res.raw), median(r.res.served)
		fmt.Printf("%-10s %16.1f %18.1f %7.0f%% %16.1f\n", r.name, raw, served, 100*served/raw, median(r.res.rss))
	}
	return nil
}

func mbps(size int64, d time.Duration) float64 { return float64(size) / 1e6 / d.Seconds() }

// rawChild runs the plain client in a process of its own, as the server
// runs in one, so that neither shares the fake's process: this program
// again with -raw.
func rawChild(direction, url, path string, size int64) (time.Duration, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	out, err := exec.Command(self, "-raw", direction, "-raw-url", url, "-raw-path", path, "-raw-size", strconv.FormatInt(size, 10)).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("plain client said %q", out)
	}
	return time.Duration(ns), nil
}

// runRaw is the child side of rawChild: it prints the duration in ns.
func runRaw(direction, url, path string, size int64) error {
	var d time.Duration
	var err error
	switch direction {
	case "download":
		d, err = rawDownload(url, path)
	case "upload":
		d, err = rawUpload(url, path, size)
	default:
		err = fmt.Errorf("-raw %q: download or upload", direction)
	}
	if err != nil {
		return err
	}
	fmt.Println(d.Nanoseconds())
	return nil
}

// post sends one action to the fake and returns the response.
func post(url, action string, params []byte) (*http.Response, error) {
	body := append([]byte(`{"action":"`+action+`","params":`), params...)
	body = append(body, '}')
	return http.Post(url, "application/json", bytes.NewReader(body))
}

// rawDownload reads the download stream with a plain HTTP client: split
// the frames, decode each chunk's base64 and write it to path.
func rawDownload(url, path string) (time.Duration, error) {
	start := time.Now()
	resp, err := post(url, "download_file_stream", []byte(`{"file":"bench"}`))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	out, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	w := bufio.NewWriterSize(out, 1<<20)
	fr := transfer.NewFrameReader(resp.Body, 0)
	marker := []byte(`"data_type":"file_chunk"`)
	field := []byte(`"data":"`)
	var buf []byte
	for {
		frame, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		if !bytes.Contains(frame, marker) {
			continue
		}
		i := bytes.Index(frame, field) // the chunk's data: the envelope's own data is an object
		if i < 0 {
			return 0, errors.New("a chunk frame without data")
		}
		b64 := frame[i+len(field):]
		b64 = b64[:bytes.IndexByte(b64, '"')]
		buf = buf[:cap(buf)]
		if n := base64.StdEncoding.DecodedLen(len(b64)); n > len(buf) {
			buf = make([]byte, n)
		}
		n, err := base64.StdEncoding.Decode(buf, b64)
		if err != nil {
			return 0, err
		}
		w.Write(buf[:n])
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// rawUpload posts the file in the server's chunk size with a plain HTTP
// client, then the merge call, checking each answer's status.
func rawUpload(url, path string, size int64) (time.Duration, error) {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return 0, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	f.Seek(0, io.SeekStart)
	chunks := (size + transfer.UploadChunkBytes - 1) / transfer.UploadChunkBytes
	buf := make([]byte, transfer.UploadChunkBytes)
	id := "bench-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	for i := range chunks {
		n, err := io.ReadFull(f, buf[:min(size-i*transfer.UploadChunkBytes, transfer.UploadChunkBytes)])
		if err != nil {
			return 0, err
		}
		params := fmt.Sprintf(`{"stream_id":%q,"chunk_index":%d,"total_chunks":%d,"file_size":%d,"expected_sha256":%q,"chunk_data":"%s"}`,
			id, i, chunks, size, sum, base64.StdEncoding.EncodeToString(buf[:n]))
		resp, err := post(url, "upload_file_stream", []byte(params))
		if err != nil {
			return 0, err
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(answer, []byte("chunk_received")) {
			return 0, fmt.Errorf("chunk %d: %.200s", i, answer)
		}
	}
	// SnowLuma merges on a call of its own, without chunk_data.
	resp, err := post(url, "upload_file_stream", fmt.Appendf(nil, `{"stream_id":%q,"is_complete":true}`, id))
	if err != nil {
		return 0, err
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(answer, []byte("file_complete")) {
		return 0, fmt.Errorf("merge: %.200s", answer)
	}
	return time.Since(start), nil
}

// serverCall spawns the server in write mode, sends one 2026-07-28
// invoke_action call with args, waits for its result (which must contain
// want and succeed), and returns the call's duration and the process's
// peak RSS in KiB.
func serverCall(bin, url, downloads, root, args, want string) (time.Duration, int64, error) {
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SNOWLUMA_MCP_ENDPOINT=" + url, "SNOWLUMA_MCP_MODE=write",
		"SNOWLUMA_MCP_DOWNLOAD_DIR=" + downloads, "SNOWLUMA_MCP_UPLOAD_ROOT=" + root}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"invoke_action","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}` + "\n"
	start := time.Now()
	if _, err := io.WriteString(stdin, call); err != nil {
		return 0, 0, err
	}
	line, err := bufio.NewReaderSize(stdout, 1<<20).ReadString('\n')
	elapsed := time.Since(start)
	peak, herr := highWater(cmd.Process.Pid)
	stdin.Close()
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	var m struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err != nil || json.Unmarshal([]byte(line), &m) != nil || m.Result.IsError || !strings.Contains(string(m.Result.StructuredContent), want) {
		return 0, 0, fmt.Errorf("no result (%v): %.300s\n%s", err, line, stderr.String())
	}
	if werr != nil {
		return 0, 0, werr
	}
	if herr != nil {
		return 0, 0, herr
	}
	return elapsed, peak, nil
}

// highWater reads a running process's peak RSS in KiB (VmHWM). The rusage
// of the exited child would not do: on Linux a child forked by this
// program starts on its memory, and exec records that memory's peak as the
// child's, so the figure would be this process's.
func highWater(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, errors.New("peak RSS: no VmHWM in /proc status")
}
