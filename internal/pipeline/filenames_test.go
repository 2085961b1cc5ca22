package pipeline

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// TestFileNames: a listing's names are found again from the fname of
// SnowLuma's link; other actions, failures and unknown ids give nothing;
// the oldest names are forgotten past maxFileNames.
func TestFileNames(t *testing.T) {
	ok := func(env string) outcome.Reply {
		return outcome.Reply{Result: json.RawMessage(env), Diag: outcome.Diagnostics{Outcome: outcome.OutcomeSuccess}}
	}
	var f fileNames
	f.learn("get_group_root_files", ok(`{"status":"ok","retcode":0,"data":{"files":[{"file_id":"/a1","file_name":"报告 2026.pdf"}],"folders":[]}}`))
	f.learn("get_group_msg_history", ok(`{"status":"ok","data":{"files":[{"file_id":"/b2","file_name":"x.txt"}]}}`))
	for params, want := range map[string]string{
		`{"file":"https://sh.ftn.qq.com/ftn_handler/0102/?fname=/a1"}`: "报告 2026.pdf",
		`{"file":"https://sh.ftn.qq.com/ftn_handler/0102/?fname=/b2"}`: "",
		`{"file":"https://sh.ftn.qq.com/ftn_handler/0102/"}`:           "",
		`{"file_id":"/a1"}`: "",
	} {
		if got := f.forDownload(json.RawMessage(params)); got != want {
			t.Errorf("%s: %q, want %q", params, got, want)
		}
	}
	for i := range maxFileNames {
		f.learn("get_group_files_by_folder", ok(fmt.Sprintf(`{"data":{"files":[{"file_id":"/n%d","file_name":"n.txt"}]}}`, i)))
	}
	if len(f.byID) != maxFileNames || f.forDownload(json.RawMessage(`{"file":"https://h/?fname=/a1"}`)) != "" {
		t.Errorf("%d names kept, the oldest not forgotten", len(f.byID))
	}
}
