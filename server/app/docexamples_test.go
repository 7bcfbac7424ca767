package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// Every JSON example of docs/compositions.md is submitted as written and
// must render: the document promises it. Examples name their media at
// https://media.kino.example/ (see "Examples in this document" there); the
// test serves those files from 127.0.0.1 and sends the example with that
// host replaced, and nothing else changed.
//
// An example preceded by a line `<!-- frame: img/NAME.png at SECONDS -->`
// is pictured in the document by a frame of its render. The pictures are
// made by the same test:
//
//	make doc-frames
//
// (KINO_WRITE_DOC_FRAMES=1 go test ./server/app -run TestCompositionExamplesRender)
//
// An example preceded by `<!-- waveform: img/NAME.png -->` is pictured by
// the waveform of its render's sound instead, for what a frame cannot show
// (ducking, loudness).

const exampleMediaHost = "https://media.kino.example"

// docExample is one JSON block of the document that is a render request or
// a composition.
type docExample struct {
	line  int
	body  map[string]any
	frame string  // docs-relative path of its picture, if any
	at    float64 // seconds into the render of that picture
	wave  bool    // the picture is the waveform of the sound, not a frame
}

var (
	frameNote    = regexp.MustCompile(`<!--\s*frame:\s*(\S+)\s+at\s+([0-9.]+)\s*-->`)
	waveformNote = regexp.MustCompile(`<!--\s*waveform:\s*(\S+)\s*-->`)
)

func docExamples(t *testing.T, path string) []docExample {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	var out []docExample
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```json" {
			continue
		}
		start := i
		var block []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			block = append(block, lines[i])
		}
		var v map[string]any
		if json.Unmarshal([]byte(strings.Join(block, "\n")), &v) != nil {
			continue // a sketch with "…" in it, not an example
		}
		ex := docExample{line: start + 2, body: v}
		switch {
		case v["provider"] != nil && v["composition"] != nil:
		case v["layers"] != nil:
			ex.body = map[string]any{"provider": "provider_a", "composition": v}
		case v["tracks"] != nil:
			ex.body = map[string]any{"provider": "unified", "composition": v}
		default:
			continue // a fragment: one layer, one field
		}
		for j := start - 1; j >= 0 && j >= start-3; j-- {
			if m := frameNote.FindStringSubmatch(lines[j]); m != nil {
				ex.frame = m[1]
				fmt.Sscan(m[2], &ex.at)
				break
			}
			if m := waveformNote.FindStringSubmatch(lines[j]); m != nil {
				ex.frame, ex.wave = m[1], true
				break
			}
		}
		out = append(out, ex)
	}
	return out
}

// exampleMedia makes the files examples may name: a video with sound, a
// picture, a sound, a font, a captions file, a voice and two PSD
// templates.
func exampleMedia(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmds := [][]string{
		{"-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000",
			"-t", "8", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "video.mp4"},
		{"-f", "lavfi", "-i", "testsrc2=size=640x360", "-frames:v", "1", "picture.png"},
		{"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "8", "music.mp3"},
		{"-f", "lavfi", "-i", "flite=text='hello world. this is a test of the captions.':voice=slt", "speech.mp3"},
	}
	for _, args := range cmds {
		cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "make example media %v: %s", args, out)
	}
	for name, tpl := range map[string]string{"screen.psd": "screen.psd", "shirt.psd": "mockup.psd"} {
		b, err := os.ReadFile(filepath.Join("..", "mockup", "testdata", tpl))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	font, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "font.ttf"), font, 0o644))
	vtt := "WEBVTT\n\n00:00.500 --> 00:02.000\nA caption from a WebVTT file\n\n00:02.000 --> 00:03.500\n<v Ann>And a second one</v>\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "captions.vtt"), []byte(vtt), 0o644))
	return dir
}

func TestCompositionExamplesRender(t *testing.T) {
	t.Parallel()
	examples := docExamples(t, "../../docs/compositions.md")
	require.NotEmpty(t, examples)
	media := serveDir(t, http.FileServer(http.Dir(exampleMedia(t))))
	k := start(t, storetest.SQLite(t), nil)
	write := os.Getenv("KINO_WRITE_DOC_FRAMES") != ""

	var wg sync.WaitGroup
	for _, ex := range examples {
		raw, err := json.Marshal(ex.body)
		require.NoError(t, err)
		body := strings.ReplaceAll(string(raw), exampleMediaHost, media)
		r := k.do(t, http.MethodPost, "/api/render", body)
		require.Equal(t, http.StatusAccepted, r.status, "docs/compositions.md:%d: the example is refused: %s", ex.line, r.body)
		id := r.json(t)["jobId"].(string)
		rec := k.waitStatus(t, id, "completed", 2*time.Minute)
		if !write || ex.frame == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := filepath.Join("../../docs", ex.frame)
			src := k.do(t, http.MethodGet, strings.TrimPrefix(rec["outputUrl"].(string), k.base), nil)
			tmp := filepath.Join(t.TempDir(), "render")
			if !assertNoErr(t, os.WriteFile(tmp, src.body, 0o644)) || !assertNoErr(t, os.MkdirAll(filepath.Dir(out), 0o755)) {
				return
			}
			// One frame, at most 480 px wide: the document shows it, small.
			cmd := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-ss", fmt.Sprint(ex.at), "-i", tmp,
				"-frames:v", "1", "-vf", "scale='min(480,iw)':-2", out)
			if ex.wave {
				cmd = exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", tmp, "-filter_complex",
					// The example media are tones at an eighth of full scale:
					// drawn 8 times louder, so the picture shows their shape.
					"aformat=channel_layouts=mono,volume=8,showwavespic=s=480x100:colors=0x2f6fdf:scale=lin,pad=480:120:0:10:white",
					"-frames:v", "1", out)
			}
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("docs/compositions.md:%d: frame of the render: %v: %s", ex.line, err, b)
			}
		}()
	}
	wg.Wait()
}

func assertNoErr(t *testing.T, err error) bool {
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}
