package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// clientASS is a client's own subtitles: its style, its place and its
// PlayRes, for a 640×360 video; kino must burn it as written.
const clientASS = `[Script Info]
ScriptType: v4.00+
PlayResX: 640
PlayResY: 360
WrapStyle: 0

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Reel,DejaVu Serif,30,&H0000FFFF,&H000000FF,&H00000000,&H80000000,-1,0,0,0,100,100,0,0,1,3,0,8,20,20,24,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.20,0:00:02.80,Reel,,0,0,0,,First clip, top centre
Dialogue: 0,0:00:03.00,0:00:05.80,Reel,,0,0,0,,{\an1}Second, bottom left
`

// TestClientExchange plays a Rendobar client's whole exchange over HTTP:
// it uploads three clips, a voice-over, music, an .ass file and a font as
// raw bodies without a Content-Type, runs one raw.ffmpeg job that trims,
// scales, crops, fades and joins the clips and mixes the sound, burns the
// .ass with its font by caption.burn, polls each job to complete and
// downloads the result. The captions are ffmpeg's own subtitles filter's
// on the same file, and the video has the size, length and sound asked.
func TestClientExchange(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false; c.Workers = 2 })
	dir := t.TempDir()
	mk := func(name string, args ...string) string {
		path := filepath.Join(dir, name)
		out, err := exec.Command("ffmpeg", append(append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...), path)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return path
	}
	clips := []string{
		mk("clip1.mp4", "-f", "lavfi", "-i", "testsrc2=s=480x360:r=25:d=4", "-f", "lavfi", "-i", "sine=f=440:d=4", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"),
		mk("clip2.mp4", "-f", "lavfi", "-i", "smptebars=s=640x480:r=25:d=4", "-f", "lavfi", "-i", "sine=f=660:d=4", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"),
		mk("clip3.mp4", "-f", "lavfi", "-i", "mandelbrot=s=320x240:r=25", "-t", "4", "-c:v", "libx264", "-pix_fmt", "yuv420p"),
	}
	voice := mk("voice.wav", "-f", "lavfi", "-i", "flite=text='Hello from the client':voice=slt", "-ar", "22050")
	music := mk("music.mp3", "-f", "lavfi", "-i", "sine=f=220:d=8", "-c:a", "libmp3lame")
	ass := filepath.Join(dir, "captions.ass")
	require.NoError(t, os.WriteFile(ass, []byte(clientASS), 0o644))
	font := "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
	if _, err := os.Stat(font); err != nil {
		font = "../demo/files/font.ttf"
	}

	upload := func(path string) string {
		body, err := os.ReadFile(path)
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, k.base+"/uploads?filename="+filepath.Base(path), bytes.NewReader(body))
		require.NoError(t, err)
		require.Empty(t, req.Header.Get("Content-Type"))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var got struct {
			Data struct {
				DownloadURL string `json:"downloadUrl"`
				Size        int64  `json:"size"`
			} `json:"data"`
		}
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
		require.Equal(t, int64(len(body)), got.Data.Size)
		require.NotEmpty(t, got.Data.DownloadURL)
		return got.Data.DownloadURL
	}
	var clipURLs []string
	for _, c := range clips {
		clipURLs = append(clipURLs, upload(c))
	}
	voiceURL, musicURL, assURL, fontURL := upload(voice), upload(music), upload(ass), upload(font)

	// The edit, as such clients write it: one command, URLs at the -i.
	graph := strings.Join([]string{
		"[0:v]trim=start=0.5:end=3.5,setpts=PTS-STARTPTS,scale=640:480,crop=640:360,setsar=1,fade=t=in:st=0:d=0.5[a]",
		"[1:v]trim=start=1:end=4,setpts=PTS-STARTPTS,scale=640:360,setsar=1,fade=t=out:st=2.5:d=0.5[b]",
		"[2:v]trim=duration=2,setpts=PTS-STARTPTS,scale=640:360,setsar=1[c0]",
		"color=c=0x102030:s=640x360:r=25:d=2[bg]",
		"[bg][c0]overlay=x='-w+t*400':y=0:shortest=1,setsar=1[c]",
		"[a][b][c]concat=n=3:v=1:a=0,format=yuv420p[v]",
		"[3:a]volume=1.5,apad=whole_dur=8[vo]",
		"[4:a]volume=0.3,atrim=duration=8[mu]",
		"[vo][mu]amix=inputs=2:duration=longest[mix]",
	}, ";")
	command := fmt.Sprintf(`ffmpeg -i %s -i %s -i %s -i %s -i %s -filter_complex "%s" -map "[v]" -map "[mix]" -r 25 -shortest -c:v libx264 -preset veryfast -c:a aac output.mp4`,
		clipURLs[0], clipURLs[1], clipURLs[2], voiceURL, musicURL, graph)
	edit := k.createJob(t, map[string]any{"type": "raw.ffmpeg", "params": map[string]any{"command": command, "timeout": 300}})
	j := k.waitJob(t, edit)
	require.Equal(t, "complete", j["status"], "%v", j)
	edited := j["outputUrl"].(string)

	burn := k.createJob(t, map[string]any{"type": "caption.burn",
		"inputs": map[string]any{"source": edited, "subtitles": assURL, "font": fontURL}})
	j = k.waitJob(t, burn)
	require.Equal(t, "complete", j["status"], "%v", j)
	out := filepath.Join(dir, "out.mp4")
	fetchBody(t, j["outputUrl"].(string), out)

	// The file: 640×360, 8 s (3 + 3 + 2), with sound.
	probe, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_type,width,height:format=duration", "-of", "json", out).Output()
	require.NoError(t, err)
	var info struct {
		Streams []struct {
			CodecType string `json:"codec_type"`
			Width     int
			Height    int
		}
		Format struct{ Duration string }
	}
	require.NoError(t, json.Unmarshal(probe, &info))
	var kinds []string
	for _, s := range info.Streams {
		kinds = append(kinds, s.CodecType)
		if s.CodecType == "video" {
			assert.Equal(t, [2]int{640, 360}, [2]int{s.Width, s.Height})
		}
	}
	assert.ElementsMatch(t, []string{"video", "audio"}, kinds)
	d, err := strconv.ParseFloat(info.Format.Duration, 64)
	require.NoError(t, err)
	assert.InDelta(t, 8.0, d, 0.15, "duration")

	// ffmpeg's own subtitles filter on the same edit, the same file and font.
	mid := filepath.Join(dir, "edit.mp4")
	fetchBody(t, edited, mid)
	fonts := filepath.Join(dir, "fonts")
	require.NoError(t, os.MkdirAll(fonts, 0o755))
	fb, err := os.ReadFile(font)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(fonts, filepath.Base(font)), fb, 0o644))
	ref := filepath.Join(dir, "ref.mp4")
	cmdOut, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", mid,
		"-vf", "subtitles=filename="+ass+":fontsdir="+fonts, "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-an", ref).CombinedOutput()
	require.NoError(t, err, "%s", cmdOut)
	for _, frame := range []int{25, 100} { // 1 s: the top caption; 4 s: the bottom-left one
		pic := filepath.Join(dir, fmt.Sprintf("ref%d.png", frame))
		cmdOut, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", ref, "-vf", fmt.Sprintf("select=eq(n\\,%d)", frame), "-frames:v", "1", pic).CombinedOutput()
		require.NoError(t, err, "%s", cmdOut)
		same := psnrAgainstFrame(t, out, frame, pic)
		t.Logf("frame %d: kino's caption.burn against ffmpeg's subtitles filter: luma PSNR %.1f dB", frame, same)
		assert.GreaterOrEqual(t, same, 35.0, "the captions as ffmpeg's subtitles filter draws the file")
		plain := psnrAgainstFrame(t, mid, frame, pic)
		assert.Less(t, plain, same-3, "and the captions are there (the frame without them differs)")
	}
}
