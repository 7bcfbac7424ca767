package app_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
	"github.com/kinohq/kino/server/transcribe"
)

// assPSNR is the least PSNR (dB, whole frame, luma and chroma averaged)
// of kino's burn of an ASS file against ffmpeg's own subtitles filter on
// the same file with the same fonts folder. Both are encoded alike, so
// only x264's noise could differ: measured +Inf (identical) at 1080x1920
// and 540x960. kino's executor before Rendobar's params (its PlayResY,
// font size and alignment forced over the file's) scored 19.5 and 19.2 dB
// here; the file restyled by hand below, 19.0 and 17.9 dB.
const assPSNR = 45

// testFamily is the family of renamedFont: no system font has it, so
// libass finds it only in the job's font input.
const testFamily = "Kinotest Srf"

// renamedFont is the demo font (DejaVu Serif Bold) with its family renamed
// to testFamily, in place (the names are as long), so that only the font
// input can draw it.
func renamedFont(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../demo/files/font.ttf")
	require.NoError(t, err)
	utf16be := func(s string) []byte {
		var out []byte
		for _, r := range utf16.Encode([]rune(s)) {
			out = append(out, byte(r>>8), byte(r))
		}
		return out
	}
	for old, repl := range map[string]string{"DejaVu Serif": testFamily, "DejaVuSerif": "KinotestSrf"} {
		require.Equal(t, len(old), len(repl))
		require.True(t, bytes.Contains(b, []byte(old)))
		b = bytes.ReplaceAll(b, []byte(old), []byte(repl))
		b = bytes.ReplaceAll(b, utf16be(old), utf16be(repl))
	}
	return b
}

// woff wraps a TrueType font as WOFF 1.0: each table zlib-compressed.
func woff(t *testing.T, ttf []byte) []byte {
	t.Helper()
	be := binary.BigEndian
	n := int(be.Uint16(ttf[4:]))
	dir := make([]byte, 20*n)
	var body bytes.Buffer
	for i := range n {
		e := ttf[12+16*i:]
		off, length := be.Uint32(e[8:]), be.Uint32(e[12:])
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		_, _ = w.Write(ttf[off : off+length])
		require.NoError(t, w.Close())
		data := z.Bytes()
		if len(data) >= int(length) {
			data = ttf[off : off+length]
		}
		d := dir[20*i:]
		copy(d, e[:4])
		be.PutUint32(d[4:], uint32(44+20*n+body.Len()))
		be.PutUint32(d[8:], uint32(len(data)))
		be.PutUint32(d[12:], length)
		copy(d[16:], e[4:8])
		body.Write(data)
		for body.Len()%4 != 0 {
			body.WriteByte(0)
		}
	}
	h := make([]byte, 44)
	copy(h, "wOFF")
	copy(h[4:], ttf[:4])
	be.PutUint32(h[8:], uint32(44+len(dir)+body.Len()))
	be.PutUint16(h[12:], uint16(n))
	be.PutUint32(h[16:], uint32(len(ttf)))
	be.PutUint16(h[20:], 1)
	return append(append(h, dir...), body.Bytes()...)
}

// reelASS is a client's own layout for a 1080x1920 reel: two styles, a
// title at the top, a positioned line in the middle and a caption at the
// bottom, all in its PlayResX/Y.
const reelASS = `[Script Info]
ScriptType: v4.00+
PlayResX: 1080
PlayResY: 1920
WrapStyle: 0
ScaledBorderAndShadow: yes

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Title,` + testFamily + `,120,&H0000FFFF,&H000000FF,&H00000000,&H80000000,-1,0,0,0,100,100,0,0,1,6,0,8,60,60,200,1
Style: Caption,` + testFamily + `,70,&H00FFFFFF,&H000000FF,&H00FF0000,&H80000000,0,0,0,0,100,100,0,0,1,4,2,2,60,60,150,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.00,0:00:05.00,Title,,0,0,0,,Hydrogen jelly
Dialogue: 0,0:00:00.00,0:00:05.00,Caption,,0,0,0,,{\pos(540,1000)}Centre of the reel
Dialogue: 0,0:00:00.00,0:00:05.00,Caption,,0,0,0,,The caption at the bottom of the reel
`

// makeVideo writes a 2-second video of a size, with a test pattern.
func makeVideo(t *testing.T, path, size string) {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "testsrc2=size="+size+":rate=5", "-t", "2",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// ffmpegBurn is ffmpeg's own subtitles filter, encoded as kino encodes.
func ffmpegBurn(t *testing.T, src, vf, dst string) {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", src, "-vf", vf,
		"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", dst).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// An ASS file is burned exactly as written: its styles, positions and
// PlayResX/Y, with the font input, on a reel of its own size and on one
// of half its size.
func TestCaptionBurnASSAsWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fonts := filepath.Join(dir, "fonts")
	require.NoError(t, os.Mkdir(fonts, 0o755))
	font := renamedFont(t)
	require.NoError(t, os.WriteFile(filepath.Join(fonts, "font.ttf"), font, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "reel.ass"), []byte(reelASS), 0o644))
	srv := serveDir(t, http.FileServer(http.Dir(dir)))
	k := start(t, storetest.SQLite(t), nil)

	for _, size := range []string{"1080x1920", "540x960"} {
		src := filepath.Join(dir, size+".mp4")
		makeVideo(t, src, size)
		// Styling params do not restyle an ASS file; the job says so.
		id := k.createJob(t, map[string]any{"type": "caption.burn", "inputs": map[string]any{
			"source": srv + "/" + size + ".mp4", "subtitles": srv + "/reel.ass", "font": srv + "/fonts/font.ttf"},
			"params": map[string]any{"fontSize": 20, "position": "top"}})
		j := k.waitJob(t, id)
		require.Equal(t, "complete", j["status"], "%v", j)
		var meta map[string]any
		require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
		assert.Equal(t, []any{"params fontSize, position: not applied, the ASS file is burned as written (its own styles)"}, meta["warnings"])
		got := filepath.Join(dir, size+"-kino.mp4")
		fetchBody(t, j["outputUrl"].(string), got)

		want := filepath.Join(dir, size+"-ffmpeg.mp4")
		ffmpegBurn(t, src, "subtitles=filename="+filepath.Join(dir, "reel.ass")+":fontsdir="+fonts, want)
		same := framePSNR(t, want, got, 3)
		// What kino did before: its own size and alignment forced over the file's.
		old := filepath.Join(dir, size+"-restyled.mp4")
		h := strings.Split(size, "x")[1]
		ffmpegBurn(t, src, "subtitles=filename="+filepath.Join(dir, "reel.ass")+":fontsdir="+fonts+
			":force_style='PlayResY="+h+",FontName=DejaVu Sans,FontSize=48,Alignment=2,MarginV=60'", old)
		restyled := framePSNR(t, want, old, 3)
		t.Logf("%s: kino against ffmpeg's subtitles filter: PSNR %.1f dB; the file restyled: %.1f dB", size, same, restyled)
		assert.GreaterOrEqual(t, same, float64(assPSNR), "%s: the same picture as ffmpeg's own burn", size)
		assert.Less(t, restyled, float64(assPSNR), "%s: the threshold tells a restyled file apart", size)
	}
}

// rgbFrame is the frame at 1 s of a video, as RGB24.
func rgbFrame(t *testing.T, path string, w, h int) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-ss", "1", "-i", path,
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	require.NoError(t, err)
	require.Len(t, out, w*h*3)
	return out
}

// region counts the pixels of an RGB frame that match, and their bounds.
type region struct{ n, x0, y0, x1, y1 int }

func findPixels(frame []byte, w int, match func(r, g, b int) bool) region {
	reg := region{x0: 1 << 30, y0: 1 << 30, x1: -1, y1: -1}
	for i := 0; i+2 < len(frame); i += 3 {
		if match(int(frame[i]), int(frame[i+1]), int(frame[i+2])) {
			x, y := i/3%w, i/3/w
			reg.n++
			reg.x0, reg.y0, reg.x1, reg.y1 = min(reg.x0, x), min(reg.y0, y), max(reg.x1, x), max(reg.y1, y)
		}
	}
	return reg
}

// An SRT with Rendobar's styling params burns as styled: centred, in an
// opaque blue box, with a green outline, and red text at half its alpha
// (purple where it lies over the blue box).
func TestCaptionBurnSRTStyled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "color=black:size=640x360:rate=5", "-t", "2",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p", filepath.Join(dir, "black.mp4")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "line.srt"), []byte("1\n00:00:00,000 --> 00:00:05,000\nHOLD ME\n"), 0o644))
	srv := serveDir(t, http.FileServer(http.Dir(dir)))
	k := start(t, storetest.SQLite(t), nil)

	id := k.createJob(t, map[string]any{"type": "caption.burn",
		"inputs": map[string]any{"source": srv + "/black.mp4", "subtitles": srv + "/line.srt"},
		"params": map[string]any{"fontFamily": "DejaVu Sans", "fontSize": 80, "fontColor": "#80FF0000", "bold": true,
			"outlineColor": "#00FF00", "outlineWidth": 4, "boxEnabled": true, "boxColor": "#0000FF", "boxOpacity": 1,
			"position": "center", "alignment": "center", "marginV": 10, "marginH": 10}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	got := filepath.Join(dir, "styled.mp4")
	fetchBody(t, j["outputUrl"].(string), got)
	frame := rgbFrame(t, got, 640, 360)

	box := findPixels(frame, 640, func(r, g, b int) bool { return b > 180 && r < 70 && g < 70 })
	text := findPixels(frame, 640, func(r, g, b int) bool { return r > 90 && r < 170 && b > 90 && b < 170 && g < 60 })
	outline := findPixels(frame, 640, func(r, g, b int) bool { return g > 180 && r < 90 && b < 90 })
	opaqueRed := findPixels(frame, 640, func(r, g, b int) bool { return r > 200 && g < 60 && b < 60 })
	t.Logf("box %+v, text %+v, outline %+v, opaque red %d pixels", box, text, outline, opaqueRed.n)
	require.Greater(t, box.n, 2000, "a blue box")
	assert.InDelta(t, 180, (box.y0+box.y1)/2, 12, "centred vertically")
	assert.InDelta(t, 320, (box.x0+box.x1)/2, 12, "and horizontally")
	assert.Greater(t, text.n, 300, "the text: red at half its alpha over blue")
	assert.Greater(t, outline.n, 300, "a green outline")
	assert.Less(t, opaqueRed.n, text.n/10, "the alpha is applied")
	for _, r := range []region{text, outline} {
		assert.True(t, r.x0 >= box.x0 && r.x1 <= box.x1 && r.y0 >= box.y0 && r.y1 <= box.y1, "inside the box: %+v in %+v", r, box)
	}
	black := findPixels(frame, 640, func(r, g, b int) bool { return r > 40 || g > 40 || b > 40 })
	assert.True(t, black.y0 > 60 && black.y1 < 300, "nothing above or below the box: %+v", black)
}

// The font input draws the text: an SRT burned with the font (a renamed
// DejaVu Serif Bold, as TTF and as WOFF) looks like DejaVu Serif Bold,
// not like the default DejaVu Sans.
func TestCaptionBurnFontInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "color=black:size=640x360:rate=5", "-t", "2",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", filepath.Join(dir, "black.mp4")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "line.srt"), []byte("1\n00:00:00,000 --> 00:00:05,000\nHydrogen jelly\n"), 0o644))
	font := renamedFont(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "font.ttf"), font, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "font.woff"), woff(t, font), 0o644))
	srv := serveDir(t, http.FileServer(http.Dir(dir)))
	k := start(t, storetest.SQLite(t), nil)

	burn := func(name string, inputs, params map[string]any) []byte {
		inputs["source"], inputs["subtitles"] = srv+"/black.mp4", srv+"/line.srt"
		params["fontSize"] = 72
		id := k.createJob(t, map[string]any{"type": "caption.burn", "inputs": inputs, "params": params})
		j := k.waitJob(t, id)
		require.Equal(t, "complete", j["status"], "%s: %v", name, j)
		path := filepath.Join(dir, name+".mp4")
		fetchBody(t, j["outputUrl"].(string), path)
		return grayFrame(t, path, "1", 640, 360)
	}
	serif := burn("serif", map[string]any{}, map[string]any{"fontFamily": "DejaVu Serif", "bold": true})
	sans := burn("sans", map[string]any{}, map[string]any{})
	ttf := burn("ttf", map[string]any{"font": srv + "/font.ttf"}, map[string]any{})
	woffed := burn("woff", map[string]any{"font": srv + "/font.woff"}, map[string]any{})
	named := burn("named", map[string]any{"font": srv + "/font.ttf"}, map[string]any{"fontFamily": testFamily, "bold": true})
	whole := func(a, b []byte) float64 { return meanDiff(a, b, 640, 0, 0, 640, 360) }
	t.Logf("mean difference from DejaVu Serif Bold: ttf %.2f, woff %.2f, named %.2f; DejaVu Sans %.2f",
		whole(serif, ttf), whole(serif, woffed), whole(serif, named), whole(serif, sans))
	require.Greater(t, whole(serif, sans), 3.0, "the two fonts look apart")
	for name, f := range map[string][]byte{"ttf": ttf, "woff": woffed, "named": named} {
		assert.Less(t, whole(serif, f), 0.5, "%s: drawn in the font input", name)
	}

	// A file that is not a font fails the job, naming the input.
	id := k.createJob(t, map[string]any{"type": "caption.burn", "inputs": map[string]any{
		"source": srv + "/black.mp4", "subtitles": srv + "/line.srt", "font": srv + "/line.srt"}})
	j := k.waitJob(t, id)
	assert.Equal(t, "failed", j["status"])
	assert.Equal(t, "INPUT_INVALID", j["errorCode"])
	assert.Equal(t, "inputs.font: the file is not a TTF, OTF, WOFF or WOFF2 font", j["errorMessage"])
}

// Without subtitles, the sound is transcribed and then burned.
func TestCaptionBurnTranscribes(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	id := k.createJob(t, map[string]any{"type": "caption.burn", "inputs": map[string]any{"source": k.base + "/demo/talk.mp4"},
		"params": map[string]any{"language": "en", "fontSize": 28, "maxCharsPerLine": 24, "marginV": 20}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
	t.Logf("transcript: %q", meta["transcript"])
	heard := 0
	for _, w := range []string{"welcome", "short", "talk", "machine", "network", "example"} {
		if strings.Contains(strings.ToLower(fmt.Sprint(meta["transcript"])), w) {
			heard++
		}
	}
	assert.GreaterOrEqual(t, heard, 2, "words of the talk were heard")
	dir := t.TempDir()
	got := filepath.Join(dir, "burned.mp4")
	fetchBody(t, j["outputUrl"].(string), got)
	src := filepath.Join(dir, "talk.mp4")
	fetchBody(t, k.base+"/demo/talk.mp4", src)
	var bottom float64
	for _, at := range []string{"2", "3", "4", "5"} {
		bottom = max(bottom, meanDiff(grayFrame(t, src, at, 640, 360), grayFrame(t, got, at, 640, 360), 640, 0, 260, 640, 345))
	}
	t.Logf("bottom band's mean difference: %.1f", bottom)
	assert.Greater(t, bottom, 4.0, "captions are burned at the bottom")

	// The offline transcriber hears English only: another language fails
	// the job with a reason, before any work.
	id = k.createJob(t, map[string]any{"type": "caption.burn", "inputs": map[string]any{"source": k.base + "/demo/talk.mp4"},
		"params": map[string]any{"language": "es"}})
	j = k.waitJob(t, id)
	assert.Equal(t, "failed", j["status"])
	assert.Equal(t, "INPUT_INVALID", j["errorCode"])
	assert.Contains(t, j["errorMessage"], "params.language")
}

// Every bad param of caption.burn is refused at submit, naming it.
func TestCaptionBurnParamsRefused(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	inputs := map[string]any{"source": "https://x.example/v.mp4", "subtitles": "https://x.example/s.srt"}
	for _, c := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"fontSize": 7}, "params.fontSize: must be between 8 and 400"},
		{map[string]any{"fontSize": 401}, "params.fontSize: must be between 8 and 400"},
		{map[string]any{"fontSize": 48.5}, "params.fontSize: must be an integer"},
		{map[string]any{"fontColor": "red"}, "params.fontColor: must be a colour as #RRGGBB or #AARRGGBB"},
		{map[string]any{"fontColor": "#FFF"}, "params.fontColor: must be a colour"},
		{map[string]any{"fontColor": "#FF00FF00FF"}, "params.fontColor: must be a colour"},
		{map[string]any{"fontFamily": "Inter,Bold"}, "params.fontFamily: a font family name holds only letters, digits and spaces"},
		{map[string]any{"bold": "yes"}, "params.bold: must be true or false"},
		{map[string]any{"italic": 1}, "params.italic: must be true or false"},
		{map[string]any{"outlineColor": "#GG0000"}, "params.outlineColor: must be a colour"},
		{map[string]any{"outlineWidth": 21}, "params.outlineWidth: must be between 0 and 20"},
		{map[string]any{"outlineWidth": -1}, "params.outlineWidth: must be between 0 and 20"},
		{map[string]any{"shadow": 20.5}, "params.shadow: must be between 0 and 20"},
		{map[string]any{"boxEnabled": "true"}, "params.boxEnabled: must be true or false"},
		{map[string]any{"boxColor": "black"}, "params.boxColor: must be a colour"},
		{map[string]any{"boxOpacity": 1.5}, "params.boxOpacity: must be between 0 and 1"},
		{map[string]any{"position": "left"}, "params.position: must be one of bottom, center, middle, top"},
		{map[string]any{"alignment": "top"}, "params.alignment: must be one of left, center, right"},
		{map[string]any{"marginV": 2001}, "params.marginV: must be between 0 and 2000"},
		{map[string]any{"marginH": -1}, "params.marginH: must be between 0 and 2000"},
		{map[string]any{"maxCharsPerLine": 9}, "params.maxCharsPerLine: must be between 10 and 80"},
		{map[string]any{"maxCharsPerLine": 81}, "params.maxCharsPerLine: must be between 10 and 80"},
		{map[string]any{"language": "klingon"}, "params.language: must be one of auto, af,"},
		{map[string]any{"color": "#FFFFFF", "fontColor": "#FFFFFF"}, "params.color: is the older name of fontColor: give one of them"},
		{map[string]any{"font": "DejaVu Sans", "fontFamily": "DejaVu Sans"}, "params.font: is the older name of fontFamily"},
		{map[string]any{"outline": 2, "outlineWidth": 2}, "params.outline: is the older name of outlineWidth"},
		{map[string]any{"outline": 30}, "params.outline: must be between 0 and 20"},
		{map[string]any{"fontWeight": 700}, "params.fontWeight: unknown parameter"},
	} {
		r := k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "caption.burn", "inputs": inputs, "params": c.params})
		assert.Equal(t, http.StatusBadRequest, r.status, "%v: %s", c.params, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), "%v", c.params)
		assert.Contains(t, string(r.body), c.want, "%v", c.params)
	}
	r := k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "caption.burn",
		"inputs": map[string]any{"source": "https://x.example/v.mp4", "font": "file:///etc/fonts/x.ttf"}})
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Contains(t, string(r.body), "inputs.font: must be an absolute http or https URL, or an asset id")

	// Rendobar's names, kino's older ones, and no subtitles at all are taken.
	for _, params := range []map[string]any{
		{"fontFamily": "DejaVu Sans", "fontSize": 400, "fontColor": "#CCFFFFFF", "bold": false, "italic": true, "outlineColor": "#000000",
			"outlineWidth": 0, "shadow": 20, "boxEnabled": true, "boxColor": "#202020", "boxOpacity": 0, "position": "top",
			"alignment": "right", "marginV": 2000, "marginH": 0, "maxCharsPerLine": 10, "language": "auto"},
		{"font": "DejaVu Sans", "fontSize": 8, "color": "#FFFF00", "outline": 3, "position": "middle"},
	} {
		r := k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "caption.burn", "inputs": map[string]any{"source": "https://x.example/v.mp4"}, "params": params})
		assert.Equal(t, http.StatusAccepted, r.status, "%v: %s", params, r.body)
	}
}

// With a Whisper endpoint, caption.burn transcribes in the language asked
// for: the endpoint is told it.
func TestCaptionBurnTranscribesWithWhisper(t *testing.T) {
	t.Parallel()
	var language atomic.Value
	whisper := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		language.Store(r.FormValue("language"))
		_ = json.NewEncoder(w).Encode(map[string]any{"text": "hola mundo", "segments": []any{
			map[string]any{"start": 0.5, "end": 3.0, "text": " hola mundo"}}})
	}))
	t.Cleanup(whisper.Close)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.Transcriber = transcribe.Whisper{URL: whisper.URL + "/v1/audio/transcriptions"}
	})
	id := k.createJob(t, map[string]any{"type": "caption.burn", "inputs": map[string]any{"source": k.base + "/demo/talk.mp4"},
		"params": map[string]any{"language": "es"}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	assert.Equal(t, "es", language.Load())
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
	assert.Equal(t, "hola mundo", meta["transcript"])
}
