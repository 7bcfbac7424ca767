package engine

import (
	"fmt"
	"math"
)

// Fit is how a picture fills its layer's box (width × height).
type Fit string

// The fits. Without one, a layer keeps today's sizing: natural size, one
// side with the aspect ratio kept, or both sides stretched.
const (
	// FitFill stretches the picture to the box.
	FitFill Fit = "fill"
	// FitContain shows the whole picture, as large as fits, centred; the
	// rest of the box is transparent.
	FitContain Fit = "contain"
	// FitCover fills the box with the picture's middle, cutting what
	// overflows.
	FitCover Fit = "cover"
	// FitContainBlur is FitContain over a blurred copy of the picture that
	// covers the box, so the bars are no flat colour.
	FitContainBlur Fit = "contain-blur"
)

// Look is how an image or video layer's picture is shown, in the order
// it is applied: cut (Crop), mirrored (FlipH, FlipV), sized to the box
// (Fit), coloured (Filters). The zero value shows it as it is.
type Look struct {
	Crop         Crop
	FlipH, FlipV bool
	// Fit is empty when the layer has none.
	Fit Fit
	// Filters are in the order they apply, each at most once; unused
	// entries have no Name. (An array keeps Layer comparable.)
	Filters [len(filterFields)]Filter
}

// Crop cuts fractions of the source's width (Left, Right) and height
// (Top, Bottom) off its edges; each pair adds up to less than 1.
type Crop struct {
	Top, Bottom, Left, Right float64
}

// Filter is one colour or blur filter and its amount.
type Filter struct {
	Name   string
	Amount float64
}

// filterFields are the filters a layer may ask for, in the order they
// apply, each with its range and the amount that changes nothing.
//
//nolint:gochecknoglobals // read-only table: the picture filters' fields
var filterFields = [...]struct {
	name          string
	lo, hi, ident float64
}{
	{"blur", 0, 100, 0},
	// Factors up to 2: colorchannelmixer takes coefficients of -2 to 2.
	{"brightness", 0, 2, 1},
	{"contrast", 0, 2, 1},
	{"saturation", 0, 2, 1},
	{"greyscale", 0, 1, 0},
	{"sepia", 0, 1, 0},
	{"invert", 0, 1, 0},
}

// picture reads how an image or video layer's picture is shown: fit,
// flip and filters from look (the layer in provider_a, the clip in
// unified, as Shotstack puts them), crop from cut (the layer, or the
// clip's asset).
func (c *compiler) picture(look, cut *object, l *Layer) {
	if l.Kind != KindImage && l.Kind != KindVideo {
		return
	}
	pic := &l.Look
	pic.Fit = Fit(look.enum("fit", "", string(FitFill), string(FitContain), string(FitCover), string(FitContainBlur)))
	if pic.Fit != "" {
		// A fit fills a box: the layer's width and height, each the
		// frame's when not given.
		if l.Width == 0 {
			l.Width = c.scene.Width
		}
		if l.Height == 0 {
			l.Height = c.scene.Height
		}
	}
	switch look.enum("flip", "", "horizontal", "vertical", "both") {
	case "horizontal":
		pic.FlipH = true
	case "vertical":
		pic.FlipV = true
	case "both":
		pic.FlipH, pic.FlipV = true, true
	}
	if cut.has("crop") {
		o := cut.child("crop")
		cr := Crop{Top: o.number("top", 0, 0, 1), Bottom: o.number("bottom", 0, 0, 1),
			Left: o.number("left", 0, 0, 1), Right: o.number("right", 0, 0, 1)}
		o.done()
		switch {
		case c.r.err != nil:
		case cr.Left+cr.Right >= 1:
			c.r.fail(o.path, "left and right together (%s) must be less than 1, or nothing of the width is left", num(micro(cr.Left+cr.Right)))
		case cr.Top+cr.Bottom >= 1:
			c.r.fail(o.path, "top and bottom together (%s) must be less than 1, or nothing of the height is left", num(micro(cr.Top+cr.Bottom)))
		}
		pic.Crop = cr
	}
	if look.has("filters") {
		o := look.child("filters")
		n := 0
		for _, ff := range filterFields {
			if v := o.number(ff.name, ff.ident, ff.lo, ff.hi); v != ff.ident {
				pic.Filters[n] = Filter{Name: ff.name, Amount: v}
				n++
			}
		}
		o.done()
	}
}

// look is what a layer's Look adds to its chain: before, the filters
// that cut, mirror and fit its decoded frames, ending at the size of the
// layer's box when it has a fit; after, once the frames are sized, those
// that colour them. i numbers the labels of a chain that splits
// (contain-blur).
func (p *planner) look(i int, l Layer) (before, after string) {
	pic := l.Look
	head := join(crop(pic.Crop), flip(pic))
	filters := colorFilters(pic.Filters)
	// A fitted layer's box is its width and height, which Compile set.
	w, h := l.Width, l.Height
	switch pic.Fit {
	case "":
		return head, filters
	case FitFill:
		return join(head, fmt.Sprintf("scale=w=%d:h=%d", w, h), filters), ""
	case FitCover:
		return join(head, coverBox(w, h), filters), ""
	case FitContain:
		// Coloured before the bars are added, which stay transparent.
		return join(head, containBox(w, h), filters, padBox(w, h)), ""
	default: // FitContainBlur
		// The background and the picture come from one decoded frame,
		// split; the filters colour both at once, after. The background
		// is blurred at a quarter of the box's size and scaled up, the
		// same to the eye at a fraction of the cost.
		bgIn, fgIn, bg, fg := fmt.Sprintf("l%dbi", i), fmt.Sprintf("l%dfi", i), fmt.Sprintf("l%dbg", i), fmt.Sprintf("l%dfg", i)
		sigma := math.Max(1, math.Round(float64(max(w, h))/blurDivisor))
		blurred := join(coverBox(max(w/4, 1), max(h/4, 1)), gaussian(sigma/4), fmt.Sprintf("scale=w=%d:h=%d", w, h))
		return join(head, fmt.Sprintf("split[%s][%s];[%s]%s[%s];[%s]%s[%s];[%s][%s]overlay=x=(W-w)/2:y=(H-h)/2",
			bgIn, fgIn, bgIn, blurred, bg, fgIn, containBox(w, h), fg, bg, fg), filters), ""
	}
}

// blurDivisor sets how blurred the background of contain-blur is: a
// standard deviation of the box's longer side over this, enough that no
// edge of the picture is left in it.
const blurDivisor = 30

// of is a picture's size once c is cut off it, as crop computes it.
func (c Crop) of(m Media) Media {
	if c == (Crop{}) || m.Width <= 0 || m.Height <= 0 {
		return m
	}
	m.Width = max(1, int(float64(m.Width)*micro(1-c.Left-c.Right)))
	m.Height = max(1, int(float64(m.Height)*micro(1-c.Top-c.Bottom)))
	return m
}

// crop cuts the fractions of c off the edges; at least a pixel is left,
// and exact keeps odd offsets of subsampled pictures where they are.
func crop(c Crop) string {
	if c == (Crop{}) {
		return ""
	}
	return fmt.Sprintf("crop=w=max(1\\,iw*%s):h=max(1\\,ih*%s):x=iw*%s:y=ih*%s:exact=1",
		f(micro(1-c.Left-c.Right)), f(micro(1-c.Top-c.Bottom)), f(c.Left), f(c.Top))
}

func flip(pic Look) string {
	var parts []string
	if pic.FlipH {
		parts = append(parts, "hflip")
	}
	if pic.FlipV {
		parts = append(parts, "vflip")
	}
	return join(parts...)
}

// coverBox cuts the middle of the picture to the box's aspect ratio, then
// scales it to the box: cutting first keeps a very thin picture from
// being scaled up to an enormous frame. At least a pixel is kept.
func coverBox(w, h int) string {
	return fmt.Sprintf("crop=w=max(1\\,min(iw\\,ih*%d/%d)):h=max(1\\,min(ih\\,iw*%d/%d)):exact=1,scale=w=%d:h=%d", w, h, h, w, w, h)
}

// containBox scales the picture to fit inside the box, at least a pixel
// on each side.
func containBox(w, h int) string {
	k := fmt.Sprintf("min(%d/iw\\,%d/ih)", w, h)
	return fmt.Sprintf("scale=w=max(1\\,round(iw*%s)):h=max(1\\,round(ih*%s))", k, k)
}

// padBox centres a contained picture in its box, on transparency. It pads
// in 4:4:4: in 4:2:0 pad rounds sizes and offsets down to even numbers.
func padBox(w, h int) string {
	return fmt.Sprintf("format=yuva444p,pad=w=%d:h=%d:x=(ow-iw)/2:y=(oh-ih)/2:color=0x00000000", w, h)
}

// colorFilters are the filters of a picture as ffmpeg filters. The colour
// filters are CSS's filter functions of the same names: each a matrix or
// a curve on R, G and B, applied in RGB (gbrap, so alpha stays) with the
// result clipped after each. blur is a Gaussian blur, its amount the
// standard deviation in pixels of the layer.
func colorFilters(filters [len(filterFields)]Filter) string {
	var parts []string
	for _, fl := range filters {
		a := fl.Amount
		switch fl.Name {
		case "blur":
			parts = append(parts, gaussian(a))
		case "brightness":
			parts = append(parts, mixer([9]float64{a, 0, 0, 0, a, 0, 0, 0, a}))
		case "contrast":
			parts = append(parts, curve(fmt.Sprintf("(val-maxval/2)*%s+maxval/2", f(a))))
		case "saturation":
			parts = append(parts, mixer([9]float64{
				0.213 + 0.787*a, 0.715 - 0.715*a, 0.072 - 0.072*a,
				0.213 - 0.213*a, 0.715 + 0.285*a, 0.072 - 0.072*a,
				0.213 - 0.213*a, 0.715 - 0.715*a, 0.072 + 0.928*a}))
		case "greyscale":
			k := 1 - a
			parts = append(parts, mixer([9]float64{
				0.2126 + 0.7874*k, 0.7152 - 0.7152*k, 0.0722 - 0.0722*k,
				0.2126 - 0.2126*k, 0.7152 + 0.2848*k, 0.0722 - 0.0722*k,
				0.2126 - 0.2126*k, 0.7152 - 0.7152*k, 0.0722 + 0.9278*k}))
		case "sepia":
			k := 1 - a
			parts = append(parts, mixer([9]float64{
				0.393 + 0.607*k, 0.769 - 0.769*k, 0.189 - 0.189*k,
				0.349 - 0.349*k, 0.686 + 0.314*k, 0.168 - 0.168*k,
				0.272 - 0.272*k, 0.534 - 0.534*k, 0.131 + 0.869*k}))
		case "invert":
			parts = append(parts, curve(fmt.Sprintf("val+%s*(maxval-2*val)", f(a))))
		}
	}
	return join(parts...)
}

// gaussian blurs with a standard deviation of sigma pixels. ffmpeg 5.1's
// gblur corrupts its heap on a frame one pixel wide (and a plane of one
// is near): frames under 4 pixels on a side are left as they are, which
// at that size is no loss.
func gaussian(sigma float64) string {
	return fmt.Sprintf("gblur=sigma=%s:enable='gte(w,4)*gte(h,4)'", f(sigma))
}

// mixer is a colour matrix, rows R, G, B.
func mixer(m [9]float64) string {
	return fmt.Sprintf("colorchannelmixer=rr=%s:rg=%s:rb=%s:gr=%s:gg=%s:gb=%s:br=%s:bg=%s:bb=%s",
		f(micro(m[0])), f(micro(m[1])), f(micro(m[2])), f(micro(m[3])), f(micro(m[4])), f(micro(m[5])),
		f(micro(m[6])), f(micro(m[7])), f(micro(m[8])))
}

// curve applies one expression of each channel's value (val, 0 to
// maxval) to R, G and B; lutrgb clips the result.
func curve(expr string) string {
	return fmt.Sprintf("lutrgb=r=%s:g=%s:b=%s", expr, expr, expr)
}

// micro rounds to the millionth, so that sums such as 1-0.3-0.3 are
// written short.
func micro(v float64) float64 { return math.Round(v*1e6) / 1e6 }
