package app

import (
	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
)

// checkChannel says, when the QQ channel is configured, what Claude Code
// needs to deliver it: the development flag for a server of one's own, or
// the plugin with the organisation's managed settings allowing it; an
// interactive session (claude -p has no channels); and, with approvers,
// the permission mode in which Claude Code asks at all. The configuration
// itself was checked by config.Load.
func checkChannel(l lang.Lang, cfg *config.Config) (finding, bool) {
	ch := cfg.Channel
	if ch.Mode == channel.ModeOff || cfg.Mode == config.ModeDocs {
		return finding{}, false
	}
	detail := l.Sprintf(lang.DoctorChannelOn, ch.Mode, len(ch.Groups), len(ch.Users), len(ch.Approvers))
	if len(ch.Approvers) > 0 {
		detail += l.Sprintf(lang.DoctorChannelApprovers)
	}
	return finding{Check: "channel", Verdict: verdictOK, Detail: detail}, true
}
