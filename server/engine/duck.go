package engine

import (
	"fmt"
	"regexp"
	"strings"
)

// Duck lowers a layer's sound while other layers' sound plays, as music
// ducks under a voice: a compressor on the layer's sound, keyed by the mix
// of those layers' sound.
type Duck struct {
	// Keys are the indexes in Scene.Layers of the layers whose sound
	// ducks this one: those named by duck.under, or else every video and
	// audio layer that does not duck itself.
	Keys []int
	// Level is the gain the sound goes down to under a sound at usual
	// speech levels, 0 to 1.
	Level float64
	// Attack and Release are how long, in seconds, the sound takes to go
	// down when the keys start and to come back when they stop.
	Attack, Release float64

	// under are the ids duck.under names, at the paths in underFields;
	// resolved into Keys once every layer is read.
	under, underFields []string
}

// The compressor's fixed settings. A key above the threshold (about
// −48 dBFS RMS) starts the ducking; at ratio 20, speech around −20 dBFS
// takes the sound down to within a few hundredths of Level.
const (
	duckThreshold = 0.004
	duckRatio     = 20
)

// idPattern is what a layer id may hold.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// identity reads a layer's id.
func (c *compiler) identity(o *object, l *Layer) {
	id, ok := o.str("id")
	if ok && !idPattern.MatchString(id) {
		c.r.fail(o.field("id"), "must be 1 to 64 letters, digits, _ or -")
	}
	l.ID = id
}

// duck reads a video or audio layer's duck from o (the layer in
// provider_a, the clip's asset in unified).
func (c *compiler) duck(o *object, l *Layer) {
	if (l.Kind != KindVideo && l.Kind != KindAudio) || !o.has("duck") {
		return
	}
	d := o.child("duck")
	l.Duck = &Duck{
		Level:   d.number("level", 0.25, 0, 1),
		Attack:  d.number("attack", 0.1, 0.001, 2),
		Release: d.number("release", 0.5, 0.01, 9),
	}
	if v, ok := d.get("under"); ok {
		names, isArr := v.([]any)
		if !isArr || len(names) == 0 || len(names) > c.lim.MaxLayers {
			c.r.fail(d.field("under"), "must be an array of 1 to %d layer ids", c.lim.MaxLayers)
		}
		for i, n := range names {
			s, isStr := n.(string)
			if !isStr {
				c.r.fail(fmt.Sprintf("%s[%d]", d.field("under"), i), "must be a layer id (a string)")
			}
			l.Duck.under = append(l.Duck.under, s)
			l.Duck.underFields = append(l.Duck.underFields, fmt.Sprintf("%s[%d]", d.field("under"), i))
		}
	}
	d.done()
}

// resolveDucks checks the ids of the layers and turns each duck's names
// into the layers they name, now that every layer is read.
func (c *compiler) resolveDucks() {
	layers := c.scene.Layers
	byID := map[string]int{}
	for i, l := range layers {
		if l.ID == "" {
			continue
		}
		if j, taken := byID[l.ID]; taken {
			c.r.fail(l.Field+".id", "%q is already the id of %s", l.ID, layers[j].Field)
			return
		}
		byID[l.ID] = i
	}
	for i := range layers {
		d := layers[i].Duck
		if d == nil {
			continue
		}
		if d.under == nil {
			// Every other sound that does not duck: the voice over the
			// music, the interview over the soundtrack.
			for j, k := range layers {
				if j != i && k.Duck == nil && (k.Kind == KindVideo || k.Kind == KindAudio) {
					d.Keys = append(d.Keys, j)
				}
			}
			continue
		}
		for n, id := range d.under {
			j, found := byID[id]
			switch {
			case !found:
				c.r.fail(d.underFields[n], "no layer has the id %q", id)
			case j == i:
				c.r.fail(d.underFields[n], "a layer cannot duck under itself")
			case layers[j].Kind != KindVideo && layers[j].Kind != KindAudio:
				c.r.fail(d.underFields[n], "%q is a %s layer, which has no sound", id, layers[j].Kind)
			}
			if c.r.err != nil {
				return
			}
			d.Keys = append(d.Keys, j)
		}
	}
}

// keyMix mixes the sounds keys of the layers a sound ducks under, padded
// with silence to the end of the video (the compressor stops when its key
// does), and returns its label, or n labels of it when n sounds duck
// under the same layers.
func (p *planner) keyMix(i int, keys []string, n int) []string {
	key := fmt.Sprintf("k%d", i)
	var in strings.Builder
	for _, k := range keys {
		in.WriteString("[" + k + "]")
	}
	pad := "apad=whole_dur=" + f(p.s.Duration)
	if len(keys) == 1 {
		p.graph = append(p.graph, fmt.Sprintf("%s%s[%s]", in.String(), pad, key))
	} else {
		p.graph = append(p.graph, fmt.Sprintf("%samix=inputs=%d:duration=longest:normalize=0,%s[%s]", in.String(), len(keys), pad, key))
	}
	if n == 1 {
		return []string{key}
	}
	var labels []string
	var out strings.Builder
	for c := range n {
		labels = append(labels, fmt.Sprintf("%ss%d", key, c))
		out.WriteString("[" + labels[c] + "]")
	}
	p.graph = append(p.graph, fmt.Sprintf("[%s]asplit=%d%s", key, n, out.String()))
	return labels
}

// duck lowers sound under key, the mix of the sounds it ducks under: a
// compressor keyed by it. The compressor's mix sets the floor: its output
// is the sound times gain×mix + (1−mix), so at full compression the sound
// is at 1−mix, the level.
func (p *planner) duck(i int, sound, key string, d *Duck) string {
	out := fmt.Sprintf("d%d", i)
	p.graph = append(p.graph, fmt.Sprintf("[%s][%s]sidechaincompress=threshold=%s:ratio=%d:attack=%s:release=%s:mix=%s[%s]",
		sound, key, f(duckThreshold), duckRatio, f(micro(d.Attack*1000)), f(micro(d.Release*1000)), f(micro(1-d.Level)), out))
	return out
}
