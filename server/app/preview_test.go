package app_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/structpb"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

var (
	slidesOnce sync.Once
	slidesDir  string
	slidesErr  error
)

// slides makes four distinct pictures once per test binary.
func slides(t *testing.T) string {
	t.Helper()
	slidesOnce.Do(func() {
		slidesDir, slidesErr = os.MkdirTemp("", "kino-slides-")
		if slidesErr != nil {
			return
		}
		for i, src := range []string{"testsrc2", "smptehdbars", "mandelbrot", "rgbtestsrc"} {
			out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
				"-i", src+"=size=640x360:rate=1", "-frames:v", "1", filepath.Join(slidesDir, fmt.Sprintf("slide%d.png", i))).CombinedOutput()
			if err != nil {
				slidesErr = fmt.Errorf("make slide %s: %v: %s", src, err, out)
				return
			}
		}
	})
	require.NoError(t, slidesErr)
	return slidesDir
}

// slideshow is a render request of four pictures with Ken Burns, joined
// by crossfades, under a boxed title that slides in: 9 s at fps 25.
func slideshow(base string, width, height int) map[string]any {
	var layers []any
	for i := 0; i < 4; i++ {
		l := map[string]any{"type": "image", "src": fmt.Sprintf("%s/slide%d.png", base, i),
			"x": 0, "y": 0, "width": width, "height": height, "start": 2 * i, "duration": 3,
			"kenBurns": []string{"zoomIn", "panRight", "zoomOut", "panLeft"}[i]}
		if i < 3 {
			l["transition"] = map[string]any{"name": "fade", "duration": 1}
		}
		layers = append(layers, l)
	}
	layers = append(layers, map[string]any{"type": "text", "text": "Previews are the render's own frames",
		"fontSize": height / 18, "color": "white", "x": "center", "y": height * 3 / 4, "width": width * 2 / 3, "align": "center",
		"backgroundColor": "#000000aa", "paddingX": 16, "paddingY": 10, "borderRadius": 12, "start": 0.5, "duration": 8,
		"enter": map[string]any{"type": "slide", "side": "left", "duration": 1}})
	// Words that come in and go out one by one, under way at 2.5 s and
	// at 7.3 s.
	layers = append(layers, map[string]any{"type": "text", "text": "one word at a time", "fontSize": height / 12, "color": "#ffd166",
		"x": width / 10, "y": height / 10, "start": 1.5, "duration": 6,
		"enter": map[string]any{"type": "slide", "side": "bottom", "by": "word", "stagger": 0.3, "duration": 0.8},
		"exit":  map[string]any{"type": "fade", "by": "letter", "stagger": 0.02}})
	return map[string]any{"provider": "provider_a", "composition": map[string]any{
		"width": width, "height": height, "fps": 25, "background": "#101820", "layers": layers}}
}

// TestPreviewIsTheRendersFrame: previews, over REST and gRPC, are the
// frames the finished render shows at the same times, one of them inside
// a crossfade; a width scales the frame, the aspect kept; a time outside
// the composition is a 400 naming time.
func TestPreviewIsTheRendersFrame(t *testing.T) {
	t.Parallel()
	media := serveDir(t, http.FileServer(http.Dir(slides(t))))
	k := start(t, storetest.SQLite(t), nil)
	req := slideshow(media, 320, 180)

	// ProRes keeps the render's frames all but as drawn, so that what
	// is compared is the drawing, not an encoder's losses.
	movie := withFields(req)
	movie["composition"] = withFields(req["composition"].(map[string]any), "format", "mov")
	id := k.submit(t, movie)
	job := k.waitStatus(t, id, "completed", 2*60e9)
	video := filepath.Join(t.TempDir(), "render.mov")
	fetchBody(t, job["outputUrl"].(string), video)

	dir := t.TempDir()
	for _, at := range []float64{1.0, 2.5, 7.3} { // 2.5: inside the crossfade of slides 0 and 1
		body := withFields(req, "time", at, "format", "png")
		r := k.do(t, http.MethodPost, "/api/render/preview", body)
		require.Equal(t, http.StatusOK, r.status, "preview at %v: %s", at, r.body)
		require.Equal(t, "image/png", r.header.Get("Content-Type"))
		pic := filepath.Join(dir, fmt.Sprintf("preview-%v.png", at))
		require.NoError(t, os.WriteFile(pic, r.body, 0o644))
		n := int(math.Floor(at * 25))
		still := withFields(req)
		still["composition"] = withFields(req["composition"].(map[string]any), "format", "png", "frameTime", at)
		sid := k.submit(t, still)
		sj := k.waitStatus(t, sid, "completed", 60e9)
		sp := filepath.Join(dir, fmt.Sprintf("still-%v.png", at))
		fetchBody(t, sj["outputUrl"].(string), sp)
		assert.Equal(t, math.Inf(1), psnrAgainstFrame(t, sp, 0, pic), "the preview at %v is the still render's picture", at)
		same := psnrAgainstFrame(t, video, n, pic)
		t.Logf("time %v: preview against frame %d of the render: luma PSNR %.1f dB", at, n, same)
		assert.GreaterOrEqual(t, same, 40.0, "the preview at %v is the render's frame %d", at, n)
		other := psnrAgainstFrame(t, video, n+12, pic)
		assert.Less(t, other, same-3, "the preview at %v is told apart from frame %d", at, n+12)
	}

	// gRPC answers the same picture, with its size; a width scales it.
	comp, err := structpb.NewStruct(req["composition"].(map[string]any))
	require.NoError(t, err)
	at, width := 2.5, int32(160)
	got, err := k.rpc.PreviewRender(context.Background(), &renderv1.PreviewRenderRequest{Provider: "provider_a",
		Composition: comp, Time: &at, Width: &width})
	require.NoError(t, err)
	assert.Equal(t, "image/jpeg", got.GetContentType())
	assert.Equal(t, []int32{160, 90}, []int32{got.GetWidth(), got.GetHeight()})
	r := k.do(t, http.MethodPost, "/api/render/preview", withFields(req, "time", 2.5, "width", 160))
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, got.GetData(), r.body, "REST and gRPC draw one picture")

	for _, bad := range []float64{9, -1, 30} {
		r := k.do(t, http.MethodPost, "/api/render/preview", withFields(req, "time", bad))
		require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		assert.Regexp(t, `^time: `, r.json(t)["error"].(map[string]any)["message"])
	}
	r = k.do(t, http.MethodPost, "/api/render/preview", req)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Regexp(t, `^time: is required`, r.json(t)["error"].(map[string]any)["message"])
}

var psnrLuma = regexp.MustCompile(`PSNR y:([0-9.]+|inf)`)

// withFields is a copy of a request with fields added.
func withFields(req map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range req {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// psnrAgainstFrame is ffmpeg's PSNR of the luma of a picture against
// that of frame n of a video. Luma alone: the picture's colour went
// through RGB, which blurs chroma edges a little.
func psnrAgainstFrame(t *testing.T, video string, n int, picture string) float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-i", video, "-i", picture, "-filter_complex",
		fmt.Sprintf("[0:v]select=eq(n\\,%d),setpts=N,format=yuv444p[x];[1:v]format=yuv444p[y];[x][y]psnr", n),
		"-frames:v", "1", "-f", "null", "-").CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := psnrLuma.FindSubmatch(out)
	require.NotNil(t, m, "%s", out)
	if string(m[1]) == "inf" {
		return math.Inf(1)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	return v
}

// TestPreviewsAreBounded: with --max-previews 1, a preview that finds the
// one slot taken (by a preview whose source is still downloading) waits,
// then is refused 503 TOO_MANY_PREVIEWS; the first one then completes.
func TestPreviewsAreBounded(t *testing.T) {
	t.Parallel()
	dir := slides(t)
	asked, release := make(chan struct{}, 1), make(chan struct{})
	files := http.FileServer(http.Dir(dir))
	media := serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-release
		files.ServeHTTP(w, r)
	}))
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open) // before the file server closes, should the test stop early
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.MaxPreviews = 1 })
	req := withFields(slideshow(media, 320, 180), "time", 0.2)

	first := make(chan response, 1)
	go func() { first <- k.do(t, http.MethodPost, "/api/render/preview", req) }()
	<-asked // the first preview holds the slot, downloading
	r := k.do(t, http.MethodPost, "/api/render/preview", req)
	assert.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
	assert.Equal(t, "TOO_MANY_PREVIEWS", r.errorCode(t))
	open()
	r = <-first
	assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, "image/jpeg", r.header.Get("Content-Type"))
}
