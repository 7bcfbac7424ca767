package engine

import "fmt"

// providerA reads {width, height, fps, duration?, background?, format?,
// layers: […]}; layers stack in array order, the first at the bottom.
func (c *compiler) providerA(raw any) {
	o := c.r.object("composition", raw)
	if c.wrongProvider(o, "provider_a", []string{"output", "tracks"}, []string{"width", "height", "layers"}) {
		return
	}
	c.output(o)
	layers := o.array("layers", c.lim.MaxLayers)
	o.done()
	for i, v := range layers {
		c.apart(func() { c.layerA(c.r.object(fmt.Sprintf("composition.layers[%d]", i), v)) })
	}
	if c.r.err != nil {
		return
	}
	// A transition leads into the next layer of the array.
	c.link(func(i int) int {
		if i+1 < len(c.scene.Layers) {
			return i + 1
		}
		return -1
	})
}

func (c *compiler) layerA(o *object) {
	l := Layer{Field: o.path, Opacity: 1, Volume: 1, X: Pos{Center: true}, Y: Pos{Center: true}, Motion: &Motion{}}
	l.Kind = Kind(o.enum("type", "", "color", "image", "video", "text", "audio", "rectangle", "ellipse", "captions", "mockup"))
	if l.Kind == "" {
		if c.r.err == nil {
			c.r.fail(o.field("type"), "is required: color, image, video, text, audio, rectangle, ellipse, captions or mockup")
		}
		return
	}
	c.timing(o, "duration", &l)
	c.fades(o, &l)
	if l.Kind != KindAudio {
		c.placement(o, o, &l)
		c.opacity(o, &l)
	}
	c.content(o, "trimStart", &l)
	if l.Kind != KindCaptions {
		c.motion(o, &l)
		c.cut(o, &l)
	}
	c.checkCaptions(o, &l)
	c.picture(o, o, &l)
	c.playback(o, "trimStart", &l)
	c.duck(o, &l)
	c.identity(o, &l)
	o.done()
	if l.Motion.none() {
		l.Motion = nil
	}
	c.scene.Layers = append(c.scene.Layers, l)
}

// content reads what a layer shows or plays, by kind, from the object that
// holds it (the layer itself in provider_a, the clip's asset in unified);
// trimKey is the name of the trim field in that format.
func (c *compiler) content(o *object, trimKey string, l *Layer) {
	switch l.Kind {
	case KindColor:
		if !o.has("color") {
			c.r.fail(o.field("color"), "is required")
		}
		l.Color = o.color("color", "0x000000FF")
	case KindImage:
		l.Source, l.SourceField = c.source(o, "src", false)
	case KindVideo, KindAudio:
		l.Source, l.SourceField = c.source(o, "src", false)
		l.TrimStart = o.number(trimKey, 0, 0, 86400)
		// A keyframed volume keeps its loudest in Volume: 0 still means
		// never heard.
		if l.Motion.Volume, _ = c.curve(o, "volume", l, 0, 10, false); l.Motion.Volume != nil {
			_, l.Volume = l.Motion.Volume.extent()
		} else {
			l.Volume = o.number("volume", 1, 0, 10)
		}
	case KindText:
		rich := o.has("spans")
		if !rich {
			l.Text = c.layerText(o)
		}
		l.FontSize = o.integer("fontSize", 48, 1, maxFontSize)
		l.Color = o.color("color", "0xFFFFFFFF")
		if o.has("font") {
			l.Font, l.FontField, l.Fallback = c.textFonts(o)
		}
		c.textStyle(o, l)
		if rich {
			c.spans(o, l)
		}
	case KindRectangle, KindEllipse:
		c.shape(o, l)
	case KindCaptions:
		c.captions(o, l)
	case KindMockup:
		c.mockup(o, trimKey, l)
	}
}
