package pipeline

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// fileNames remembers, by file id, the names of the group files that
// get_group_root_files and get_group_files_by_folder listed, so that a
// download of the link get_group_file_url makes is saved under the file's
// own name. SnowLuma builds that link as
// https://<host>/ftn_handler/<hex>/?fname=<file id>
// (packages/core/src/bridge/apis/group-file.ts) and names a link's download
// after its last path segment, the hex, which has no extension
// (packages/onebot/src/actions/stream-download.ts): a Windows user could
// not open it by double-click.
type fileNames struct {
	mu    sync.Mutex
	byID  map[string]string
	order []string // oldest first, to forget beyond maxFileNames
}

// maxFileNames bounds what fileNames keeps.
const maxFileNames = 4096

// listsFiles names the actions whose answer lists group files.
func listsFiles(action string) bool {
	return action == "get_group_root_files" || action == "get_group_files_by_folder"
}

// learn keeps the file ids and names of a successful listing's answer.
func (f *fileNames) learn(action string, r outcome.Reply) {
	env, ok := r.Result.(json.RawMessage)
	if !ok || !listsFiles(action) || r.Diag.Outcome != outcome.OutcomeSuccess {
		return
	}
	var a struct {
		Data struct {
			Files []struct {
				ID   string `json:"file_id"`
				Name string `json:"file_name"`
			} `json:"files"`
		} `json:"data"`
	}
	if json.Unmarshal(env, &a) != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byID == nil {
		f.byID = map[string]string{}
	}
	for _, file := range a.Data.Files {
		if file.ID == "" || file.Name == "" {
			continue
		}
		if _, known := f.byID[file.ID]; !known {
			f.order = append(f.order, file.ID)
		}
		f.byID[file.ID] = file.Name
	}
	for len(f.order) > maxFileNames {
		delete(f.byID, f.order[0])
		f.order = f.order[1:]
	}
}

// forDownload is the name of the group file a download's params point at
// through a get_group_file_url link (its fname query), or "".
func (f *fileNames) forDownload(params json.RawMessage) string {
	var p struct {
		File string `json:"file"`
	}
	if json.Unmarshal(params, &p) != nil || !strings.Contains(p.File, "fname=") {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(p.File))
	if err != nil {
		return ""
	}
	id := u.Query().Get("fname")
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byID[id]
}
