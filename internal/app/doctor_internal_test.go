package app

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/stdio"
	"github.com/snowluma/snowluma-mcp/tasks"
)

// TestDownloadDirPrivacy: the download directory's permission warning is a
// POSIX matter; on Windows, where Go shows every directory as 0777, a
// directory passes and the report says what was checked instead.
func TestDownloadDirPrivacy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		goos    string
		mode    fs.FileMode
		verdict string
		detail  string
	}{
		{"linux", fs.ModeDir | 0o700, verdictOK, "mode 0700"},
		{"linux", fs.ModeDir | 0o755, verdictWarn, "readable by other users (mode 0755)"},
		{"darwin", fs.ModeDir | 0o750, verdictWarn, "mode 0750"},
		{"windows", fs.ModeDir | 0o777, verdictOK, "access list is not read"},
	} {
		v, detail, fix := privacy(lang.En, tc.goos, "/d", tc.mode)
		if v != tc.verdict || !strings.Contains(detail, tc.detail) || (v == verdictWarn) != strings.Contains(fix, "chmod 700") {
			t.Errorf("%s %v: %s %q fix %q", tc.goos, tc.mode, v, detail, fix)
		}
	}
}

// TestDownloadDirPrivacyInChinese: the same judgement, worded in Chinese
// with the mode and the fix.
func TestDownloadDirPrivacyInChinese(t *testing.T) {
	t.Parallel()
	v, detail, fix := privacy(lang.Zh, "linux", "/d", fs.ModeDir|0o755)
	if v != verdictWarn || detail != "/d 可被其他用户读取（权限 0755）；下载的文件可能含有私密内容" || fix != "对它执行 chmod 700" {
		t.Errorf("0755: %s %q fix %q", v, detail, fix)
	}
	if v, detail, _ := privacy(lang.Zh, "linux", "/d", fs.ModeDir|0o700); v != verdictOK || !strings.HasPrefix(detail, "私有（") {
		t.Errorf("0700: %s %q", v, detail)
	}
}

// TestCompareVersions orders SnowLuma's app_version against the catalog's.
func TestCompareVersions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		app, cat string
		want     int
		ok       bool
	}{
		{"1.11.1-node", "1.11.1", 0, true},
		{"v1.10.9", "1.11.1", -1, true},
		{"1.11", "1.11.1", -1, true},
		{"1.11.1.0", "1.11.1", 0, true},
		{"1.12.0+build.5", "1.11.1", 1, true},
		{"2.0.0", "1.11.1", 1, true},
		{"nightly", "1.11.1", 0, false},
		{"1.x", "1.11.1", 0, false},
	} {
		if c, ok := compareVersions(tc.app, tc.cat); c != tc.want || ok != tc.ok {
			t.Errorf("%s vs %s: %d %v", tc.app, tc.cat, c, ok)
		}
	}
}

// TestDoctorNoteFixes: each configuration note comes with the fix that
// answers it, not one general fix for all: an archive without an events
// URL is told how to archive as messages arrive, a short token to set a
// longer one, an ignored mode to set the endpoint; in Chinese too.
func TestDoctorNoteFixes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "XDG_CACHE_HOME=", "SNOWLUMA_MCP_DOWNLOAD_DIR=" + dir,
		"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_TOKEN=3000",
		"SNOWLUMA_MCP_ARCHIVE=" + dir + "/a.db", "SNOWLUMA_MCP_ARCHIVE_GROUPS=*"}
	for _, tc := range []struct {
		l              lang.Lang
		detail, fix    string
		tokDet, tokFix string
	}{
		{lang.En, "no event connection", "set SNOWLUMA_MCP_EVENTS_URL", "SNOWLUMA_MCP_TOKEN has 4 characters", "longer token"},
		{lang.Zh, "没有事件连接", "SNOWLUMA_MCP_EVENTS_URL 设为", "SNOWLUMA_MCP_TOKEN 只有 4 个字符", "更长的令牌"},
	} {
		r := diagnose(t.Context(), append(env, "SNOWLUMA_MCP_LANG="+string(tc.l)), tc.l, false)
		seen := 0
		for _, f := range r.Findings {
			if f.Check != "configuration" || f.Verdict != verdictWarn {
				continue
			}
			switch {
			case strings.Contains(f.Detail, tc.detail):
				seen++
				if !strings.Contains(f.Fix, tc.fix) {
					t.Errorf("%s: %q fixed by %q", tc.l, f.Detail, f.Fix)
				}
			case strings.Contains(f.Detail, tc.tokDet):
				seen++
				if !strings.Contains(f.Fix, tc.tokFix) {
					t.Errorf("%s: %q fixed by %q", tc.l, f.Detail, f.Fix)
				}
			}
			if f.Fix == lang.En.Sprintf(lang.DoctorNoteFix) || f.Fix == lang.Zh.Sprintf(lang.DoctorNoteFix) {
				t.Errorf("%s: %q got the general fix", tc.l, f.Detail)
			}
		}
		if seen != 2 {
			t.Errorf("%s: %d of the two notes in %+v", tc.l, seen, r.Findings)
		}
	}
}

// TestHelp: --help is in the operator's language and no line is wider
// than helpWidth columns (a Chinese character counting two), nor starts
// with the punctuation Chinese never puts first.
func TestHelp(t *testing.T) {
	t.Parallel()
	for l, want := range map[lang.Lang]string{lang.En: "Environment variables", lang.Zh: "环境变量（Windows 上变量名不区分大小写"} {
		var b strings.Builder
		printHelp(&b, l)
		out := b.String()
		if !strings.Contains(out, want) || !strings.Contains(out, "SNOWLUMA_MCP_DOWNLOAD_DIR\n") {
			t.Errorf("%s: lacks %q:\n%.600s", l, want, out)
		}
		// Every variable's default and meaning are in l, wrapped.
		joined := strings.Join(strings.Fields(out), " ")
		for _, v := range config.Variables() {
			v = v.In(l)
			for _, s := range []string{v.Name, l.Sprintf(lang.HelpDefault, v.Shown), v.Meaning} {
				if !strings.Contains(strings.ReplaceAll(joined, " ", ""), strings.ReplaceAll(s, " ", "")) {
					t.Errorf("%s: --help lacks %q", l, s)
				}
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if columns(line) > helpWidth {
				t.Errorf("%s: %d columns: %q", l, columns(line), line)
			}
			if line != "" && strings.ContainsRune(noLineStart, []rune(line)[0]) {
				t.Errorf("%s: a line starts with punctuation: %q", l, line)
			}
		}
	}
	if got := wrap("一二三四五，六七", 10, ""); got != "一二三四\n五，六七" {
		t.Errorf("wrap: %q", got)
	}
}

// TestPosixOr: on Windows, where nothing sets or checks a POSIX
// permission, doctor's lines name none.
func TestPosixOr(t *testing.T) {
	t.Parallel()
	for _, m := range [][2]lang.Message{{lang.DoctorDirWillCreate, lang.DoctorDirWillCreateWindows}, {lang.DoctorAuditOK, lang.DoctorAuditOKWindows}, {lang.DoctorArchiveNew, lang.DoctorArchiveNewWindows}} {
		for _, l := range []lang.Lang{lang.En, lang.Zh} {
			posix, windows := l.Sprintf(posixOr("linux", m[0], m[1]), "/x"), l.Sprintf(posixOr("windows", m[0], m[1]), `C:\x`)
			if !strings.Contains(posix, "0") || strings.ContainsAny(windows, "0") {
				t.Errorf("%s %s: posix %q, windows %q", l, m[0], posix, windows)
			}
		}
	}
}

// TestSecondServerInChinese: a task folder or archive another server
// holds is reported in the operator's language, naming who holds it.
func TestSecondServerInChinese(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tasksDir := filepath.Join(dir, "tasks")
	env := []string{"HOME=" + dir, "SNOWLUMA_MCP_DOWNLOAD_DIR=" + dir, "SNOWLUMA_MCP_LANG=zh",
		"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR=" + tasksDir}
	cfg, err := config.Load(env)
	if err != nil {
		t.Fatal(err)
	}
	held, err := tasks.Open(tasksDir, backend.TaskScope(cfg), tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	r := diagnose(t.Context(), env, lang.Zh, false)
	var detail string
	for _, f := range r.Findings {
		if f.Check == "task directory" {
			detail = f.Detail
		}
	}
	want := regexp.MustCompile(`^任务文件夹 .+ 正被 snowluma-mcp 进程 \d+（\S+ 起）使用：请停掉那个服务器`)
	if !want.MatchString(detail) {
		t.Errorf("task directory: %q", detail)
	}
	if got := tasksInUse(lang.Zh, &tasks.InUseError{Dir: "D"}); got != "任务文件夹 D 正被另一个进程使用：请停掉那个服务器，或给这个服务器另设一个 SNOWLUMA_MCP_TASK_DIR" {
		t.Errorf("no record: %q", got)
	}
}

// TestArchiveHeldSaidOnce: a second server on the same archive file tells
// its operator once, in the operator's language, why its archive tools are
// off: as the process starts, the backend opened and the server built.
func TestArchiveHeldSaidOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "归档", "archive.db")
	held, err := archive.Open(t.Context(), archive.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, tc := range []struct{ lang, want string }{
		{"zh", "snowluma-mcp: 消息归档 " + path + " 正被另一个 snowluma-mcp 进程使用"},
		{"en", "snowluma-mcp: the archive " + path + " is in use by another snowluma-mcp process"},
	} {
		cfg, err := config.Load([]string{"HOME=" + dir, "SNOWLUMA_MCP_DOWNLOAD_DIR=" + dir, "SNOWLUMA_MCP_LANG=" + tc.lang,
			"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_ARCHIVE=" + path, "SNOWLUMA_MCP_ARCHIVE_GROUPS=*"})
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		b, _ := openBackend(cfg, &stderr)
		if b == nil {
			t.Fatalf("no backend: %s", stderr.String())
		}
		tr := stdio.New(strings.NewReader(""), io.Discard, stdio.Options{})
		_, _, _, err = newServer(cfg, b, nil, tr, catalog.Load, &stderr, io.Discard)
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := stderr.String(); !strings.Contains(got, tc.want) || strings.Count(got, path) != 1 {
			t.Errorf("%s: stderr %q, want %q said once", tc.lang, got, tc.want)
		}
	}
}

// TestCheckNamesInChinese: every check doctor reports (each Check: "…" in
// this package's sources) has its name in Chinese.
func TestCheckNamesInChinese(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	check := regexp.MustCompile(`Check: "([a-z ]+)"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range check.FindAllStringSubmatch(string(b), -1) {
			seen++
			if name := checkName(lang.Zh, m[1]); name == m[1] {
				t.Errorf("%s: the check %q has no Chinese name (checkName in doctor.go)", f, m[1])
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found %d checks in the sources: the pattern no longer matches them", seen)
	}
}

// TestEventsFixInChinese: when the event connection cannot be opened, a
// Chinese operator's fix is in Chinese (the connection's own next step is
// written for a model, in English); the English report keeps that step.
func TestEventsFixInChinese(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, l := range []lang.Lang{lang.Zh, lang.En} {
		cfg, err := config.Load([]string{"HOME=" + dir, "SNOWLUMA_MCP_DOWNLOAD_DIR=" + dir, "SNOWLUMA_MCP_LANG=" + string(l),
			"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/"})
		if err != nil {
			t.Fatal(err)
		}
		f := checkEvents(t.Context(), l, cfg)
		if f.Verdict != verdictFail {
			t.Fatalf("%s: %+v", l, f)
		}
		english := strings.Contains(f.Fix, "check that SnowLuma is running")
		if l == lang.Zh && (english || !strings.Contains(f.Fix, "“WS 服务端”")) || l == lang.En && !english {
			t.Errorf("%s: fix %q", l, f.Fix)
		}
	}
}

// TestArchiveFailureInChinese: doctor on a file that is no archive tells a
// Chinese operator the problem and the fix in Chinese, SQLite's words
// quoted; the English report is the archive's own.
func TestArchiveFailureInChinese(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "归档.db")
	if err := os.WriteFile(path, []byte("not a database, just text that is long enough to be read as a header"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range []lang.Lang{lang.Zh, lang.En} {
		cfg, err := config.Load([]string{"HOME=" + dir, "SNOWLUMA_MCP_DOWNLOAD_DIR=" + dir, "SNOWLUMA_MCP_LANG=" + string(l),
			"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_ARCHIVE=" + path, "SNOWLUMA_MCP_ARCHIVE_GROUPS=*"})
		if err != nil {
			t.Fatal(err)
		}
		f := checkArchive(t.Context(), l, cfg)
		switch {
		case f.Verdict != verdictFail:
			t.Errorf("%s: %+v", l, f)
		case l == lang.Zh && (!strings.HasPrefix(f.Detail, path+"：不是可读的 SQLite 数据库") || f.Fix != lang.Zh.Sprintf(lang.ArchiveCorruptFix)):
			t.Errorf("zh: %+v", f)
		case l == lang.En && (!strings.Contains(f.Detail, "not a readable SQLite database") || !strings.HasPrefix(f.Fix, "move the file aside")):
			t.Errorf("en: %+v", f)
		}
	}
}

// TestArchiveBrokenSaidInChinese: a server whose archive file is no
// database tells a Chinese operator once, in Chinese, what is wrong and
// what to do, SQLite's own words quoted; the English fix is not repeated.
func TestArchiveBrokenSaidInChinese(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "我的 归档.db")
	if err := os.WriteFile(path, []byte("not a database, just text that is long enough to be read as a header"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load([]string{"HOME=" + dir, "SNOWLUMA_MCP_DOWNLOAD_DIR=" + dir, "SNOWLUMA_MCP_LANG=zh",
		"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_ARCHIVE=" + path, "SNOWLUMA_MCP_ARCHIVE_GROUPS=*"})
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	b, _ := openBackend(cfg, &stderr)
	if b == nil {
		t.Fatalf("no backend: %s", stderr.String())
	}
	defer b.Close()
	tr := stdio.New(strings.NewReader(""), io.Discard, stdio.Options{})
	if _, _, _, err := newServer(cfg, b, nil, tr, catalog.Load, &stderr, io.Discard); err != nil {
		t.Fatal(err)
	}
	got := stderr.String()
	want := "snowluma-mcp: 消息归档 " + path + " 无法使用：不是可读的 SQLite 数据库，或者已损坏（"
	if !strings.Contains(got, want) || !strings.Contains(got, lang.Zh.Sprintf(lang.ArchiveCorruptFix)) || strings.Count(got, path) != 1 || strings.Contains(got, "move the file aside") {
		t.Errorf("stderr %q, want %q once, with its fix in Chinese", got, want)
	}
}
