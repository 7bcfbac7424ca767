package engine

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

func TestRanges(t *testing.T) {
	t.Parallel()
	s := &Scene{FPS: 25, Duration: 2.9}
	assert.Equal(t, []PartRange{{0, 25}, {25, 25}, {50, 23}}, s.Ranges(25))
	assert.Equal(t, []PartRange{{0, 73}}, s.Ranges(100))
}

// TestPartCutsAndLeads checks how a part takes each layer: left out when it
// shows none of the part's frames, cut to the part when it looks the same
// on every frame, and kept whole (the part's timeline leading from its
// start) when its look changes with time.
func TestPartCutsAndLeads(t *testing.T) {
	t.Parallel()
	s := &Scene{FPS: 10, Duration: 3, Format: "mp4", Layers: []Layer{
		{Kind: KindVideo, Start: 0, Duration: 3, TrimStart: 0.5, Source: "v"},
		{Kind: KindText, Start: 0.5, Duration: 2, FadeIn: 0.2},
		{Kind: KindColor, Start: 0, Duration: 0.5},
		{Kind: KindAudio, Start: 0, Duration: 3, Source: "a"},
	}, sources: []Source{{Key: "v"}, {Key: "a"}}}
	p := s.Part(PartRange{First: 10, Count: 10}, false)
	require.Len(t, p.Layers, 2)
	assert.Equal(t, 0.5, p.Layers[0].TrimStart, "the video plays from its trim")
	assert.Equal(t, 10, p.Layers[0].SkipFrames, "and skips the frames before the part")
	assert.Equal(t, 2.0, p.Layers[0].Duration)
	assert.Equal(t, 0.0, p.Layers[0].Start)
	assert.Equal(t, []Source{{Key: "v"}}, p.Sources())

	moving := *s
	moving.Layers = append([]Layer(nil), s.Layers...)
	moving.Layers[1].FadeIn = 0.8 // still fading in at 1 s
	p = moving.Part(PartRange{First: 10, Count: 10}, false)
	assert.Equal(t, 5, p.lead, "the part's timeline starts at the text's start")
	assert.Equal(t, 0.0, p.Layers[1].Start)
	assert.Equal(t, 0.5, p.Layers[0].Start, "the cut video starts with the part")
	assert.InDelta(t, 1.5, p.Duration, 1e-9)
	assert.InDelta(t, 1.0, p.Shown(), 1e-9)
}

// TestPartSeeks: the probes a part needs are its cut videos' (a mockup
// layer's picture seeks nothing), and an answer makes the layer seek.
func TestPartSeeks(t *testing.T) {
	t.Parallel()
	s := &Scene{FPS: 10, Duration: 3, Format: "mp4", Layers: []Layer{
		{Kind: KindVideo, Start: 0, Duration: 3, TrimStart: 0.5, Source: "v", SourceField: "layers[0].src"},
		{Kind: KindMockup, Start: 0, Duration: 3, Source: "p", Mockup: &Mockup{Template: "t"}},
		{Kind: KindVideo, Start: 1.5, Duration: 1, Source: "v"},
	}, sources: []Source{{Key: "v"}, {Key: "p"}, {Key: "t"}}}
	media := map[string]Media{"v": {Path: "/m/v", Format: "mov", HasVideo: true, Duration: 10},
		"p": {Path: "/m/p", Format: "png_pipe", HasVideo: true, Still: true}}
	p := s.Part(PartRange{First: 10, Count: 10}, false)
	require.Equal(t, []int{0, 1}, p.SeekLayers())
	seeks := p.Seeks(media)
	require.Equal(t, []Seek{{Layer: 0, Field: "layers[0].src", Path: "/m/v", Format: "mov", Trim: 0.5}}, seeks)
	p.Seeked(seeks[0], 0.04)
	assert.True(t, p.Layers[0].Seek)
	assert.Equal(t, 0.04, p.Layers[0].FirstFrame)
	assert.False(t, s.Layers[0].Seek, "the whole scene is not changed")
}

// TestRenderSplitEqualsWhole renders a composition whole and in three
// parts joined with its sound, and checks that the result is the same
// video: frames, duration and streams equal, every frame beside a
// boundary within 40 dB PSNR of the whole render's, and the sound
// continuous across boundaries.
func TestRenderSplitEqualsWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	comp := map[string]any{"width": 160, "height": 90, "fps": 25, "duration": 2.9,
		"poster": map[string]any{"capture": 1.5},
		"layers": []any{
			map[string]any{"type": "color", "color": "#203040", "start": 0, "duration": 2.9},
			// Straddles both boundaries, cut to each part.
			map[string]any{"type": "video", "src": "clip", "start": 0.3, "duration": 1.9, "x": 10, "y": 10, "width": 80, "volume": 0.5},
			// Fades in across the first boundary: its part leads from its start.
			map[string]any{"type": "text", "text": "kino", "fontSize": 20, "color": "white", "start": 0.6, "duration": 2, "x": 90, "y": 50, "fadeIn": 0.9, "fadeOut": 0.4},
			map[string]any{"type": "image", "src": "picture", "start": 0.8, "duration": 1.5, "x": 100, "y": 5, "opacity": 0.8},
			// Spans, their words coming in across the first boundary.
			map[string]any{"type": "text", "color": "white", "fontSize": 12, "start": 0.7, "duration": 2, "x": 10, "y": 60, "width": 140,
				"spans": []any{map[string]any{"text": "rich "}, map[string]any{"text": "text", "color": "#ffd166", "fontSize": 18, "backgroundColor": "#e63946"}, map[string]any{"text": " spans"}},
				"enter": map[string]any{"type": "fade", "by": "word", "stagger": 0.2, "duration": 0.3}},
			// A tone across both boundaries: any gap or step clicks.
			map[string]any{"type": "audio", "src": "tone", "start": 0, "duration": 2.9, "loop": true},
		}}
	files := testMedia(t)
	s, err := Compile("provider_a", mustJSON(t, comp), testAssets, DefaultLimits())
	require.NoError(t, err)
	media := map[string]Media{}
	for _, src := range s.Sources() {
		media[src.Key] = files[filepath.Base(src.URL)]
	}
	work := t.TempDir()
	lossless, seek := false, false
	run := func(cmd *Command, dur float64) {
		t.Helper()
		if lossless {
			// The frames before encoding: a lossless encode keeps them.
			for i := range cmd.Args {
				if i > 0 && cmd.Args[i-1] == "-crf" {
					cmd.Args[i] = "0"
				}
			}
		}
		require.NoError(t, cmd.WriteFiles(work))
		require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: dur}))
	}

	renderBoth := func(prefix string) (string, string) {
		whole := filepath.Join(work, prefix+"whole.mp4")
		cmd, err := Plan(context.Background(), s, inputs(media, testFont), work, whole)
		require.NoError(t, err)
		run(cmd, s.Duration)

		ranges := s.Ranges(25)
		require.Len(t, ranges, 3)
		var parts []string
		for i, r := range ranges {
			p := s.Part(r, i == len(ranges)-1)
			for _, l := range p.SeekLayers() {
				src := media[p.Layers[l].Source]
				first, err := ffmpeg.FirstFrameAfter(context.Background(), ffmpeg.Limits{}, src.Path, src.Format, p.Layers[l].TrimStart)
				require.NoError(t, err)
				p.Layers[l].FirstFrame, p.Layers[l].Seek = first, seek
			}
			out := filepath.Join(work, fmt.Sprintf("%spart-%03d.ts", prefix, i))
			cmd, err := PlanPart(context.Background(), p, inputs(media, testFont), work, out)
			require.NoError(t, err)
			require.NotContains(t, cmd.Args, "[aout]", "parts have no sound")
			run(cmd, p.Shown())
			parts = append(parts, out)
		}
		sound := filepath.Join(work, prefix+"sound.mp4")
		cmd, err = PlanSound(context.Background(), s, inputs(media, ""), work, sound)
		require.NoError(t, err)
		run(cmd, s.Duration)
		joined := filepath.Join(work, prefix+"joined.mp4")
		run(PlanJoin(s, ffmpeg.Limits{}, parts, sound, work, joined), s.Duration)

		return whole, joined
	}
	// Before encoding, the frames are the same, pixel for pixel, whether a
	// cut video seeks near its part or plays from its trim.
	lossless = true
	for _, seek = range []bool{false, true} {
		exactWhole, exactJoined := renderBoth(fmt.Sprintf("exact-%v-", seek))
		for _, n := range []int{0, 24, 25, 26, 49, 50, 51, 72} {
			assert.True(t, math.IsInf(psnrAt(t, exactWhole, exactJoined, n), 1), "frame %d the same before encoding (seek %v)", n, seek)
		}
	}
	lossless, seek = false, true
	whole, joined := renderBoth("")

	a, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, whole)
	require.NoError(t, err)
	b, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, joined)
	require.NoError(t, err)
	require.NotNil(t, b.Video())
	require.NotNil(t, b.Audio())
	assert.Equal(t, a.Video().NbFrames, b.Video().NbFrames, "frame count")
	assert.Equal(t, 73, b.Video().NbFrames)
	assert.InDelta(t, a.Duration, b.Duration, 0.001, "duration")
	assert.Equal(t, len(a.Streams), len(b.Streams), "streams")
	for _, pair := range [][2]*ffmpeg.Stream{{a.Video(), b.Video()}, {a.Audio(), b.Audio()}} {
		x, y := pair[0], pair[1]
		assert.Equal(t, x.CodecName, y.CodecName)
		assert.Equal(t, x.Width, y.Width)
		assert.Equal(t, x.Height, y.Height)
		assert.Equal(t, x.PixFmt, y.PixFmt)
		assert.Equal(t, x.SampleRate, y.SampleRate)
		assert.Equal(t, x.Channels, y.Channels)
		assert.InDelta(t, x.FPS, y.FPS, 0.001)
	}

	// Each frame beside a boundary, and the first and last.
	for _, n := range []int{0, 24, 25, 26, 49, 50, 51, 72} {
		psnr := psnrAt(t, whole, joined, n)
		t.Logf("frame %d: PSNR %.1f dB", n, psnr)
		assert.GreaterOrEqual(t, psnr, 40.0, "PSNR of frame %d", n)
	}

	// The same samples around each boundary: the sound was encoded once.
	wa, ja := decodeMono(t, whole), decodeMono(t, joined)
	require.InDelta(t, len(wa), len(ja), 1024)
	for _, boundary := range []float64{1, 2} {
		at := int(boundary * 48000)
		for i := at - 2400; i < at+2400; i++ {
			if math.Abs(wa[i]-ja[i]) > 1e-3 {
				t.Fatalf("sample %d near %v s differs: %v, whole %v", i, boundary, ja[i], wa[i])
			}
		}
		// No click: no jump between neighbouring samples larger than the
		// tone makes anywhere else.
		assert.Less(t, maxStep(ja[at-2400:at+2400]), 1.5*maxStep(ja[12000:16800]), "step at %v s", boundary)
	}
	assert.Greater(t, rms(ja[44000:52000]), 0.05, "the tone plays across the first boundary")
}

var psnrAvg = regexp.MustCompile(`average:([0-9.]+|inf)`)

// psnrAt is ffmpeg's PSNR of frame n of b against frame n of a.
func psnrAt(t *testing.T, a, b string, n int) float64 {
	t.Helper()
	sel := fmt.Sprintf("select=eq(n\\,%d),setpts=N", n)
	out, err := exec.Command("ffmpeg", "-hide_banner", "-i", a, "-i", b, "-filter_complex",
		fmt.Sprintf("[0:v]%s[x];[1:v]%s[y];[x][y]psnr", sel, sel), "-f", "null", "-").CombinedOutput()
	require.NoError(t, err, string(out))
	m := psnrAvg.FindSubmatch(out)
	require.NotNil(t, m, string(out))
	if string(m[1]) == "inf" {
		return math.Inf(1)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	return v
}

// maxStep is the largest difference between neighbouring samples.
func maxStep(s []float64) float64 {
	m := 0.0
	for i := 1; i < len(s); i++ {
		m = math.Max(m, math.Abs(s[i]-s[i-1]))
	}
	return m
}
