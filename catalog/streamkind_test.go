package catalog

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestStreamKinds: every stream action says how its answer travels, and
// the flag stream follows from that alone.
func TestStreamKinds(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]StreamKind{
		"download_file_stream":        StreamDownload,
		"download_file_image_stream":  StreamDownload,
		"download_file_record_stream": StreamDownload,
		"upload_file_stream":          StreamUpload,
		"test_download_stream":        StreamFrames,
	}
	for _, a := range c.Actions() {
		if a.StreamKind != want[a.Name] || a.Stream != (want[a.Name] != StreamNone) {
			t.Errorf("%s: streamKind %q, stream %v; want %q", a.Name, a.StreamKind, a.Stream, want[a.Name])
		}
	}
	for body, problem := range map[string]string{
		`{"name":"x","stream":true}`:       "write its streamKind",
		`{"name":"x","streamKind":"pipe"}`: `streamKind "pipe"`,
	} {
		fsys := fstest.MapFS{"actions/a.json": {Data: []byte(`{"category":"c","label":"C","order":1,"actions":[` + body + `]}`)}}
		if _, err := load(fsys); err == nil || !strings.Contains(err.Error(), problem) {
			t.Errorf("%s: %v, want %q", body, err, problem)
		}
	}
}
