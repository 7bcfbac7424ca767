package typeset

import (
	"os/exec"
	"strings"
)

// fallbackFont is the sans-serif font of Debian and Ubuntu (fonts-dejavu),
// for a system whose fontconfig does not answer.
const fallbackFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

// SystemFont is the file of the system's sans-serif font, as fontconfig
// (fc-match) names it: the font of text that names none, unless kino is
// told another. A node asks once, at start. This is the
// one program package typeset starts.
func SystemFont() string {
	out, err := exec.Command("fc-match", "-f", "%{file}", "sans-serif").Output()
	if path := strings.TrimSpace(string(out)); err == nil && path != "" {
		return path
	}
	return fallbackFont
}
