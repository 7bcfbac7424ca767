package engine

import "fmt"

// unified reads kino's provider-neutral timeline:
//
//	{"output": {width, height, fps, format?, background?, duration?},
//	 "tracks": [{"clips": [{asset, start, length, position?, size?, opacity?, fadeIn?, fadeOut?,
//	                        scale?, rotation?, zoom?, panX?, panY?, kenBurns?, enter?, exit?, transition?}]}]}
//
// As in Shotstack and Creatomate's UI, the first track is on top: tracks
// are drawn from the last to the first, and clips of one track in order.
func (c *compiler) unified(raw any) {
	o := c.r.object("composition", raw)
	if c.wrongProvider(o, "unified", []string{"width", "height", "layers"}, []string{"output", "tracks"}) {
		return
	}
	out := c.r.object("composition.output", mustGet(o, "output"))
	c.output(out)
	out.done()
	tracks := o.array("tracks", c.lim.MaxLayers)
	o.done()
	type clipAt struct {
		path string
		v    any
	}
	var order []clipAt
	// last marks the last clip of each track, which no transition leads
	// out of.
	var last []bool
	total := 0
	for i := len(tracks) - 1; i >= 0; i-- {
		found := c.r.count()
		t := c.r.object(fmt.Sprintf("composition.tracks[%d]", i), tracks[i])
		clips := t.array("clips", c.lim.MaxLayers)
		t.done()
		if c.r.count() > found {
			return
		}
		total += len(clips)
		if total > c.lim.MaxLayers {
			c.r.fail("composition.tracks", "hold %d clips or more; at most %d are allowed", total, c.lim.MaxLayers)
			return
		}
		for j, v := range clips {
			order = append(order, clipAt{path: fmt.Sprintf("%s.clips[%d]", t.path, j), v: v})
			last = append(last, j == len(clips)-1)
		}
	}
	for _, cl := range order {
		c.apart(func() { c.clip(c.r.object(cl.path, cl.v)) })
	}
	if c.r.err != nil {
		return
	}
	// A transition leads into the next clip of the same track, which is
	// drawn right after it, over it.
	c.link(func(i int) int {
		if last[i] {
			return -1
		}
		return i + 1
	})
}

func mustGet(o *object, key string) any {
	v, ok := o.get(key)
	if !ok {
		o.r.fail(o.field(key), "is required")
		return map[string]any{}
	}
	return v
}

func (c *compiler) clip(o *object) {
	l := Layer{Field: o.path, Opacity: 1, Volume: 1, X: Pos{Center: true}, Y: Pos{Center: true}, Motion: &Motion{}}
	a := c.r.object(o.field("asset"), mustGet(o, "asset"))
	l.Kind = Kind(a.enum("type", "", "color", "image", "video", "text", "audio", "rectangle", "ellipse", "captions", "mockup"))
	if l.Kind == "" {
		if c.r.err == nil {
			c.r.fail(a.field("type"), "is required: color, image, video, text, audio, rectangle, ellipse, captions or mockup")
		}
		return
	}
	c.timing(o, "length", &l)
	c.fades(o, &l)
	if l.Kind != KindAudio {
		pos, size := o.child("position"), o.child("size")
		c.placement(pos, size, &l)
		pos.done()
		size.done()
		c.opacity(o, &l)
	}
	c.content(a, "trim", &l)
	if l.Kind != KindCaptions {
		c.motion(o, &l)
		c.cut(o, &l)
	}
	c.checkCaptions(a, &l)
	c.picture(o, a, &l)
	c.playback(a, "trim", &l)
	c.duck(a, &l)
	c.identity(o, &l)
	a.done()
	o.done()
	if l.Motion.none() {
		l.Motion = nil
	}
	c.scene.Layers = append(c.scene.Layers, l)
}
