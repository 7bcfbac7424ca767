package engine

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"path/filepath"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/mockup"
)

// maxMockupPaths bounds a mockup layer's hide and show lists.
const maxMockupPaths = 100

// mockup reads a mockup layer's template, smart object and design (its
// src, trimmed and played as a video layer's), from o (the layer in
// provider_a, the clip's asset in unified).
func (c *compiler) mockup(o *object, trimKey string, l *Layer) {
	mk := &Mockup{TemplateField: o.field("template"), SmartObjectField: o.field("smartObject"),
		HideField: o.field("hide"), ShowField: o.field("show")}
	l.Mockup = mk
	if s, ok := o.str("template"); !ok {
		if c.r.err == nil {
			c.r.fail(mk.TemplateField, "is required: the id of a psd_template asset, or the URL of a PSD")
		}
	} else if u, isKey := c.assets[s]; isKey {
		mk.Template = c.scene.add(Source{URL: u, Template: true, Field: mk.TemplateField})
	} else if validURL(s) || ident.IsAsset(s) {
		mk.Template = c.scene.add(Source{URL: s, Template: true, Field: mk.TemplateField})
	} else if c.r.err == nil {
		c.r.fail(mk.TemplateField, "no such asset key %q in assetUrls, and not an http or https URL or an asset id", s)
	}
	if s, ok := o.str("smartObject"); ok {
		if s == "" || len(s) > 1000 {
			c.r.fail(mk.SmartObjectField, "must be a layer path of 1 to 1000 characters")
		}
		mk.SmartObject = s
	}
	mk.Fit = o.enum("fit", mockup.Cover, mockup.Cover, mockup.Contain, mockup.FitFill)
	mk.Hide = c.paths(o, "hide")
	mk.Show = c.paths(o, "show")
	l.Source, l.SourceField = c.source(o, "src", false)
	l.TrimStart = o.number(trimKey, 0, 0, 86400)
	if l.Motion.Volume, _ = c.curve(o, "volume", l, 0, 10, false); l.Motion.Volume != nil {
		_, l.Volume = l.Motion.Volume.extent()
	} else {
		l.Volume = o.number("volume", 1, 0, 10)
	}
}

// paths reads an optional list of layer paths.
func (c *compiler) paths(o *object, key string) []string {
	if !o.has(key) {
		return nil
	}
	var out []string
	for i, v := range o.array(key, maxMockupPaths) {
		s, ok := v.(string)
		if (!ok || s == "" || len(s) > 1000) && c.r.err == nil {
			c.r.fail(fmt.Sprintf("%s[%d]", o.field(key), i), "must be a layer path of 1 to 1000 characters")
		}
		out = append(out, s)
	}
	return out
}

// describe is a template's problem as the field of the mockup layer it
// concerns and a message: a *mockup.PathError names smartObject, hide or
// show, anything else the template.
func (mk *Mockup) describe(err error) (field, message string) {
	var pe *mockup.PathError
	if errors.As(err, &pe) {
		field = mk.SmartObjectField
		switch pe.Param {
		case "hide":
			field = mk.HideField
		case "show":
			field = mk.ShowField
		}
		if pe.Path == "" {
			return field, pe.Problem
		}
		return field, fmt.Sprintf("%q %s", pe.Path, pe.Problem)
	}
	return mk.TemplateField, err.Error()
}

// Check refuses a template (its manifest) that the layer cannot draw: a
// smart object it does not have, or one a render cannot draw frame by
// frame (mockup.CheckSplit). The error is a *ValidationError.
func (mk *Mockup) Check(m *mockup.Manifest) error {
	so := mk.SmartObject
	if so == "" {
		var err error
		if so, err = mockup.DefaultSmartObject(m); err != nil {
			field, msg := mk.describe(err)
			return &ValidationError{Field: field, Message: msg}
		}
	}
	if err := mockup.CheckSplit(m, so, mk.Hide, mk.Show); err != nil {
		field, msg := mk.describe(err)
		return &ValidationError{Field: field, Message: msg}
	}
	return nil
}

// mockPlan is the mockup layer being planned: its design's file and the
// template taken apart around the smart object.
type mockPlan struct {
	design Media
	split  *mockup.Split
}

// mockupLayer draws a mockup layer: a picture design is placed into the
// template once, by package mockup, and drawn as an image layer; a video
// design is drawn into the template frame by frame (mockupFrames), then
// sized, moved and faded as a video layer. A hidden layer is only
// checked, and plays its sound.
func (p *planner) mockupLayer(i int, l Layer, video string, hidden bool) (string, string, error) {
	d, err := p.medium(l)
	if err != nil {
		return "", "", err
	}
	if !d.HasVideo {
		return "", "", &MediaError{Field: l.SourceField, Message: "the file has no picture; a mockup layer needs an image or a video"}
	}
	sound := d.HasAudio && !d.Still && l.Volume > 0 && p.sound()
	if hidden {
		if sound {
			in := p.input(d, sourceOptions(l, l.Duration)...)
			return video, p.audioChain(i, l, in), nil
		}
		return video, "", nil
	}
	mk := l.Mockup
	tm, ok := p.media[mk.Template]
	if !ok {
		return "", "", fmt.Errorf("%s: template %s was not downloaded", mk.TemplateField, mk.Template)
	}
	if p.openTemplate == nil {
		return "", "", fmt.Errorf("%s: template %s cannot be opened: no Inputs.Templates", mk.TemplateField, mk.Template)
	}
	fail := func(err error) error {
		field, msg := mk.describe(err)
		return &MediaError{Field: field, Message: msg}
	}
	t, err := p.template(tm.Path)
	if err != nil {
		return "", "", fail(err)
	}
	defer p.release(i, mk.Template)
	so := mk.SmartObject
	if so == "" {
		if so, err = mockup.DefaultSmartObject(&t.Manifest); err != nil {
			return "", "", fail(err)
		}
	}
	if err := mockup.CheckSplit(&t.Manifest, so, mk.Hide, mk.Show); err != nil {
		return "", "", fail(err)
	}
	opts := mockup.Options{Fit: mk.Fit, Hide: mk.Hide, Show: mk.Show}
	lbl := fmt.Sprintf("l%d", i)
	win := frameWindow(l, p.s.FPS)
	if d.Still {
		// One picture: the mockup is drawn once, as mockup.render draws it.
		design, err := mockup.DecodeDesign(d.Path, maxDesignPixels)
		if err != nil {
			return "", "", &MediaError{Field: l.SourceField, Message: err.Error()}
		}
		opts.Designs = map[string]image.Image{so: design}
		img, _, err := t.RenderContext(p.ctx, opts)
		if err != nil {
			return "", "", fail(err)
		}
		m := p.pictureFile(fmt.Sprintf("mockup-%d.png", i), img)
		_, x, y, enable := p.picture(i, l, m, win, lbl)
		return p.overlay(i, enable, video, lbl, x, y), "", nil
	}
	sp, err := t.SplitContext(p.ctx, so, d.Width, d.Height, opts)
	if err != nil {
		return "", "", fail(err)
	}
	canvas := Media{Path: d.Path, Format: d.Format, HasVideo: true, Duration: d.Duration, Width: sp.Width, Height: sp.Height}
	if bw, bh := box(l, canvas); bw < sp.Width && bh < sp.Height {
		// Drawn smaller than it is: the template's pictures are scaled
		// once, so that no frame costs more than the layer shows.
		sp = sp.Scaled(bw, bh)
		canvas.Width, canvas.Height = bw, bh
	}
	p.mock = &mockPlan{design: d, split: sp}
	defer func() { p.mock = nil }()
	in, x, y, enable := p.picture(i, l, canvas, win, lbl)
	out := p.overlay(i, enable, video, lbl, x, y)
	if sound {
		return out, p.audioChain(i, l, in), nil
	}
	return out, "", nil
}

// template opens the template at path once for the mockup layers of a
// plan that use it (Inputs.Templates): they share its records and its
// decoded layers (their pixels decoded once, within the template's
// budget) instead of opening and decoding it once a layer. release lets
// it go after the last.
func (p *planner) template(path string) (*mockup.Template, error) {
	if o, ok := p.templates[path]; ok {
		return o.t, nil
	}
	t, release, err := p.openTemplate(path)
	if err != nil {
		return nil, err
	}
	if p.templates == nil {
		p.templates = map[string]openTemplate{}
	}
	p.templates[path] = openTemplate{t, release}
	return t, nil
}

// openTemplate is a template a plan opened, and what lets it go.
type openTemplate struct {
	t       *mockup.Template
	release func()
}

// release lets the template of source key go once no layer after layer i
// uses it: a plan holds at most one template's pixels at a time, unless
// layers take turns between templates.
func (p *planner) release(i int, key string) {
	for _, l := range p.s.Layers[i+1:] {
		if l.Kind == KindMockup && l.Mockup != nil && l.Mockup.Template == key {
			return
		}
	}
	path := p.media[key].Path
	if o, ok := p.templates[path]; ok {
		o.release()
		delete(p.templates, path)
	}
}

// closeTemplates lets go of the templates still open when the plan ends
// (it stopped early).
func (p *planner) closeTemplates() {
	for _, o := range p.templates {
		o.release()
	}
	p.templates = nil
}

// maxDesignPixels bounds a mockup layer's picture beyond the output's
// size: a design is shrunk into its smart object, so a photo larger than
// the frame is usual.
const maxDesignPixels = 50_000_000

// pictureFile writes img as a PNG the command reads, and describes it.
func (p *planner) pictureFile(name string, img image.Image) Media {
	var buf bytes.Buffer
	if nrgba, ok := img.(*image.NRGBA); ok {
		_ = mockup.EncodePNGContext(p.ctx, &buf, nrgba)
	} else {
		_ = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	}
	p.files[name] = buf.Bytes()
	b := img.Bounds()
	return Media{Path: filepath.Join(p.workDir, name), Format: "png_pipe", HasVideo: true, Still: true, Width: b.Dx(), Height: b.Dy()}
}

// blendModes are ffmpeg's names of the blend modes a shade may have.
//
//nolint:gochecknoglobals // read-only table: ffmpeg's blend for each mode
var blendModes = map[composite.Mode]string{
	composite.Multiply: "multiply", composite.Screen: "screen", composite.LinearDodge: "addition",
	composite.Overlay: "overlay", composite.SoftLight: "softlight", composite.HardLight: "hardlight",
}

// greyModes are what a grey shade of each mode does to Y, U and V as lut2
// expressions of the design's value x and the shade's grey y: multiplying
// or screening R, G and B by one grey is linear in Y-16, U-128 and V-128,
// so the design is shaded without leaving YUV.
//
//nolint:gochecknoglobals // read-only table: the grey modes' two steps
var greyModes = map[composite.Mode][2]string{
	composite.Multiply: {"16+(x-16)*y/255", "128+(x-128)*y/255"},
	composite.Screen:   {"x+(235-x)*y/255", "128+(x-128)*(255-y)/255"},
}

// mockupFrames draws each frame of the chain head (the design's frames,
// numbered from 0 at 1/fps) into the template (p.mock.split), and returns
// the start of the chain of the drawn frames, at the template's size. A
// frame is cut to the smart object's shape (cover), scaled to the box the
// smart object covers, mapped into its quad by ffmpeg's perspective
// filter (through remap's maps when it is warped: remapFrames), shaded
// by the layers clipped to it, cut to its mask
// (alphamerge), and laid between the pictures of what lies under and over
// it, drawn once by package mockup. Grey shades that multiply or screen
// (the usual folds and glare) are applied in YUV (lut2); any other in RGB
// (blend), which costs two conversions of the box a frame.
func (p *planner) mockupFrames(i int, l Layer, win window, head string) string {
	sp := p.mock.split
	b := sp.Box
	pre := fmt.Sprintf("l%dm", i)
	var cut string
	if sp.Crop > 0 {
		cut = fmt.Sprintf("crop=w=max(1\\,min(iw\\,ih*%s)):h=max(1\\,min(ih\\,iw/%s)):exact=1", f(sp.Crop), f(sp.Crop))
	}
	c := sp.Corners
	pt := func(k int) (string, string) {
		return f(micro(c[k].X - float64(b.Min.X))), f(micro(c[k].Y - float64(b.Min.Y)))
	}
	x0, y0 := pt(0)
	x1, y1 := pt(1)
	x3, y3 := pt(2) // perspective's corners are TL, TR, BL, BR
	x2, y2 := pt(3)
	persp := fmt.Sprintf("perspective=x0=%s:y0=%s:x1=%s:y1=%s:x2=%s:y2=%s:x3=%s:y3=%s:sense=destination:interpolation=linear",
		x0, y0, x1, y1, x2, y2, x3, y3)
	yuv := true
	for _, sh := range sp.Shades {
		_, ok := greyModes[sh.Mode]
		yuv = yuv && ok && greyPicture(sh.Image)
	}
	format := "format=gbrp"
	if yuv {
		format = "format=yuv420p"
	}
	cur := pre + "d"
	if sp.Warped() {
		p.remapFrames(i, head, cut, yuv, format, cur)
	} else {
		p.graph = append(p.graph, join(head, "setpts=N", cut, fmt.Sprintf("scale=w=%d:h=%d", b.Dx(), b.Dy()), persp, format)+"["+cur+"]")
	}
	for k, sh := range sp.Shades {
		in := p.input(p.pictureFile(fmt.Sprintf("mockup-%d-shade-%d.png", i, k), sh.Image))
		s, out := fmt.Sprintf("%ss%d", pre, k), fmt.Sprintf("%sb%d", pre, k)
		switch {
		case yuv:
			// The shade's grey in all three planes (mergeplanes), made once.
			e := greyModes[sh.Mode]
			p.graph = append(p.graph,
				fmt.Sprintf("[%d:v]format=gray,split[%sy][%sc]", in, s, s),
				fmt.Sprintf("[%sc]scale=w=%d:h=%d,split[%su][%sv]", s, (b.Dx()+1)/2, (b.Dy()+1)/2, s, s),
				fmt.Sprintf("[%sy][%su][%sv]mergeplanes=0x001020:yuv420p[%s]", s, s, s, s),
				fmt.Sprintf("[%s][%s]lut2=c0='%s':c1='%s':c2='%s'[%s]", cur, s, e[0], e[1], e[1], out))
		case sh.Mode == composite.Normal:
			p.graph = append(p.graph, fmt.Sprintf("[%d:v]format=gbrap[%s]", in, s),
				fmt.Sprintf("[%s][%s]overlay=format=gbrp[%s]", cur, s, out))
		default:
			p.graph = append(p.graph, fmt.Sprintf("[%d:v]format=gbrp[%s]", in, s),
				fmt.Sprintf("[%s][%s]blend=all_mode=%s[%s]", cur, s, blendModes[sh.Mode], out))
		}
		cur = out
	}
	mask := p.input(p.pictureFile(fmt.Sprintf("mockup-%d-mask.png", i), sp.Mask))
	under := p.input(p.pictureFile(fmt.Sprintf("mockup-%d-under.png", i), sp.Under))
	// The picture under the design is repeated for every frame of the
	// design, which sets the pace (shortest). The pictures are laid in
	// YUV 4:2:0, as the layer is then drawn: Box and Over start on even
	// pixels, where overlay places them.
	frames := win.frames() + l.SkipFrames + 2
	p.graph = append(p.graph,
		fmt.Sprintf("[%d:v]format=gray[%sa]", mask, pre),
		fmt.Sprintf("[%s][%sa]alphamerge,format=yuva420p[%sf]", cur, pre, pre),
		fmt.Sprintf("[%d:v]format=yuva420p,loop=loop=%d:size=1:start=0,settb=expr=1/%d,setpts=N[%su]", under, frames, p.s.FPS, pre),
		fmt.Sprintf("[%su][%sf]overlay=x=%d:y=%d:format=yuv420:shortest=1[%sc]", pre, pre, b.Min.X, b.Min.Y, pre))
	out := pre + "c"
	if sp.Over != nil {
		over := p.input(p.pictureFile(fmt.Sprintf("mockup-%d-over.png", i), sp.Over))
		p.graph = append(p.graph, fmt.Sprintf("[%d:v]format=yuva420p[%so]", over, pre),
			fmt.Sprintf("[%sc][%so]overlay=x=%d:y=%d:format=yuv420[%sv]", pre, pre, sp.Over.Rect.Min.X, sp.Over.Rect.Min.Y, pre))
		out = pre + "v"
	}
	return "[" + out + "]null"
}

// remapFrames draws each frame of the chain head into a warped smart
// object, as the chain labelled out: cut, scaled to the size its maps
// read (mockup.Split.Remap, computed once and read as two 16-bit
// pictures that stay on every frame), and resampled by ffmpeg's remap,
// which takes no subsampled chroma (hence 4:4:4 or RGB around it).
func (p *planner) remapFrames(i int, head, cut string, yuv bool, format, out string) {
	src, xmap, ymap := p.mock.split.Remap()
	full := "format=gbrp"
	if yuv {
		full = "format=yuv444p"
	}
	pre := fmt.Sprintf("l%dm", i)
	xin := p.input(p.grayFile(fmt.Sprintf("mockup-%d-xmap.pgm", i), xmap))
	yin := p.input(p.grayFile(fmt.Sprintf("mockup-%d-ymap.pgm", i), ymap))
	p.graph = append(p.graph,
		join(head, "setpts=N", cut, fmt.Sprintf("scale=w=%d:h=%d", src.X, src.Y), full)+"["+pre+"r]",
		fmt.Sprintf("[%d:v]format=gray16[%sx]", xin, pre),
		fmt.Sprintf("[%d:v]format=gray16[%sy]", yin, pre),
		fmt.Sprintf("[%sr][%sx][%sy]remap,%s[%s]", pre, pre, pre, format, out))
}

// grayFile writes img as a 16-bit PGM picture the command reads (remap's
// maps: a PNG would spend its compression on pictures read once), and
// describes it.
func (p *planner) grayFile(name string, img *image.Gray16) Media {
	b := img.Bounds()
	head := fmt.Sprintf("P5\n%d %d\n65535\n", b.Dx(), b.Dy())
	buf := make([]byte, 0, len(head)+2*b.Dx()*b.Dy())
	buf = append(buf, head...)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		buf = append(buf, img.Pix[img.PixOffset(b.Min.X, y):img.PixOffset(b.Max.X, y)]...) // big-endian, as PGM
	}
	p.files[name] = buf
	return Media{Path: filepath.Join(p.workDir, name), Format: "pgm_pipe", HasVideo: true, Still: true, Width: b.Dx(), Height: b.Dy()}
}

// greyPicture reports whether every pixel of img has R = G = B.
func greyPicture(img *image.NRGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):img.PixOffset(b.Max.X, y)]
		for x := 0; x < len(row); x += 4 {
			if row[x] != row[x+1] || row[x] != row[x+2] {
				return false
			}
		}
	}
	return true
}
