package engine

import (
	"fmt"
	"image"
	"math"
	"path/filepath"

	"github.com/kinohq/kino/server/paint"
)

// shape draws a rectangle or an ellipse. A rectangle of one colour with
// square corners and no outline is a color layer, which costs no picture,
// when it lands where a color layer would;
// any other shape is drawn by kino, once, as a picture of the part of the
// frame it covers (package paint), then repeated and faded like an image
// layer. The picture starts on even pixels, where overlay places a YUV
// 4:2:0 picture, so the shape itself lands on the exact pixel asked for.
// A shape that moves is painted whole and moved as a picture is (see
// movingShape).
func (p *planner) shape(i int, l Layer, video string) string {
	if p.plainRect(l) {
		return p.color(i, l, video)
	}
	if l.moves() {
		return p.movingShape(i, l, video)
	}
	box, r := p.shapeRect(l)
	win := frameWindow(l, p.s.FPS)
	if r.w <= 0 || r.h <= 0 || win.frames() == 0 {
		return video
	}
	in, _ := p.paintPicture(fmt.Sprintf("shape-%d.png", i), paintable(l, box.w, box.h, 1), box.x-r.x, box.y-r.y, r.w, r.h)
	lbl := fmt.Sprintf("l%d", i)
	p.graph = append(p.graph, join(fmt.Sprintf("[%d:v]format=yuva420p", in), opacity(l),
		win.repeat(), win.shift(), fades(l, win), p.ramp(i, l, win, r.w, r.h))+"["+lbl+"]")
	return p.overlay(i, win.enable(), video, lbl, fmt.Sprint(r.x), fmt.Sprint(r.y))
}

// paintable is a shape layer as paint draws it, w × h pixels, its corner
// radius and stroke scaled by k.
func paintable(l Layer, w, h int, k float64) paint.Shape {
	sh := paint.Shape{Ellipse: l.Kind == KindEllipse, Width: w, Height: h, Radius: int(math.Round(float64(l.Radius) * k))}
	if l.Color != "" {
		sh.Fill = nrgba(l.Color)
	}
	if l.Stroke.Width > 0 {
		// A stroke stays at least a pixel wide, as a scaled picture's
		// would stay visible.
		sh.StrokeWidth = max(1, int(math.Round(float64(l.Stroke.Width)*k)))
		sh.Stroke = nrgba(l.Stroke.Color)
	}
	if g := l.Gradient; g != nil {
		sh.Gradient = &paint.Gradient{Radial: g.Radial, Angle: g.Angle}
		for _, s := range g.Stops {
			sh.Gradient.Stops = append(sh.Gradient.Stops, paint.Stop{Offset: s.Offset, Color: nrgba(s.Color)})
		}
	}
	return sh
}

// paintPicture writes sh as the picture name, its corner at x, y of a
// w × h picture, and returns the input that reads it and the scale that
// brings it to w × h, if any. Painting costs memory in kino's process: a
// picture of more pixels than the frame (only a moving layer's can be) is
// painted with the frame's pixels, and scaled up by ffmpeg.
func (p *planner) paintPicture(name string, sh paint.Shape, x, y, w, h int) (int, string) {
	var size string
	if k := math.Sqrt(float64(p.s.Width*p.s.Height) / float64(w*h)); k < 1 {
		pw, ph := side(float64(w)*k), side(float64(h)*k)
		kx, ky := float64(pw)/float64(w), float64(ph)/float64(h)
		sh.Width, sh.Height = side(float64(sh.Width)*kx), side(float64(sh.Height)*ky)
		sh.Radius = int(math.Round(float64(sh.Radius) * min(kx, ky)))
		if sh.StrokeWidth > 0 {
			sh.StrokeWidth = max(1, int(math.Round(float64(sh.StrokeWidth)*min(kx, ky))))
		}
		x, y = int(math.Round(float64(x)*kx)), int(math.Round(float64(y)*ky))
		size = fmt.Sprintf("scale=w=%d:h=%d", w, h)
		w, h = pw, ph
	}
	img, err := paint.DrawContext(p.ctx, sh, x, y, w, h)
	if err != nil {
		// The plan stops at the end of this layer (plan checks ctx).
		img = image.NewNRGBA(image.Rect(0, 0, 1, 1))
	}
	p.files[name] = paint.PNG(img)
	return p.input(Media{Path: filepath.Join(p.workDir, name), Format: "png_pipe"}), size
}

// movingShape draws a shape that moves, turns or is scaled: painted
// whole, at the size its fixed scale gives it (its corners and stroke
// scaled too, so its edges stay sharp), then made translucent and turned
// once, repeated, and transformed as a still picture is.
func (p *planner) movingShape(i int, l Layer, video string) string {
	win := frameWindow(l, p.s.FPS)
	if win.frames() == 0 {
		return video
	}
	box, _ := p.shapeRect(l)
	dw, dh := drawn(l, box.w, box.h)
	k := min(float64(dw)/float64(box.w), float64(dh)/float64(box.h))
	in, size := p.paintPicture(fmt.Sprintf("shape-%d.png", i), paintable(l, dw, dh, k), 0, 0, dw, dh)
	form := &shape{boxW: box.w, boxH: box.h, w: dw, h: dh}
	var turn string
	if _, fixed := l.motion().Rotation.static(0); fixed {
		turn = form.rotate(l, clock{})
	}
	lbl := fmt.Sprintf("l%d", i)
	chain := join(fmt.Sprintf("[%d:v]%s", in, join(size, "format=yuva420p", opacity(l), turn)),
		win.repeat(), win.shift(), fades(l, win))
	tail, x, y, enable := p.transform(i, l, win, form)
	p.graph = append(p.graph, join(chain, tail)+"["+lbl+"]")
	return p.overlay(i, enable, video, lbl, x, y)
}

// plainRect reports whether a shape is drawn as a color layer: a
// rectangle of one colour, square corners, no outline, whose corner is
// where a color layer's would be (on even pixels, or centred as overlay
// centres it), or that moves.
func (p *planner) plainRect(l Layer) bool {
	if l.Kind != KindRectangle || l.Gradient != nil || l.Radius > 0 || l.Stroke.Width > 0 {
		return false
	}
	if l.moves() {
		// Overlay places a moving layer on even pixels, whatever draws it.
		return true
	}
	box, _ := p.shapeRect(l)
	return placed(l.X, p.s.Width, box.w) == box.x && placed(l.Y, p.s.Height, box.h) == box.y
}

// shapeRect is where a shape lies in the frame (by default the whole
// frame, as a color layer), and the part of the frame its picture covers:
// the shape cut to the frame, from an even corner, with even sides.
func (p *planner) shapeRect(l Layer) (rect, rect) {
	var box rect
	box.w, box.h = p.filled(l)
	box.x, box.y = corner(l.X, p.s.Width, box.w), corner(l.Y, p.s.Height, box.h)
	var b bounds
	b.add(box)
	return box, b.onFrame(p.s.Width, p.s.Height)
}
