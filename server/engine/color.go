package engine

import (
	"image/color"
	"regexp"
	"strconv"
	"strings"
)

var hexColor = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)

//nolint:gochecknoglobals // read-only table: the CSS colour names
var namedColors = map[string]string{
	"black": "000000", "white": "FFFFFF", "red": "FF0000", "green": "008000", "lime": "00FF00", "blue": "0000FF",
	"yellow": "FFFF00", "cyan": "00FFFF", "magenta": "FF00FF", "gray": "808080", "grey": "808080",
	"orange": "FFA500", "purple": "800080", "pink": "FFC0CB", "brown": "A52A2A", "navy": "000080",
	"teal": "008080", "silver": "C0C0C0", "gold": "FFD700",
}

// parseColor turns a CSS-style colour into ffmpeg's 0xRRGGBBAA, a form that
// holds only hex digits and so cannot alter a filter graph.
func parseColor(s string) (string, bool) {
	if strings.EqualFold(s, "transparent") {
		return "0x00000000", true
	}
	if hex, ok := namedColors[strings.ToLower(s)]; ok {
		return "0x" + hex + "FF", true
	}
	if !hexColor.MatchString(s) {
		return "", false
	}
	h := strings.ToUpper(s[1:])
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if len(h) == 6 {
		h += "FF"
	}
	return "0x" + h, true
}

// nrgba is an ffmpeg colour (0xRRGGBBAA) as a Go colour, for the pictures
// kino draws.
func nrgba(c string) color.NRGBA {
	v, _ := strconv.ParseUint(c[2:], 16, 32)
	return color.NRGBA{R: uint8(v >> 24), G: uint8(v >> 16), B: uint8(v >> 8), A: uint8(v)}
}
