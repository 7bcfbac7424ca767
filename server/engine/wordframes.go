package engine

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/yuva"
)

// Words that move, drawn by kino. While the words (letters) of a text
// layer come in or go out, kino draws each frame of the layer itself, in
// ffmpeg's yuva420p (package yuva): each unit's picture, drawn once,
// placed where its animation puts it on that frame, its alpha multiplied
// or its size scaled as ffmpeg's filters would. ffmpeg reads the frames
// as raw video and overlays one a frame, as it overlays plain text: the
// words' motion costs it nothing more. Drawing them as filters cost
// about ten filter runs a moving word a frame (docs/benchmarks.md, "Text
// by word").
//
// The frames are raw, 2.5 bytes a pixel of the part of the frame the
// moving units reach: two lines of 20 words sliding in over 2 s at
// 30 fps is 32 MB (1042×206 pixels a frame, the words and where they
// slide from). They are drawn as Command.WriteFiles writes them,
// one frame in memory at a time, and a command draws at most
// MaxDrawnBytes of them; the animations past that are ffmpeg's filters,
// as before, which need no disk. A still or a preview draws its one
// frame, a part of a split render the frames it shows.

// MaxDrawnBytes bounds the frames of words that move one command draws
// into its working folder: five 1280×720 layers of 20 words coming in
// over 2 s at 30 fps take 140 MB; a 1920×1080 caption box of 1600×300
// coming in and going out over 2 s each, 145 MB.
const MaxDrawnBytes = 512 << 20

// DrawnBytes is the most the commands of the scene write into their
// working folder as frames of words that move: MaxDrawnBytes when a
// layer's words or letters enter or exit in turn, 0 when none do. A
// render's attempt needs that much disk beside its output and downloads.
func (s *Scene) DrawnBytes() int64 {
	for _, l := range s.Layers {
		if m := l.Motion; m != nil && (m.Enter != nil && m.Enter.By != "" || m.Exit != nil && m.Exit.By != "") {
			return MaxDrawnBytes
		}
	}
	return 0
}

// unitPlace is where a unit of text animated by unit is drawn on one
// frame: its picture's top left and size (scaled when not the
// picture's own), and the alpha its own is multiplied by.
type unitPlace struct {
	unit       int
	x, y, w, h int
	alpha      uint8
}

// wordFrames are the frames kino draws of a text layer's units while an
// enter or exit moves them: frames first to end of the timeline, each
// the part canvas of the frame.
type wordFrames struct {
	fps        int
	first, end int
	canvas     rect
	t          *Transition
	fontSize   float64
	units      []layerUnit
}

// wordFrames are the frames of units moved by t: those the output shows
// (a part's or a still's from its lead on), on the part of the frame the
// units reach on any of them.
func (p *planner) wordFrames(l Layer, t *Transition, units []layerUnit) wordFrames {
	wf := wordFrames{fps: p.s.FPS, t: t, fontSize: float64(l.FontSize), units: units, first: math.MaxInt}
	for _, u := range units {
		if u.w.frames() > 0 {
			wf.first, wf.end = min(wf.first, u.w.first), max(wf.end, u.w.end)
		}
	}
	wf.first = max(wf.first, p.s.lead)
	var b bounds
	var places []unitPlace
	for n := wf.first; n < wf.end; n++ {
		places = wf.at(n, places[:0])
		for _, pl := range places {
			b.add(rect{x: pl.x, y: pl.y, w: pl.w, h: pl.h})
		}
	}
	wf.canvas = b.onFrame(p.s.Width, p.s.Height)
	return wf
}

// frames is how many frames are drawn.
func (wf wordFrames) frames() int { return max(wf.end-wf.first, 0) }

// bytes is what the frames take on disk.
func (wf wordFrames) bytes() int64 {
	return int64(wf.frames()) * yuva.Size(wf.canvas.w, wf.canvas.h)
}

// fits reports whether the frames are drawn, taking their bytes from
// budget when they are.
func (wf wordFrames) fits(budget *int64) bool {
	if wf.frames() == 0 || wf.canvas.w == 0 {
		return true // nothing to draw: no picture, no filter
	}
	if wf.bytes() > *budget {
		return false
	}
	*budget -= wf.bytes()
	return true
}

// at appends where the units are drawn on frame n to out, in the order
// they are drawn (the old ones first): as unitMotion's filters place
// them, on the same numbers.
func (wf wordFrames) at(n int, out []unitPlace) []unitPlace {
	// ffmpeg's time of a frame: its number times the time base.
	tm := float64(n) * (1 / float64(wf.fps))
	for k, u := range wf.units {
		if n < u.w.first || n >= u.w.end {
			continue
		}
		v := u.anim.presenceAt(tm, wf.t.Easing)
		pl := unitPlace{unit: k, x: u.r.x, y: u.r.y, w: u.r.w, h: u.r.h, alpha: 255}
		switch wf.t.Kind {
		case Fade, Slide:
			// geq makes the ramp's alpha, rounded down.
			pl.alpha = uint8(255 * v)
			if wf.t.Kind == Slide {
				off := (1 - v) * wf.fontSize
				switch wf.t.Side {
				case Left:
					pl.x = overlayXY(float64(u.r.x) - off)
				case Right:
					pl.x = overlayXY(float64(u.r.x) + off)
				case Top:
					pl.y = overlayXY(float64(u.r.y) - off)
				case Bottom:
					pl.y = overlayXY(float64(u.r.y) + off)
				}
			}
		case Zoom, Pop:
			z := v
			if wf.t.Kind == Pop {
				q := v - 1
				z = 1 + (popOvershoot+1)*math.Pow(q, 3) + popOvershoot*math.Pow(q, 2)
			}
			if !(z > 0.01) {
				continue
			}
			pl.w, pl.h = max(1, int(math.Round(float64(u.r.w)*z))), max(1, int(math.Round(float64(u.r.h)*z)))
			pl.x = overlayXY(float64(u.r.x) + float64(u.r.w-pl.w)/2)
			pl.y = overlayXY(float64(u.r.y) + float64(u.r.h-pl.h)/2)
		}
		if pl.alpha > 0 {
			out = append(out, pl)
		}
	}
	return out
}

// overlayXY is where overlay places a 4:2:0 picture asked at v: v
// rounded towards 0, then down to even.
func overlayXY(v float64) int { return int(v) &^ 1 }

// presenceAt is presence's value at tm seconds: how far the unit's
// animation has come, eased, from 0 (not there) to 1 (in its place).
func (a unitTimes) presenceAt(tm float64, e Easing) float64 {
	if a.d <= 0 {
		return 1
	}
	p := easeValue(e, math.Min(math.Max((tm-micro(a.start))/micro(a.d), 0), 1))
	if a.enter {
		return p
	}
	return 1 - p
}

// drawnWords plans the frames wf of layer i's enter (or exit) as a file
// of raw video that WriteFiles draws, read at the scene's frame rate and
// overlaid once a frame, with the layer's opacity and fades, by pl.
func (p *planner) drawnWords(i int, enter bool, l Layer, wf wordFrames, pl *stillPlacer) error {
	if wf.frames() == 0 || wf.canvas.w == 0 {
		return nil
	}
	sprites := make([]*yuva.Picture, len(wf.units))
	for k, u := range wf.units {
		img, err := p.unitPicture(l, u.lay)
		if err != nil {
			return err
		}
		sprites[k] = yuva.FromNRGBA(img)
	}
	// What the frame holds where no unit is: the colour the units'
	// pictures hold where they are transparent.
	empty := nrgba(textEdge(l, true))
	if sh := l.Style.Shadow; sh.Color != "" && sh.Blur > 0 {
		empty = nrgba(sh.Color)
	}
	empty.A = 0
	name := fmt.Sprintf("words-%d-enter.yuv", i)
	if !enter {
		name = fmt.Sprintf("words-%d-exit.yuv", i)
	}
	ctx := p.ctx
	p.drawn[name] = func(w io.Writer) error { return wf.draw(ctx, w, sprites, empty) }
	c := wf.canvas
	in := p.input(Media{Path: filepath.Join(p.workDir, name), Format: "rawvideo"},
		"-pixel_format", "yuva420p", "-video_size", fmt.Sprintf("%dx%d", c.w, c.h), "-framerate", strconv.Itoa(p.s.FPS))
	w := window{fps: p.s.FPS, first: wf.first, end: wf.end}
	pl.overlay(fmt.Sprintf("[%d:v]%s", in, join(w.shift(), opacity(l), fades(l, frameWindow(l, p.s.FPS)))),
		strconv.Itoa(c.x), strconv.Itoa(c.y), w.enable())
	return nil
}

// unitPicture draws a unit's glyphs (lay holds them alone) on a picture
// of its canvas, as textStill draws them for ffmpeg: a blurred shadow
// blurred as gblur blurs it, the glyphs laid over it as overlay lays
// them.
func (p *planner) unitPicture(l Layer, lay textLayout) (*image.NRGBA, error) {
	d, err := p.drawText(l, lay, p.textPicture(lay.canvas), false, true)
	if err != nil || d.shadow == nil {
		return d.top, err
	}
	yuva.Blur(d.shadow, shadowSigma(l))
	yuva.Over(d.shadow, d.top)
	if d.box != nil {
		// The unit's spans' backgrounds, under its blurred shadow.
		yuva.Over(d.box, d.shadow)
		return d.box, nil
	}
	return d.shadow, nil
}

// maxDrawers bounds the goroutines that draw one layer's frames.
const maxDrawers = 4

// draw writes the frames to w, each the units' pictures (sprites) placed
// on a canvas of empty; it stops when ctx is done. Its CPU time goes to
// ctx's meter. The frames are drawn by as many goroutines as the process
// has CPUs (at most maxDrawers), each a frame of its turn, each at most
// two frames ahead of w; a frame that places every unit as the frame
// before it is that frame again, not drawn twice (words at rest).
func (wf wordFrames) draw(ctx context.Context, w io.Writer, sprites []*yuva.Picture, empty color.NRGBA) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := max(1, min(runtime.GOMAXPROCS(0), maxDrawers, wf.frames()))
	drawers := make([]*frameDrawer, workers)
	var wg sync.WaitGroup
	for i := range drawers {
		d := &frameDrawer{done: make(chan *yuva.Picture, 2), free: make(chan *yuva.Picture, 2)}
		d.free <- yuva.New(wf.canvas.w, wf.canvas.h)
		d.free <- yuva.New(wf.canvas.w, wf.canvas.h)
		drawers[i] = d
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer meter.Thread(ctx)()
			d.run(ctx, wf, wf.first+i, workers, sprites, empty)
		}()
	}
	err := wf.write(ctx, w, drawers)
	cancel()
	wg.Wait()
	return err
}

// write writes the frames the drawers draw to w, in order: frame n is
// drawer (n-first) mod len(drawers)'s. A frame sent as nil is the one
// before it again.
func (wf wordFrames) write(ctx context.Context, w io.Writer, drawers []*frameDrawer) error {
	defer meter.Thread(ctx)()
	var last *yuva.Picture
	var lastFrom *frameDrawer
	for n := wf.first; n < wf.end; n++ {
		d := drawers[(n-wf.first)%len(drawers)]
		var pic *yuva.Picture
		select {
		case pic = <-d.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if pic != nil {
			// The frame before goes back to the drawer it came from.
			if last != nil {
				lastFrom.free <- last
			}
			last, lastFrom = pic, d
		}
		if _, err := last.WriteTo(w); err != nil {
			return err
		}
	}
	return nil
}

// frameDrawer draws every so many frames of a layer's words into the
// pictures it is given back (free), sending each on done.
type frameDrawer struct {
	done, free chan *yuva.Picture
}

// run draws frames from, from+step, … up to wf.end, until ctx is done.
func (d *frameDrawer) run(ctx context.Context, wf wordFrames, from, step int, sprites []*yuva.Picture, empty color.NRGBA) {
	var scaler yuva.Scaler
	var places, before []unitPlace
	for n := from; n < wf.end; n += step {
		places = wf.at(n, places[:0])
		if n > wf.first {
			if before = wf.at(n-1, before[:0]); slices.Equal(places, before) {
				if !d.send(ctx, nil) {
					return
				}
				continue
			}
		}
		var frame *yuva.Picture
		select {
		case frame = <-d.free:
		case <-ctx.Done():
			return
		}
		frame.Fill(empty)
		for _, pl := range places {
			s := sprites[pl.unit]
			if pl.w != s.W || pl.h != s.H {
				s = scaler.Scale(s, pl.w, pl.h)
			}
			frame.Draw(s, pl.x-wf.canvas.x, pl.y-wf.canvas.y, pl.alpha)
		}
		if !d.send(ctx, frame) {
			return
		}
	}
}

// send sends frame on done, false when ctx is done first.
func (d *frameDrawer) send(ctx context.Context, frame *yuva.Picture) bool {
	select {
	case d.done <- frame:
		return true
	case <-ctx.Done():
		return false
	}
}
