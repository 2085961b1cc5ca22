package ui

import (
	"regexp"
	"strings"
	"testing"
)

func TestPanelIsACompleteBuild(t *testing.T) {
	html, err := Panel()
	if err != nil {
		t.Fatal(err)
	}
	// Thousands of bytes of bundled ext-apps client: a build, not the template.
	if len(html) < 10_000 {
		t.Errorf("panel is %d bytes", len(html))
	}
	for _, want := range []string{"<!doctype html>", "Message preview", `id="send"`, "connect-src 'none'"} {
		if !strings.Contains(html, want) {
			t.Errorf("panel lacks %q", want)
		}
	}
}

// The panel loads nothing: no element points at an external (or any) URL
// and no stylesheet imports one.
func TestPanelLoadsNothingExternal(t *testing.T) {
	html, _ := Panel()
	if m := regexp.MustCompile(`(?i)<(script|img|link|iframe|audio|video|source|object|embed)\b[^>]*\b(src|href|data)\s*=`).FindString(html); m != "" {
		t.Errorf("panel loads something: %q", m)
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(html)
	if style == nil {
		t.Fatal("panel has no inlined style")
	}
	if m := regexp.MustCompile(`(?i)@import|url\(`).FindString(style[1]); m != "" {
		t.Errorf("panel style loads something: %q", m)
	}
}

func TestPanelRejectsBadBuilds(t *testing.T) {
	saved := panel
	t.Cleanup(func() { panel = saved })
	for _, bad := range []string{"", "  \n", "<html><script>/*PANEL_JS*/</script></html>", "<html>no script</html>"} {
		panel = bad
		if _, err := Panel(); err == nil || !strings.Contains(err.Error(), "scripts/build-ui") {
			t.Errorf("panel %q: error %v", bad, err)
		}
	}
}
