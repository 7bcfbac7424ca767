package composite

import (
	"image"
	"image/draw"
	"math"

	"golang.org/x/image/vector"
)

// LineStyle is how a path is stroked, as Photoshop's vector strokes
// (vstk) say it.
type LineStyle struct {
	// Width is the stroke's width in pixels.
	Width float64
	// Align is "inside", "center" or "outside" the shape the path fills.
	Align string
	// Cap ends open outlines and dashes: "butt", "round" or "square".
	Cap string
	// Join meets two segments: "miter", "round" or "bevel"; a miter
	// longer than MiterLimit times the width is bevelled.
	Join       string
	MiterLimit float64
	// Dashes alternate dash and gap lengths in multiples of the width;
	// none is a solid line. DashOffset (also in widths) is how far into
	// the pattern each outline starts.
	Dashes     []float64
	DashOffset float64
}

// maxStrokePieces bounds the dashes, segments and joins one stroke is
// drawn with: a dash pattern of tiny lengths along a long outline, or
// thousands of curved knots with round joins, could otherwise ask for
// millions; past it the rest is left undrawn.
const maxStrokePieces = 1 << 16

// PathStroke is the antialiased coverage of the stroke of paths over r
// (canvas pixels). A centred stroke is drawn half each side of the
// outline; an inside or outside one is drawn twice as wide and cut to
// the shape the paths fill (fillAll and invert as PathShape takes them),
// or to what it leaves, its caps as wide as the stroke and on its side
// of the outline, as Photoshop aligns a vector stroke (round-capped dots
// of an inside stroke stay apart). Dashes along a closed outline start at
// its lowest knot, where Photoshop starts them.
func PathStroke(paths []Subpath, fillAll, invert bool, st LineStyle, r image.Rectangle) Shape {
	s := Shape{Rect: r, A: make([]float32, r.Dx()*r.Dy())}
	if r.Empty() || st.Width <= 0 {
		return s
	}
	half := st.Width / 2
	if st.Align == "inside" || st.Align == "outside" {
		half = st.Width
	}
	z := vector.NewRasterizer(r.Dx(), r.Dy())
	z.DrawOp = draw.Src
	k := stroker{z: z, st: st, half: half, origin: r.Min, size: max(r.Dx(), r.Dy()), budget: maxStrokePieces}
	if st.Align == "center" && math.Mod(st.Width, 2) == 1 && onPixelEdges(paths) {
		// A centred stroke an odd number of pixels wide along a path on
		// pixel edges would cover half pixels each side: Photoshop moves
		// it half a pixel right and down, so that it covers whole ones
		// (pt-double-stroke's 1-pixel stroke: exact with it, 4 levels
		// off without).
		k.nudge = 0.5
	}
	for _, p := range paths {
		if p.Closed && len(st.Dashes) > 0 {
			p = fromLowest(p)
		}
		pts := flatten(p)
		k.shift = 0
		if half != st.Width/2 {
			// Caps sit on the stroke's side of the outline: inside is
			// right of the way a clockwise outline (on screen) runs.
			k.shift = st.Width / 2 * float64(orientation(pts))
			if st.Align == "outside" {
				k.shift = -k.shift
			}
			if p.Op == 2 {
				k.shift = -k.shift
			}
		}
		k.line(pts, p.Closed)
	}
	plane := image.NewAlpha(image.Rect(0, 0, r.Dx(), r.Dy()))
	z.Draw(plane, plane.Rect, image.Opaque, image.Point{})
	for i, v := range plane.Pix {
		s.A[i] = float32(v) / 255
	}
	switch st.Align {
	case "inside":
		return s.Times(PathShape(paths, fillAll, invert, r))
	case "outside":
		return s.Times(PathShape(paths, fillAll, invert, r).Invert())
	}
	return s
}

// onPixelEdges is true when every point of paths (anchors and control
// points) lies on whole pixel coordinates.
func onPixelEdges(paths []Subpath) bool {
	for _, p := range paths {
		for _, k := range p.Knots {
			for _, q := range [3]Point{k.In, k.Anchor, k.Out} {
				if q.X != math.Round(q.X) || q.Y != math.Round(q.Y) {
					return false
				}
			}
		}
	}
	return true
}

// fromLowest is a closed outline starting at its lowest knot on the
// canvas (the first of the lowest).
func fromLowest(p Subpath) Subpath {
	lo := 0
	for i, k := range p.Knots {
		if k.Anchor.Y > p.Knots[lo].Anchor.Y {
			lo = i
		}
	}
	p.Knots = append(append([]Knot(nil), p.Knots[lo:]...), p.Knots[:lo]...)
	return p
}

// orientation is 1 when a polyline, closed, runs clockwise on the
// canvas, -1 when the other way.
func orientation(pts []vec) int {
	area := 0.0
	for i, p := range pts {
		area += p.cross(pts[(i+1)%len(pts)])
	}
	if area < 0 {
		return -1
	}
	return 1
}

// vec is a point or direction in canvas pixels.
type vec struct{ x, y float64 }

func (a vec) add(b vec) vec              { return vec{a.x + b.x, a.y + b.y} }
func (a vec) sub(b vec) vec              { return vec{a.x - b.x, a.y - b.y} }
func (a vec) mul(k float64) vec          { return vec{a.x * k, a.y * k} }
func (a vec) len() float64               { return math.Hypot(a.x, a.y) }
func (a vec) cross(b vec) float64        { return a.x*b.y - a.y*b.x }
func (a vec) normal() vec                { return vec{-a.y, a.x} }
func (a vec) unit() vec                  { return a.mul(1 / a.len()) }
func between(a, b vec, t float64) vec    { return a.add(b.sub(a).mul(t)) }
func vp(p Point) vec                     { return vec{p.X, p.Y} }
func closeTo(a, b vec, eps float64) bool { return a.sub(b).len() <= eps }

// flatten is an outline as a polyline: each Bezier segment cut into
// pieces short and straight enough that the line is off the curve by a
// small fraction of a pixel. Repeated points are dropped.
func flatten(p Subpath) []vec {
	if len(p.Knots) == 0 {
		return nil
	}
	pts := []vec{vp(p.Knots[0].Anchor)}
	seg := func(a, b Knot) {
		p0, p1, p2, p3 := vp(a.Anchor), vp(a.Out), vp(b.In), vp(b.Anchor)
		// The control points' distance from the chord says how many
		// pieces keep the line within 0.05 pixels of the curve.
		dev := math.Max(distToLine(p1, p0, p3), distToLine(p2, p0, p3))
		n := 256 // also for points not numbers
		if dev < 256*256/20 {
			n = int(math.Max(math.Ceil(math.Sqrt(dev*20)), 1))
		}
		for i := 1; i <= n; i++ {
			t := float64(i) / float64(n)
			q := between(between(between(p0, p1, t), between(p1, p2, t), t), between(between(p1, p2, t), between(p2, p3, t), t), t)
			if !closeTo(q, pts[len(pts)-1], 1e-9) {
				pts = append(pts, q)
			}
		}
	}
	for i := 1; i < len(p.Knots); i++ {
		seg(p.Knots[i-1], p.Knots[i])
	}
	if p.Closed {
		seg(p.Knots[len(p.Knots)-1], p.Knots[0])
		if len(pts) > 1 && closeTo(pts[0], pts[len(pts)-1], 1e-9) {
			pts = pts[:len(pts)-1]
		}
	}
	return pts
}

// distToLine is how far p lies from the line through a and b.
func distToLine(p, a, b vec) float64 {
	d := b.sub(a)
	if l := d.len(); l > 0 {
		return math.Abs(d.cross(p.sub(a))) / l
	}
	return p.sub(a).len()
}

// stroker adds a stroke's pieces to a rasteriser as convex polygons all
// wound the same way, so that the non-zero rule draws their union.
type stroker struct {
	z    *vector.Rasterizer
	st   LineStyle
	half float64
	// shift moves caps off the outline, along its normal.
	shift float64
	// nudge moves the whole stroke right and down.
	nudge  float64
	origin image.Point
	size   int
	budget int
}

// line strokes one polyline, cut into dashes when the style has them.
func (k *stroker) line(pts []vec, closed bool) {
	if len(pts) == 0 {
		return
	}
	if closed && len(pts) > 1 {
		pts = append(pts, pts[0])
	}
	total := 0.0
	for _, d := range k.st.Dashes {
		total += math.Max(d, 0)
	}
	if len(k.st.Dashes) == 0 || total*k.st.Width < 1e-3 || len(pts) < 2 {
		k.piece(pts, closed)
		return
	}
	k.dash(pts)
}

// dash cuts a polyline into the dashes of the pattern and strokes each
// as an open line with its caps; a dash of length zero is a cap alone (a
// dot with round caps). A pattern of an odd number of lengths is taken
// twice, as PostScript takes it, so that dashes and gaps alternate.
func (k *stroker) dash(pts []vec) {
	w := k.st.Width
	lens := make([]float64, len(k.st.Dashes))
	period := 0.0
	for i, d := range k.st.Dashes {
		lens[i] = math.Max(d, 0) * w
		period += lens[i]
	}
	if len(lens)%2 == 1 {
		lens = append(lens, lens...)
		period *= 2
	}
	// Where in the pattern the line starts.
	i, left := 0, lens[0]
	off := math.Mod(k.st.DashOffset*w, period)
	if off < 0 {
		off += period
	}
	for off > 0 {
		if off < left {
			left -= off
			break
		}
		off -= left
		i = (i + 1) % len(lens)
		left = lens[i]
	}
	var cur []vec
	if i%2 == 0 {
		cur = []vec{pts[0]}
	}
	for j := 1; j < len(pts) && k.budget > 0; j++ {
		a, b := pts[j-1], pts[j]
		segLen := b.sub(a).len()
		pos := 0.0
		for segLen-pos >= left && k.budget > 0 {
			pos += left
			q := between(a, b, pos/segLen)
			if i%2 == 0 {
				cur = append(cur, q)
				k.dot(cur, b.sub(a))
				cur = nil
			} else {
				cur = []vec{q}
			}
			i = (i + 1) % len(lens)
			left = lens[i]
			k.budget--
		}
		left -= segLen - pos
		if i%2 == 0 {
			cur = append(cur, b)
		}
	}
	if len(cur) > 0 {
		k.dot(cur, pts[len(pts)-1].sub(pts[len(pts)-2]))
	}
}

// dot strokes one dash; dir is the line's direction where it ends, for a
// dash of length zero.
func (k *stroker) dot(pts []vec, dir vec) {
	out := pts[:1]
	for _, p := range pts[1:] {
		if !closeTo(p, out[len(out)-1], 1e-9) {
			out = append(out, p)
		}
	}
	if len(out) == 1 {
		if dir.len() == 0 {
			return
		}
		k.capAt(out[0], dir.unit())
		return
	}
	k.piece(out, false)
}

// piece strokes one polyline: a quadrilateral per segment, a join at
// every inner vertex (and at the first when closed), and caps at the
// ends of an open one.
func (k *stroker) piece(pts []vec, closed bool) {
	if len(pts) == 1 {
		return
	}
	n := len(pts) - 1
	for i := 0; i < n && k.budget > 0; i++ {
		a, b := pts[i], pts[i+1]
		d := b.sub(a).unit()
		if !closed && k.st.Cap == "square" {
			if i == 0 {
				a = a.sub(d.mul(k.st.Width / 2))
			}
			if i == n-1 {
				b = b.add(d.mul(k.st.Width / 2))
			}
		}
		nm := d.normal().mul(k.half)
		k.poly(a.add(nm), b.add(nm), b.sub(nm), a.sub(nm))
		k.budget--
	}
	for i := 1; i < n && k.budget > 0; i++ {
		k.join(pts[i-1], pts[i], pts[i+1])
		k.budget--
	}
	if closed && n >= 2 {
		k.join(pts[n-1], pts[0], pts[1])
	}
	if !closed && k.st.Cap == "round" {
		k.capAt(pts[0], pts[1].sub(pts[0]).unit())
		k.capAt(pts[n], pts[n].sub(pts[n-1]).unit())
	}
}

// capAt draws a round cap at p, where the line runs along dir, or the
// cap of a dash of length zero: a disc or a square as wide as the
// stroke, on its side of the outline.
func (k *stroker) capAt(p, dir vec) {
	r := k.st.Width / 2
	p = p.add(dir.normal().mul(k.shift))
	switch k.st.Cap {
	case "round":
		k.disc(p, r)
	case "square":
		d, nm := dir.mul(r), dir.normal().mul(r)
		k.poly(p.sub(d).add(nm), p.add(d).add(nm), p.add(d).sub(nm), p.sub(d).sub(nm))
	}
}

// join fills the outer corner at b between segments a-b and b-c.
func (k *stroker) join(a, b, c vec) {
	d0, d1 := b.sub(a).unit(), c.sub(b).unit()
	turn := d0.cross(d1)
	if math.Abs(turn) < 1e-12 && d0.x*d1.x+d0.y*d1.y > 0 {
		return // straight on
	}
	// The outer side is the one the line turns away from.
	side := 1.0
	if turn > 0 {
		side = -1
	}
	p0, p1 := b.add(d0.normal().mul(k.half*side)), b.add(d1.normal().mul(k.half*side))
	switch k.st.Join {
	case "round":
		k.disc(b, k.half)
		return
	case "miter":
		// The miter's length over the width is 1/sin(θ/2), θ the angle
		// between the segments.
		cos := -(d0.x*d1.x + d0.y*d1.y)
		sinHalf := math.Sqrt(math.Max((1-cos)/2, 0))
		if sinHalf > 0 && 1/sinHalf <= math.Max(k.st.MiterLimit, 1) {
			mid := d0.normal().add(d1.normal()).mul(side)
			if l := mid.len(); l > 0 {
				tip := b.add(mid.mul(k.half / sinHalf / l))
				k.poly(b, p0, tip, p1)
				return
			}
		}
	}
	k.poly(b, p0, p1)
}

// disc is a circle of radius r around p, cut into enough sides to look
// round at its size.
func (k *stroker) disc(p vec, r float64) {
	n := int(math.Min(math.Max(math.Ceil(2*math.Pi*r/1.5), 8), 128))
	pts := make([]vec, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / float64(n)
		pts[i] = p.add(vec{math.Cos(a), math.Sin(a)}.mul(r))
	}
	k.poly(pts...)
}

// poly adds a convex polygon, wound clockwise on screen whichever way
// its points come.
func (k *stroker) poly(pts ...vec) {
	area := 0.0
	for i, p := range pts {
		area += p.cross(pts[(i+1)%len(pts)])
	}
	if area < 0 {
		for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
			pts[i], pts[j] = pts[j], pts[i]
		}
	}
	ox, oy := float64(k.origin.X)-k.nudge, float64(k.origin.Y)-k.nudge
	lo, hi := -margin*float64(k.size), (margin+1)*float64(k.size)
	pt := func(q vec) (float32, float32) {
		return float32(clampF(q.x-ox, lo, hi)), float32(clampF(q.y-oy, lo, hi))
	}
	x, y := pt(pts[0])
	k.z.MoveTo(x, y)
	for _, q := range pts[1:] {
		x, y := pt(q)
		k.z.LineTo(x, y)
	}
	k.z.ClosePath()
}
