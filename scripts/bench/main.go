// Command bench measures snowluma-mcp against a yardstick, a bare go-sdk
// server built from the same module.
//
// By default it measures cold start: milliseconds from spawning a stdio MCP
// server to its answer to a first tools/list, and the server's peak RSS, in
// docs and in write mode, and prints the medians.
//
// With -samebytes it measures the docs calls (tools/list, search_actions,
// get_action, list_categories, the catalog resource) side by side with a
// bare go-sdk server that answers them with the same bytes (see
// samebytes.go), taking turns, and prints each one's p50, CPU time per
// call and the ratio to the bare server; -before BIN adds a second build
// to the same run, and -typescript CMD the TypeScript SnowLuma MCP server
// (CMD split at spaces, such as "node /path/to/packages/mcp/dist/server.js",
// built outside this repository) for the call kinds it has, with the ratio
// to it.
//
// With -percall it measures each call kind of the running binary over
// stdio (see percall.go): every docs tool, resources/read of the catalog and
// query_action against an in-process fake SnowLuma, sequentially and -width
// wide, printing the server's CPU time per call, p50/p99, calls/s and the
// bytes of each answer. Allocations per call come from the in-process
// benchmarks (go test -bench . ./internal/server). With -transfer it
// measures stream transfers instead (see transfer.go). With -bytes it
// prints what a model reads: the bytes of tools/list per mode and client
// capability set and of each docs call's text, with a token estimate (see
// bytes.go). With -tasks it plays issue 52's six everyday requests against a
// busy simulated account, with the archive and without, and prints each
// task's calls and the bytes a model reads (see tasks.go).
// bytes.go). With -load it times small calls while view_media or an event
// burst keeps the server busy, on one and on two processors (see load.go).
//
//	go run ./scripts/bench [-runs 40]
//	go run ./scripts/bench -samebytes [-n 500] [-rounds 5] [-warm 2000] [-era legacy|modern] [-before BIN] [-typescript CMD]
//	go run ./scripts/bench -percall [-n 500] [-width 64] [-era legacy|modern] [-only REGEXP]
//	go run ./scripts/bench -transfer [-size 256] [-runs 3]
//	go run ./scripts/bench -bytes
//	go run ./scripts/bench -tasks
//	go run ./scripts/bench -load [-n 300] [-era legacy|modern]
//
// -server BIN measures a prebuilt binary (say, of the previous commit)
// instead of building ./cmd/snowluma-mcp.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// listTools is a 2026-07-28 tools/list: no handshake, so the first answer
// the server writes is the tool list.
const listTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"

func main() {
	runs := flag.Int("runs", 40, "spawns per server (transfer mode: runs of each transfer, default 3)")
	transferMode := flag.Bool("transfer", false, "measure a download and an upload through the server against plain HTTP")
	sizeMiB := flag.Int("size", 256, "transfer mode: file size in MiB")
	raw := flag.String("raw", "", "internal: run the plain transfer client (download or upload) and print its duration")
	rawURL := flag.String("raw-url", "", "internal: the fake SnowLuma for -raw")
	rawPath := flag.String("raw-path", "", "internal: the file for -raw")
	rawSize := flag.Int64("raw-size", 0, "internal: the file size for -raw")
	percall := flag.Bool("percall", false, "measure each call kind over stdio instead of cold start")
	same := flag.Bool("samebytes", false, "measure the docs calls side by side with a bare go-sdk server answering the same bytes")
	rounds := flag.Int("rounds", 5, "turns each server takes per call kind (-samebytes)")
	warm := flag.Int("warm", 2000, "calls each server answers of each call kind before the timed rounds (-samebytes)")
	before := flag.String("before", "", "a second snowluma-mcp binary measured alongside (-samebytes), such as a build of the previous commit")
	typeScript := flag.String("typescript", "", "the TypeScript SnowLuma MCP server's command line, split at spaces, measured alongside (-samebytes)")
	tasksMode := flag.Bool("tasks", false, "play six everyday requests against a busy simulated account, with and without the archive, and print what a model reads per task")
	bytesMode := flag.Bool("bytes", false, "print the bytes of tools/list per mode and capability set and of each docs call's text, with token estimates")
	n := flag.Int("n", 500, "sequential calls per call kind (-percall); 4n more run -width wide")
	width := flag.Int("width", 64, "calls in flight in the concurrent run (-percall)")
	era := flag.String("era", "legacy", "protocol era of the per-call client: legacy (initialize) or modern (2026-07-28)")
	only := flag.String("only", "", "measure only the call kinds whose name matches this regular expression (-percall)")
	prebuilt := flag.String("server", "", "measure this snowluma-mcp binary instead of building ./cmd/snowluma-mcp (to compare two builds)")
	loadMode := flag.Bool("load", false, "measure tools/list and search_actions p99 while view_media or an event burst keeps the server busy, on one and two processors (-n calls of each)")
	profile := flag.String("profile", "", "write CPU and allocation profiles of the write-mode server into this directory (-percall)")
	flag.Parse()
	if *era != "legacy" && *era != "modern" {
		log.Fatalf("-era %q: use legacy or modern", *era)
	}
	if *raw != "" {
		if err := runRaw(*raw, *rawURL, *rawPath, *rawSize); err != nil {
			log.Fatal(err)
		}
		return
	}
	dir, err := os.MkdirTemp("", "snowluma-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	build := func(name, pkg string, flags ...string) string {
		out := filepath.Join(dir, name)
		cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", out, pkg)...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatalf("build %s: %v", pkg, err)
		}
		return out
	}
	server := *prebuilt
	if *tasksMode {
		if server == "" {
			server = build("snowluma-mcp", "./cmd/snowluma-mcp")
		}
		if err := benchTasks(server); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *bytesMode {
		if server == "" {
			server = build("snowluma-mcp", "./cmd/snowluma-mcp")
		}
		if err := sizes(server); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *loadMode {
		if server == "" {
			server = build("snowluma-mcp", "./cmd/snowluma-mcp")
		}
		if err := load(server, *n, *era == "modern"); err != nil {
			log.Fatal(err)
		}
		return
	}
	bare := build("bare", "./scripts/bench/bare")
	if server == "" {
		server = build("snowluma-mcp", "./cmd/snowluma-mcp")
	}
	if *same {
		cfg := sameBytesConfig{n: *n, rounds: max(*rounds, 1), warm: *warm, modern: *era == "modern", before: *before, typeScript: strings.Fields(*typeScript)}
		if err := sameBytes(bare, server, cfg); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *percall {
		filter, err := regexp.Compile(*only)
		if err != nil {
			log.Fatalf("-only: %v", err)
		}
		cfg := perCallConfig{n: *n, width: *width, modern: *era == "modern", only: filter}
		if *profile != "" {
			if cfg.profile, err = filepath.Abs(*profile); err != nil {
				log.Fatal(err)
			}
		}
		if *prebuilt == "" {
			// The profile build is the release code plus signal hooks that
			// stay off unless their variables are set: BENCH_ALLOCS for
			// allocations per call, PROFILE_DIR for -profile.
			server = build("snowluma-mcp-profile", "./cmd/snowluma-mcp", "-tags", "profile")
		}
		if *prebuilt == "" {
			cfg.allocsDir = dir // a prebuilt binary has no BENCH_ALLOCS hook
		}
		if err := perCall(bare, server, cfg); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *transferMode {
		n := *runs
		if !isFlagSet("runs") {
			n = 3
		}
		if err := benchTransfer(server, *sizeMiB, n); err != nil {
			log.Fatal(err)
		}
		return
	}

	fmt.Printf("cold start to first tools/list answer, median of %d spawns (%s)\n", *runs, time.Now().Format(time.DateOnly))
	fmt.Printf("%-34s %10s %12s\n", "server", "ms", "peak RSS MB")
	for _, s := range []struct {
		name string
		bin  string
		env  []string
	}{
		{"bare go-sdk server", bare, nil},
		{"snowluma-mcp (docs mode)", server, nil},
		{"snowluma-mcp (write mode)", server, writeMode("http://127.0.0.1:9/", dir)},
		{"snowluma-mcp (write mode, archive)", server, append(writeMode("http://127.0.0.1:9/", dir),
			"SNOWLUMA_MCP_ARCHIVE="+filepath.Join(dir, "archive.db"), "SNOWLUMA_MCP_ARCHIVE_GROUPS=*")},
	} {
		var ms, rss []float64
		for range *runs {
			d, kb, err := once(s.bin, s.env)
			if err != nil {
				log.Fatalf("%s: %v", s.name, err)
			}
			ms = append(ms, float64(d.Microseconds())/1000)
			rss = append(rss, float64(kb)/1024)
		}
		fmt.Printf("%-34s %10.1f %12.1f\n", s.name, median(ms), median(rss))
	}
}

// writeMode is the environment of a write-mode server against endpoint. The
// servers run with no HOME, so downloads go to dir, not a user cache.
func writeMode(endpoint, dir string) []string {
	return []string{"SNOWLUMA_MCP_ENDPOINT=" + endpoint, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_DOWNLOAD_DIR=" + dir}
}

// once spawns bin, sends tools/list, waits for the answer, reads the
// server's peak RSS in KiB, then closes stdin.
func once(bin string, env []string) (time.Duration, int64, error) {
	cmd := exec.Command(bin)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	if _, err := io.WriteString(stdin, listTools); err != nil {
		return 0, 0, err
	}
	line, err := bufio.NewReaderSize(stdout, 1<<20).ReadString('\n')
	elapsed := time.Since(start)
	if err != nil || !strings.Contains(line, `"tools"`) {
		return 0, 0, fmt.Errorf("no tool list (%v): %.200s", err, line)
	}
	rss, err := highWater(cmd.Process.Pid) // the child's rusage would be ours
	if err != nil {
		return 0, 0, err
	}
	stdin.Close()
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return 0, 0, err
	}
	return elapsed, rss, nil
}

// isFlagSet reports whether the command line set flag name.
func isFlagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
