package engine

import (
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/mockup"
)

// mockupTemplate is the template of the mockup tests, written by ag-psd:
// 600×600, a smart object Front/Design in a perspective quad under a
// clipped multiply layer Front/Shading, and layers above it.
const mockupTemplate = "../mockup/testdata/mockup.psd"

// mockupMedia are the sources of a mockup layer's tests: the template and
// a 320×240 video whose picture changes on every frame (testsrc2), or one
// picture of it.
func mockupMedia(t *testing.T) (tpl, video, picture Media) {
	t.Helper()
	dir := t.TempDir()
	make := func(name string, args ...string) Media {
		path := filepath.Join(dir, name)
		out, err := exec.Command("ffmpeg", append(append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...), path)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path)
		require.NoError(t, err)
		return MediaFromInfo(path, info)
	}
	abs, err := filepath.Abs(mockupTemplate)
	require.NoError(t, err)
	video = make("design", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=10", "-t", "1",
		"-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv444p", "-f", "mp4")
	picture = make("still", "-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", "-f", "image2", "-c:v", "png")
	return Media{Path: abs, Template: true}, video, picture
}

// mockupScene compiles a composition of mockup layers whose template is
// "tpl" and whose src is "design", and gives their media.
func mockupScene(t *testing.T, comp map[string]any, design Media) (*Scene, map[string]Media) {
	t.Helper()
	tpl, _, _ := mockupMedia(t)
	s, err := Compile("provider_a", mustJSON(t, comp), map[string]string{"tpl": "https://example.com/t.psd", "design": "https://example.com/d"}, DefaultLimits())
	require.NoError(t, err)
	media := map[string]Media{}
	for _, src := range s.Sources() {
		if src.Template {
			media[src.Key] = tpl
		} else {
			media[src.Key] = design
		}
	}
	return s, media
}

// runPlan runs what plan makes of s, and returns the output's path.
func runPlan(t *testing.T, s *Scene, media map[string]Media, ext string,
	plan func(context.Context, *Scene, Inputs, string, string) (*Command, error)) (*Command, string) {
	t.Helper()
	work := t.TempDir()
	out := filepath.Join(work, "out."+ext)
	cmd, err := plan(context.Background(), s, inputs(media, testFont), work, out)
	require.NoError(t, err)
	require.NoError(t, cmd.WriteFiles(work))
	require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: s.Duration}), filterGraph(cmd))
	return cmd, out
}

// renderMockup renders a composition of mockup layers (see mockupScene)
// and returns its frames as RGB.
func renderMockup(t *testing.T, comp map[string]any, design Media) (*Command, [][]byte) {
	t.Helper()
	s, media := mockupScene(t, comp, design)
	cmd, out := runPlan(t, s, media, s.Format, Plan)
	return cmd, decodeRGB(t, out, s.Width, s.Height)
}

// designFrame is frame n of a video as a picture.
func designFrame(t *testing.T, m Media, n int) image.Image {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", m.Path, "-vf", "select=eq(n\\,"+itoa(n)+")",
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgba", "-").Output()
	require.NoError(t, err)
	img := image.NewNRGBA(image.Rect(0, 0, m.Width, m.Height))
	require.Len(t, out, len(img.Pix))
	copy(img.Pix, out)
	return img
}

func itoa(n int) string { return f(float64(n)) }

// stillMockup is mockup.render's picture of the template with design in
// Front/Design.
func stillMockup(t *testing.T, design image.Image, hide []string) *image.NRGBA {
	t.Helper()
	tpl, c, err := mockup.Load(mockupTemplate, ffmpeg.DefaultMaxPixels)
	require.NoError(t, err)
	defer c.Close()
	img, _, err := tpl.Render(mockup.Options{Designs: map[string]image.Image{"Front/Design": design}, Hide: hide})
	require.NoError(t, err)
	return img
}

// framePSNR is the PSNR of an RGB frame against a picture over r.
func framePSNR(frame []byte, w int, img *image.NRGBA, r image.Rectangle) float64 {
	var sum float64
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			for c := 0; c < 3; c++ {
				d := float64(frame[3*(y*w+x)+c]) - float64(img.Pix[img.PixOffset(x, y)+c])
				sum += d * d
				n++
			}
		}
	}
	if sum == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(sum/float64(n)))
}

// The layer: a video in the template's smart object, at the
// template's size at 0, 0. Every frame matches mockup.render with that
// frame of the video as the design, inside the quad and outside it; the
// video moves from frame to frame; the multiply shading is applied.
func TestRenderMockupVideo(t *testing.T) {
	t.Parallel()
	_, video, _ := mockupMedia(t)
	comp := map[string]any{"width": 600, "height": 600, "fps": 10, "format": "mov", "layers": []any{
		map[string]any{"type": "mockup", "template": "tpl", "smartObject": "Design", "src": "design", "start": 0, "duration": 1},
	}}
	cmd, frames := renderMockup(t, comp, video)
	require.Len(t, frames, 10)
	require.Contains(t, filterGraph(cmd), "perspective=")
	// A grey multiply shading is applied in YUV.
	require.Contains(t, filterGraph(cmd), "lut2=c0='16+(x-16)*y/255'")
	quad := image.Rect(150, 120, 450, 460)
	all := image.Rect(0, 0, 600, 600)
	for _, n := range []int{2, 7} {
		design := designFrame(t, video, n)
		still := stillMockup(t, design, nil)
		in, whole := framePSNR(frames[n], 600, still, quad), framePSNR(frames[n], 600, still, all)
		t.Logf("frame %d: PSNR against mockup.render %.1f dB in the quad's box, %.1f dB over the canvas", n, in, whole)
		require.Greater(t, in, 30.0, "frame %d in the quad", n)
		require.Greater(t, whole, 33.0, "frame %d over the canvas", n)
		// Without its shading the design is elsewhere: the shading is drawn.
		plain := stillMockup(t, design, []string{"Front/Shading"})
		require.Less(t, framePSNR(frames[n], 600, plain, quad), in-6, "frame %d without shading", n)
	}
	// The background outside the quad is the template's on every frame.
	corner := image.Rect(0, 0, 100, 100)
	still := stillMockup(t, designFrame(t, video, 0), nil)
	for _, n := range []int{0, 5, 9} {
		require.Greater(t, framePSNR(frames[n], 600, still, corner), 40.0, "frame %d outside the quad", n)
	}
	// The video plays: the quad of frame 2 is not that of frame 7.
	other := stillMockup(t, designFrame(t, video, 7), nil)
	require.Less(t, framePSNR(frames[2], 600, other, quad), 25.0)
}

// A picture in the smart object is mockup.render's picture, placed and
// sized as an image layer: here at half size, at 20, 40. A video there is
// drawn at that size, the template's pictures scaled once.
func TestRenderMockupSized(t *testing.T) {
	t.Parallel()
	_, video, picture := mockupMedia(t)
	comp := map[string]any{"width": 640, "height": 360, "fps": 10, "format": "mov", "background": "#000000", "layers": []any{
		map[string]any{"type": "mockup", "template": "tpl", "src": "design", "smartObject": "Front/Design", "start": 0, "duration": 0.5,
			"x": 20, "y": 40, "width": 300, "height": 300},
	}}
	design, err := mockup.DecodeDesign(picture.Path, ffmpeg.DefaultMaxPixels)
	require.NoError(t, err)
	for _, c := range []struct {
		name   string
		src    Media
		design image.Image
	}{{"picture", picture, design}, {"video", video, designFrame(t, video, 3)}} {
		cmd, frames := renderMockup(t, comp, c.src)
		if c.name == "video" {
			// The template is drawn at the layer's size.
			require.Contains(t, filterGraph(cmd), "overlay=x=74:y=60:format=yuv420:shortest=1")
		}
		still := mockup.Resize(stillMockup(t, c.design, nil), 300)
		moved := image.NewNRGBA(image.Rect(0, 0, 640, 360))
		for y := 0; y < 300; y++ {
			copy(moved.Pix[moved.PixOffset(20, 40+y):moved.PixOffset(320, 40+y)], still.Pix[still.PixOffset(0, y):still.PixOffset(300, y)])
		}
		p := framePSNR(frames[3], 640, moved, image.Rect(30, 50, 310, 330))
		t.Logf("%s design at 300×300: PSNR %.1f dB", c.name, p)
		require.Greater(t, p, 30.0, c.name)
	}
}

// A split render's parts draw the layer's frames as the whole render
// does, the design seeking near the part.
func TestPartMockup(t *testing.T) {
	t.Parallel()
	_, video, _ := mockupMedia(t)
	comp := map[string]any{"width": 600, "height": 600, "fps": 10, "layers": []any{
		map[string]any{"type": "mockup", "template": "tpl", "src": "design", "smartObject": "Design", "start": 0, "duration": 1},
	}}
	s, media := mockupScene(t, comp, video)
	_, whole := runPlan(t, s, media, "mp4", Plan)
	part := s.Part(PartRange{First: 5, Count: 5}, true)
	require.Len(t, part.Sources(), 2, "the part downloads the template and the design")
	require.Equal(t, 5, part.Layers[0].SkipFrames)
	require.Equal(t, []int{0}, part.SeekLayers())
	seekVideos(t, part, media)
	_, ts := runPlan(t, part, media, "ts", PlanPart)
	for n := range 5 {
		a, b := decodeRGB(t, whole, 600, 600)[5+n], decodeRGB(t, ts, 600, 600)[n]
		img := &image.NRGBA{Pix: make([]uint8, 4*600*600), Stride: 4 * 600, Rect: image.Rect(0, 0, 600, 600)}
		for i := range 600 * 600 {
			copy(img.Pix[4*i:4*i+3], a[3*i:3*i+3])
		}
		p := framePSNR(b, 600, img, image.Rect(0, 0, 600, 600))
		require.Greater(t, p, 40.0, "frame %d of the part against frame %d of the whole", n, 5+n)
	}
}

// A template the layer cannot draw is refused with the layer's fields.
func TestMockupCheck(t *testing.T) {
	t.Parallel()
	tpl, c, err := mockup.Load(mockupTemplate, ffmpeg.DefaultMaxPixels)
	require.NoError(t, err)
	defer c.Close()
	compile := func(layer map[string]any) *Scene {
		layer["type"], layer["template"], layer["src"], layer["start"], layer["duration"] = "mockup", "ast_0123abcd", "https://example.com/app.mp4", 0, 5
		s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 640, "height": 360, "fps": 30, "layers": []any{layer}}), nil, DefaultLimits())
		require.NoError(t, err)
		require.True(t, s.Sources()[0].Template)
		return s
	}
	check := func(layer map[string]any, m *mockup.Manifest) error {
		return compile(layer).Layers[0].Mockup.Check(m)
	}
	require.NoError(t, check(map[string]any{"smartObject": "Screen"}, &mockup.Manifest{Layers: []mockup.LayerInfo{{Path: "Screen", Name: "Screen", Kind: "smartObject", Visible: true, Blend: "normal"}},
		SmartObjects: []mockup.SmartObject{{Path: "Screen", Warp: "none", Blend: "normal", Visible: true}}}))
	require.NoError(t, check(map[string]any{"smartObject": "Design"}, &tpl.Manifest))
	err = check(map[string]any{"smartObject": "Other"}, &tpl.Manifest)
	require.EqualError(t, err, `composition.layers[0].smartObject: "Other" is a pixel layer, not a smart object (its smart objects: "Front/Design", "Back")`)
	err = check(map[string]any{}, &tpl.Manifest)
	require.ErrorContains(t, err, "composition.layers[0].smartObject: is required: the template has several smart objects")
	err = check(map[string]any{"smartObject": "Design", "hide": []any{"Nope"}}, &tpl.Manifest)
	require.EqualError(t, err, `composition.layers[0].hide: "Nope" is not a layer of the template`)
	warped := tpl.Manifest
	warped.SmartObjects = append([]mockup.SmartObject(nil), warped.SmartObjects...)
	warped.SmartObjects[0].Warp = "custom"
	require.NoError(t, check(map[string]any{"smartObject": "Front/Design"}, &warped), "a warp is drawn by remap")
	blended := tpl.Manifest
	blended.SmartObjects = append([]mockup.SmartObject(nil), blended.SmartObjects...)
	blended.SmartObjects[0].Blend = "multiply"
	err = check(map[string]any{"smartObject": "Front/Design"}, &blended)
	require.EqualError(t, err, `composition.layers[0].smartObject: "Front/Design" cannot be drawn in a render: it blends by multiply; a render draws a smart object that blends normally`)
	above := tpl.Manifest
	above.Layers = append([]mockup.LayerInfo(nil), above.Layers...)
	for i := range above.Layers {
		if above.Layers[i].Path == "Other" {
			above.Layers[i].Blend = "screen"
		}
	}
	err = check(map[string]any{"smartObject": "Front/Design"}, &above)
	require.ErrorContains(t, err, `layer "Other" above it blends by screen`)
	require.NoError(t, check(map[string]any{"smartObject": "Front/Design", "hide": []any{"Other"}}, &above))

	_, err = Compile("provider_a", mustJSON(t, map[string]any{"width": 640, "height": 360, "fps": 30, "layers": []any{
		map[string]any{"type": "mockup", "src": "https://example.com/app.mp4", "start": 0, "duration": 5}}}), nil, DefaultLimits())
	require.EqualError(t, err, "composition.layers[0].template: is required: the id of a psd_template asset, or the URL of a PSD")
}

// The layer exactly, on screen.psd (1280×720, a smart object
// "Screen" under a multiply shading and a bezel), as a still: a png at
// frameTime 0.5 shows frame 5 of the video in the screen, as mockup.render
// draws it; and with the template's hidden overlay glare shown, which is
// drawn in RGB (blend).
func TestRenderMockupStill(t *testing.T) {
	t.Parallel()
	_, video, _ := mockupMedia(t)
	abs, err := filepath.Abs("../mockup/testdata/screen.psd")
	require.NoError(t, err)
	tpl, c, err := mockup.Load(abs, ffmpeg.DefaultMaxPixels)
	require.NoError(t, err)
	defer c.Close()
	for _, show := range [][]string{nil, {"Glare"}} {
		layer := map[string]any{"type": "mockup", "template": "ast_0123abcd", "smartObject": "Screen", "src": "https://example.com/app.mp4", "start": 0, "duration": 1}
		if show != nil {
			layer["show"] = show
		}
		s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 1280, "height": 720, "fps": 10, "format": "png", "frameTime": 0.5,
			"layers": []any{layer}}), nil, DefaultLimits())
		require.NoError(t, err)
		media := map[string]Media{s.Sources()[0].Key: {Path: abs, Template: true}, s.Sources()[1].Key: video}
		cmd, out := runPlan(t, s, media, "png", Plan)
		if show != nil {
			require.Contains(t, filterGraph(cmd), "blend=all_mode=overlay")
		}
		frame := decodeRGB(t, out, 1280, 720)[0]
		if dst := os.Getenv("MOCKUP_OUT"); dst != "" {
			b, _ := os.ReadFile(out)
			require.NoError(t, os.WriteFile(fmt.Sprintf("%s-%d.png", dst, len(show)), b, 0o644))
		}
		still, _, err := tpl.Render(mockup.Options{Designs: map[string]image.Image{"Screen": designFrame(t, video, 5)}, Show: show})
		require.NoError(t, err)
		p := framePSNR(frame, 1280, still, image.Rect(0, 0, 1280, 720))
		t.Logf("still at frameTime 0.5, shown %v: PSNR %.1f dB against mockup.render", show, p)
		require.Greater(t, p, 33.0)
		if show != nil {
			// The glare is drawn: without it, the still is elsewhere.
			plain, _, err := tpl.Render(mockup.Options{Designs: map[string]image.Image{"Screen": designFrame(t, video, 5)}})
			require.NoError(t, err)
			q := framePSNR(frame, 1280, plain, image.Rect(0, 0, 1280, 720))
			t.Logf("against mockup.render without the glare: %.1f dB", q)
			require.Less(t, q, p-3)
		}
	}
}

// A mockup layer is a layer like the others: it slides in, turns, and
// hands over to the next by a transition, in both formats.
func TestRenderMockupMotion(t *testing.T) {
	t.Parallel()
	_, video, picture := mockupMedia(t)
	comp := map[string]any{"width": 320, "height": 180, "fps": 10, "format": "mov", "background": "#000000", "layers": []any{
		map[string]any{"type": "mockup", "template": "tpl", "smartObject": "Design", "src": "design", "start": 0, "duration": 1,
			"width": 180, "height": 180, "x": "center", "enter": map[string]any{"type": "slide", "side": "left", "duration": 0.5},
			"transition": map[string]any{"name": "wipeLeft", "duration": 0.3}},
		map[string]any{"type": "mockup", "template": "tpl", "smartObject": "Back", "src": "design", "start": 0.7, "duration": 0.8,
			"width": 180, "height": 180, "rotation": 10, "fit": "contain"},
	}}
	cmd, frames := renderMockup(t, comp, video)
	require.Len(t, frames, 15)
	require.Contains(t, filterGraph(cmd), "perspective=")
	// Mid-slide the layer is left of its place; once in, centred.
	lum := func(n, x int) float64 { c := meanRGB(frames[n], 320, x, 80, 8); return c[0] + c[1] + c[2] }
	require.Greater(t, lum(6, 160), 100.0, "frame 6: the template's grey in the middle")
	require.Less(t, lum(1, 230), 10.0, "frame 1: sliding in from the left, the right is black")
	_, frames = renderMockup(t, comp, picture)
	require.Len(t, frames, 15)

	s, err := Compile("unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 320, "height": 180, "fps": 10},
		"tracks": []any{map[string]any{"clips": []any{map[string]any{"start": 0, "length": 1, "position": map[string]any{"x": 10},
			"asset": map[string]any{"type": "mockup", "template": "https://example.com/t.psd", "smartObject": "Design", "src": "https://example.com/a.mp4", "trim": 2, "speed": 2, "volume": 0.5, "fit": "fill"}}}}}}),
		nil, DefaultLimits())
	require.NoError(t, err)
	l := s.Layers[0]
	require.Equal(t, Mockup{Template: "s0", SmartObject: "Design", Fit: "fill", TemplateField: "composition.tracks[0].clips[0].asset.template",
		SmartObjectField: "composition.tracks[0].clips[0].asset.smartObject", HideField: "composition.tracks[0].clips[0].asset.hide",
		ShowField: "composition.tracks[0].clips[0].asset.show"}, *l.Mockup)
	require.Equal(t, Pos{Px: 10}, l.X)
	require.Equal(t, Pos{}, l.Y, "no y: the template's top")
	require.Equal(t, 2.0, l.TrimStart)
	require.Equal(t, 2.0, l.Playback.Speed)
	require.Equal(t, 0.5, l.Volume)
}

// A template given by URL that is not a PSD kino draws fails the render
// naming the layer's template; a smart object it lacks, its smartObject.
func TestPlanMockupBadTemplate(t *testing.T) {
	t.Parallel()
	_, video, picture := mockupMedia(t)
	comp := map[string]any{"width": 320, "height": 180, "fps": 10, "layers": []any{
		map[string]any{"type": "mockup", "template": "tpl", "smartObject": "Screen", "src": "design", "start": 0, "duration": 1}}}
	s, media := mockupScene(t, comp, video)
	for _, src := range s.Sources() {
		if src.Template {
			media[src.Key] = Media{Path: picture.Path, Template: true}
		}
	}
	_, err := Plan(context.Background(), s, inputs(media, testFont), t.TempDir(), filepath.Join(t.TempDir(), "out.mp4"))
	var me *MediaError
	require.ErrorAs(t, err, &me)
	require.Equal(t, "composition.layers[0].template", me.Field, "%v", err)
	require.Contains(t, me.Message, "the template cannot be rendered")

	s, media = mockupScene(t, comp, video)
	_, err = Plan(context.Background(), s, inputs(media, testFont), t.TempDir(), filepath.Join(t.TempDir(), "out.mp4"))
	require.ErrorAs(t, err, &me)
	require.EqualError(t, err, `composition.layers[0].smartObject: "Screen" is not a layer of the template (its smart objects: "Front/Design", "Back")`)
}

// warpTemplate is a template with a warped smart object, written by
// ag-psd: 300×300, a smart object Design (200×200 content) in a 2×2 quilt
// warp that bulges its rows down by up to 20 pixels.
const warpTemplate = "../psd/testdata/warp-quilt.psd"

// A video in a warped smart object is drawn through remap's maps: each
// frame matches mockup.render with that frame as the design inside the
// warped area, the background outside it is the template's, and the
// video moves from frame to frame.
func TestRenderMockupWarped(t *testing.T) {
	t.Parallel()
	_, video, _ := mockupMedia(t)
	abs, err := filepath.Abs(warpTemplate)
	require.NoError(t, err)
	tpl, c, err := mockup.Load(abs, ffmpeg.DefaultMaxPixels)
	require.NoError(t, err)
	defer c.Close()
	s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 300, "height": 300, "fps": 10, "format": "mov", "layers": []any{
		map[string]any{"type": "mockup", "template": "ast_0123abcd", "smartObject": "Design", "src": "https://example.com/app.mp4", "start": 0, "duration": 1},
	}}), nil, DefaultLimits())
	require.NoError(t, err)
	require.NoError(t, s.Layers[0].Mockup.Check(&tpl.Manifest), "a warp is no longer refused")
	media := map[string]Media{s.Sources()[0].Key: {Path: abs, Template: true}, s.Sources()[1].Key: video}
	cmd, out := runPlan(t, s, media, "mov", Plan)
	graph := filterGraph(cmd)
	require.Contains(t, graph, "remap,format=yuv420p")
	require.NotContains(t, graph, "perspective=")
	frames := decodeRGB(t, out, 300, 300)
	require.Len(t, frames, 10)

	sp, err := tpl.Split("Design", video.Width, video.Height, mockup.Options{})
	require.NoError(t, err)
	src, xmap, _ := sp.Remap()
	require.Equal(t, sp.Box.Size(), src, "a frame is scaled to the box")
	require.Equal(t, sp.Box.Size(), xmap.Bounds().Size())
	// Inside: the pixels the design wholly covers; outside: those it
	// does not touch.
	var inside, outside []image.Point
	for y := 0; y < 300; y++ {
		for x := 0; x < 300; x++ {
			pt := image.Pt(x, y)
			switch a := uint8(0); {
			case pt.In(sp.Box):
				a = sp.Mask.GrayAt(x-sp.Box.Min.X, y-sp.Box.Min.Y).Y
				if a == 255 {
					inside = append(inside, pt)
				} else if a == 0 {
					outside = append(outside, pt)
				}
			default:
				outside = append(outside, pt)
			}
		}
	}
	require.Greater(t, len(inside), 150*150, "the warped area")
	still := func(n int) *image.NRGBA {
		img, _, err := tpl.Render(mockup.Options{Designs: map[string]image.Image{"Design": designFrame(t, video, n)}})
		require.NoError(t, err)
		return img
	}
	for _, n := range []int{2, 7} {
		in, bg := pointsPSNR(frames[n], 300, still(n), inside), pointsPSNR(frames[n], 300, still(n), outside)
		t.Logf("warped frame %d: PSNR against mockup.render %.1f dB inside the warp, %.1f dB outside", n, in, bg)
		require.Greater(t, in, 28.0, "frame %d inside the warp", n)
		require.Greater(t, bg, 36.0, "frame %d outside the warp", n)
	}
	other := pointsPSNR(frames[2], 300, still(7), inside)
	t.Logf("frame 2 against frame 7's still: %.1f dB", other)
	require.Less(t, other, 22.0, "the video plays")
}

// pointsPSNR is the PSNR of an RGB frame against a picture over pts.
func pointsPSNR(frame []byte, w int, img *image.NRGBA, pts []image.Point) float64 {
	var sum float64
	for _, pt := range pts {
		for c := 0; c < 3; c++ {
			d := float64(frame[3*(pt.Y*w+pt.X)+c]) - float64(img.Pix[img.PixOffset(pt.X, pt.Y)+c])
			sum += d * d
		}
	}
	if sum == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(sum/float64(3*len(pts))))
}

// A warped smart object in a perspective quad (Photoshop's own file), at
// the template's size and in a layer half its size, where the maps are
// made for the scaled template: the frame matches mockup.render's still
// (scaled by Resize, whose own smoothing costs a few dB).
func TestRenderMockupWarpedSized(t *testing.T) {
	t.Parallel()
	_, video, _ := mockupMedia(t)
	abs, err := filepath.Abs("../psd/testdata/photoshop/ag-werps.psd")
	require.NoError(t, err)
	tpl, c, err := mockup.Load(abs, ffmpeg.DefaultMaxPixels)
	require.NoError(t, err)
	defer c.Close()
	hide := []string{"3x3", "4x4", "5x5", "custom (2x6)", "distort"}
	img, _, err := tpl.Render(mockup.Options{Designs: map[string]image.Image{"perspective": designFrame(t, video, 3)}, Hide: hide})
	require.NoError(t, err)
	for _, c := range []struct {
		size int
		min  float64
	}{{1000, 28}, {500, 25}} {
		s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": c.size, "height": c.size, "fps": 10, "format": "mov", "layers": []any{
			map[string]any{"type": "mockup", "template": "ast_0123abcd", "smartObject": "perspective", "src": "https://example.com/app.mp4",
				"start": 0, "duration": 0.5, "width": c.size, "height": c.size, "hide": hide},
		}}), nil, DefaultLimits())
		require.NoError(t, err)
		media := map[string]Media{s.Sources()[0].Key: {Path: abs, Template: true}, s.Sources()[1].Key: video}
		cmd, out := runPlan(t, s, media, "mov", Plan)
		require.Contains(t, filterGraph(cmd), "remap,format=yuv420p")
		frames := decodeRGB(t, out, c.size, c.size)
		sp, err := tpl.Split("perspective", video.Width, video.Height, mockup.Options{Hide: hide})
		require.NoError(t, err)
		sp = sp.Scaled(c.size, c.size)
		var inside []image.Point
		for y := sp.Box.Min.Y; y < sp.Box.Max.Y; y++ {
			for x := sp.Box.Min.X; x < sp.Box.Max.X; x++ {
				if sp.Mask.GrayAt(x-sp.Box.Min.X, y-sp.Box.Min.Y).Y == 255 {
					inside = append(inside, image.Pt(x, y))
				}
			}
		}
		require.Greater(t, len(inside), c.size*c.size/20)
		p := pointsPSNR(frames[3], c.size, mockup.Resize(img, c.size), inside)
		t.Logf("warp in a perspective quad, drawn at %d×%d: PSNR %.1f dB inside the warp", c.size, c.size, p)
		require.Greater(t, p, c.min, "at %d", c.size)
	}
}

// TestMockupLayersAreBounded: a render of more mockup layers than
// maxMockupLayers is refused at compile, naming the first one too many,
// since each reads its template in kino's process when planned.
func TestMockupLayersAreBounded(t *testing.T) {
	t.Parallel()
	layers := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"type": "mockup", "template": "tpl", "smartObject": "Screen", "src": "design", "start": 0, "duration": 1}
		}
		return out
	}
	comp := func(n int) []byte {
		return mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "layers": layers(n)})
	}
	assets := map[string]string{"tpl": "https://example.com/t.psd", "design": "https://example.com/d"}
	_, err := Compile("provider_a", comp(maxMockupLayers), assets, DefaultLimits())
	require.NoError(t, err)
	_, err = Compile("provider_a", comp(maxMockupLayers+1), assets, DefaultLimits())
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, fmt.Sprintf("composition.layers[%d]", maxMockupLayers), ve.Field)
	require.Contains(t, ve.Message, "at most 8 mockup layers")
}
