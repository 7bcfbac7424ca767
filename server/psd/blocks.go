package psd

import (
	"fmt"
	"image/color"
	"math"
)

// wideKeys are the additional-information keys whose length is 8 bytes in
// a PSB (the specification's list; some writers also mark them 8B64).
//
//nolint:gochecknoglobals // read-only table: the block keys with 8-byte lengths
var wideKeys = map[string]bool{
	"LMsk": true, "Lr16": true, "Lr32": true, "Layr": true, "Mt16": true, "Mt32": true,
	"Mtrn": true, "Alph": true, "FMsk": true, "lnk2": true, "FEid": true, "FXid": true,
	"PxSD": true, "cinf": true,
}

// adjustments names the adjustment layers by key.
//
//nolint:gochecknoglobals // read-only table: the adjustment layers' keys
var adjustments = map[string]string{
	"levl": "levels", "curv": "curves", "brit": "brightness/contrast", "blnc": "color balance",
	"hue ": "hue/saturation", "hue2": "hue/saturation", "selc": "selective color",
	"thrs": "threshold", "nvrt": "invert", "post": "posterize", "mixr": "channel mixer",
	"grdm": "gradient map", "phfl": "photo filter", "expA": "exposure", "vibA": "vibrance",
	"blwh": "black & white", "clrL": "color lookup",
}

// taggedBlocks reads additional layer information blocks: for layer l, or
// the file's global ones when l is nil.
func (d *decoder) taggedBlocks(c *cursor, l *Layer, what string) error {
	var vectorMask, soco, vscg bool
	for c.left() >= 12 {
		start := c.pos
		sig := c.sig()
		if sig != "8BIM" && sig != "8B64" {
			// Some writers pad with zeros or pad records to 4 bytes where
			// the specification says 2: look a few bytes further.
			c.pos = start
			if !realign(c) {
				// Trailing bytes Photoshop would not read either: what
				// was read is kept.
				return nil
			}
			sig = c.sig()
		}
		key := c.sig()
		wide := sig == "8B64" || (d.f.PSB && wideKeys[key])
		n := c.length(wide)
		bc := c.sub(n, fmt.Sprintf("%s: block %s", what, key))
		if n%2 != 0 && c.left() > 0 {
			c.skip(1)
		}
		if c.err != nil {
			return c.err
		}
		if l == nil {
			if err := d.globalBlock(key, bc); err != nil {
				return err
			}
			continue
		}
		if err := d.layerBlock(l, key, bc); err != nil {
			return err
		}
		switch key {
		case "vmsk", "vsms":
			vectorMask = true
		case "SoCo":
			soco = true
		case "vscg":
			vscg = true
		}
	}
	if l != nil && (soco || vscg) && vectorMask {
		// A shape: its cached pixels, when it has any, are the shape
		// drawn with its fill and stroke; without them it is drawn from
		// its path (see vectorNotes).
		l.Kind = KindShape
	} else if l != nil && vectorMask && l.divider == 0 {
		// Photoshop applies a vector mask when it composites; the layer's
		// pixels do not have it.
		d.note(l, "vector mask")
	}
	if l != nil && l.Stroke != nil && l.Kind != KindShape && l.Stroke.Enabled {
		d.note(l, "vector stroke")
	}
	switch {
	case l == nil:
	case l.effects == effectsOn && l.Effects == nil:
		d.note(l, "layer effects")
	case l.Effects != nil:
		for _, u := range l.Effects.Unread {
			d.note(l, "layer effect: "+u)
		}
	}
	if l != nil && l.blendIf {
		d.note(l, "blend if")
	}
	return c.err
}

// realign looks up to 3 bytes on for a block signature.
func realign(c *cursor) bool {
	start := c.pos
	for off := int64(0); off <= 3 && start+off+4 <= c.end; off++ {
		c.pos = start + off
		if s := c.sig(); s == "8BIM" || s == "8B64" {
			c.pos = start + off
			return true
		}
		if c.err != nil {
			return false
		}
	}
	c.pos = start
	return false
}

func (d *decoder) globalBlock(key string, c *cursor) error {
	switch key {
	case "Layr", "Lr16", "Lr32":
		return d.layerInfo(c)
	case "lnk2", "lnk3", "lnkD", "lnkE":
		return d.linkedFiles(c)
	case "Mtrn", "Mt16", "Mt32":
		d.f.mergedTransparency = true
	case "Patt", "Pat2", "Pat3":
		d.patterns(c)
	case "FXid", "FEid":
		d.filterEffects(c)
	}
	return nil
}

func (d *decoder) note(l *Layer, feature string) {
	for _, f := range l.Unsupported {
		if f == feature {
			return
		}
	}
	l.Unsupported = append(l.Unsupported, feature)
}

// brightnessSettings reads the modern Brightness/Contrast's settings,
// which follow its legacy block, into l's adjustment.
func (d *decoder) brightnessSettings(l *Layer, c *cursor) {
	if l.Kind != KindAdjustment || l.Adjustment == nil || l.Adjustment.Kind != "brightness/contrast" {
		return
	}
	desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth)
	if err != nil {
		return
	}
	b, okB := desc.num("Brgh")
	k, okC := desc.num("Cntr")
	mean, okM := desc.num("means")
	legacy, _ := desc.get("useLegacy").(bool)
	// Written as ranges held, so that NaN, which fails every comparison,
	// is out of range too.
	if !okB || !okC || !okM || !(b >= -150 && b <= 150) || !(k >= -100 && k <= 100) || !(mean >= 0 && mean <= 255) {
		return
	}
	if legacy {
		l.Adjustment = brightnessLegacy(int(b), int(k), int(mean))
	} else {
		l.Adjustment = brightnessContrast(b, k)
	}
}

func (d *decoder) layerBlock(l *Layer, key string, c *cursor) error {
	if name, ok := adjustments[key]; ok {
		l.Kind = KindAdjustment
		if l.Adjustment = readAdjustment(key, c, d.f.Mode, d.lim.MaxDescriptorDepth); l.Adjustment == nil {
			d.note(l, "adjustment: "+name)
		} else if d.f.Mode == CMYK || d.f.Mode == Lab {
			// Photoshop adjusts a CMYK file's inks; kino, drawing in RGB,
			// adjusts the RGB they convert to. That is still closer than
			// not adjusting (psd-tools' six CMYK adjustment files: 11 to
			// 23 dB drawn, 9.5 to 23 not), but not Photoshop's: named.
			d.note(l, "adjustment: "+name+" on "+d.f.Mode.String()+" channels (drawn on RGB)")
		} else if p := l.Adjustment.Partial; p != "" {
			d.note(l, "adjustment: "+p)
		}
		return nil
	}
	switch key {
	case "CgEd":
		d.brightnessSettings(l, c)
	case "luni":
		if s := c.unicode(); c.err == nil && s != "" {
			l.Name = s
		}
		c.err = nil // a broken Unicode name leaves the Pascal one
	case "lsct", "lsdk":
		t := c.u32()
		if c.err != nil {
			return c.err
		}
		if t <= 3 {
			l.divider = int(t)
		}
		if c.left() >= 8 && c.sig() == "8BIM" {
			if k := c.sig(); c.err == nil && (t == 1 || t == 2) {
				l.Blend = blendMode(k)
			}
		}
	case "iOpa":
		l.FillOpacity = c.u8()
	case "SoCo":
		desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth)
		if err != nil {
			return l.errorf("solid colour fill: %v", err)
		}
		l.Kind = KindFill
		l.FillColor = d.color(desc.desc("Clr "))
	case "GdFl":
		d.gradientFill(l, c)
	case "PtFl":
		l.Kind = KindFill
		if desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth); err == nil {
			if p, ok := readPatternFill(desc); ok {
				l.FillPattern = &p
				return nil
			}
		}
		d.note(l, "pattern fill")
	case "fxrp":
		x, y := c.f64(), c.f64()
		if c.err == nil {
			l.Reference = Point{clampRange(x, -1e6, 1e6), clampRange(y, -1e6, 1e6)}
		}
	case "TySh":
		return d.text(l, c)
	case "SoLd", "SoLE":
		return d.placed(l, c)
	case "PlLd", "plLd":
		if l.Placed == nil {
			return d.placedLegacy(l, c)
		}
	case "lfx2", "lfxs", "lmfx":
		// One descriptor under three keys: lfxs is lfx2 as some versions
		// of Photoshop write it on groups; lmfx is what Photoshop writes
		// for a layer with several effects of one kind (two strokes in
		// pt-double-stroke.psd, ag-strokes.psd), and is kept over an lfx2
		// beside it whichever comes first.
		if l.multiFX {
			return nil
		}
		l.effects = effectsOff
		l.Effects = nil // over what an lrFX before it said
		c.u32()         // object effects version
		desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth)
		if err != nil {
			l.effects = effectsOn // present, unreadable: named, not drawn
			return nil
		}
		l.multiFX = key == "lmfx"
		if l.Effects = readEffects(desc, d.f.globalAngle); l.Effects != nil {
			l.effects = effectsOn
		}
		return nil
	case "lrFX":
		// Photoshop 5's effects, superseded by lfx2 when both are there
		// (whichever comes first).
		if l.effects == effectsUnknown {
			l.effects = effectsLegacy
			if l.Effects = readLegacyEffects(c, d.f.globalAngle); l.Effects == nil {
				l.effects = effectsOff
			}
		}
	case "vmsk", "vsms":
		if l.Vector == nil {
			d.readVectorMask(l, c)
		}
	case "vstk":
		d.readVectorStroke(l, c)
	case "vscg":
		d.readVectorFill(l, c)
	case "brst":
		// Channels left out of the layer's blending (Advanced Blending's
		// R, G, B boxes), one index each: pt-layer-effects.psd's inner
		// glow leaves blue alone. A grey document's one channel, or an
		// index past it, is named instead.
		for n := 0; n < 8 && c.left() >= 4; n++ {
			if i := c.u32(); i < 3 && d.f.Mode == RGB {
				l.OffChannels |= 1 << i
			} else {
				d.note(l, "blending restricted to some channels")
			}
		}
	case "knko":
		if c.u8() != 0 {
			d.note(l, "knockout")
		}
	case "clbl":
		if c.u8() == 0 {
			d.note(l, "clipped layers blended one by one")
		}
	case "infx":
		if c.u8() != 0 {
			d.note(l, "interior effects blended as a group")
		}
	case "blwh", "artb", "artd", "abdd":
		if key != "blwh" {
			d.note(l, "artboard")
		}
	}
	return nil
}

// What a layer's effects blocks said.
const (
	effectsUnknown = iota
	effectsOff
	effectsOn
	effectsLegacy // read from lrFX alone, no lfx2 (yet)
)

// color reads a colour descriptor as descColor does, but a CMYK one
// through the file's ICC profile, as its pixels are, so a fill matches
// the layers beside it. (Effects' colours are read apart from the file,
// naively.)
func (d *decoder) color(desc *descriptor) *color.NRGBA {
	if desc == nil || d.f.profile == nil {
		return descColor(desc)
	}
	k, ok := desc.num("Blck")
	if !ok {
		return descColor(desc)
	}
	ink := func(key string) uint8 {
		v, _ := desc.num(key)
		return unit8(1 - v/100)
	}
	rgb := d.f.profile.rgb(ink("Cyn "), ink("Mgnt"), ink("Ylw "), unit8(1-k/100))
	return &color.NRGBA{rgb[0], rgb[1], rgb[2], 255}
}

func descColor(d *descriptor) *color.NRGBA {
	if d == nil {
		return &color.NRGBA{A: 255}
	}
	clamp := func(v float64) uint8 {
		switch {
		case v <= 0:
			return 0
		case v >= 255:
			return 255
		}
		return uint8(v + 0.5)
	}
	if g, ok := d.num("Gry "); ok {
		// Grey is a percentage of black.
		v := clamp(255 - g*2.55)
		return &color.NRGBA{v, v, v, 255}
	}
	if lum, ok := d.num("Lmnc"); ok {
		// Lab, under D50.
		a, _ := d.num("A   ")
		b, _ := d.num("B   ")
		v := xyzToSRGB(labToXYZ([3]float64{lum, a, b}))
		return &color.NRGBA{toneMap(float32(v[0])), toneMap(float32(v[1])), toneMap(float32(v[2])), 255}
	}
	if k, ok := d.num("Blck"); ok {
		// CMYK, percentages of ink: converted as a CMYK file's pixels
		// are (cmykToRGB).
		c, _ := d.num("Cyn ")
		m, _ := d.num("Mgnt")
		y, _ := d.num("Ylw ")
		p := []byte{clamp(255 - c*2.55), clamp(255 - m*2.55), clamp(255 - y*2.55)}
		cmykToRGB(p, clamp(255-k*2.55))
		return &color.NRGBA{p[0], p[1], p[2], 255}
	}
	if v, ok := d.num("Brgh"); ok {
		// HSB: hue in degrees, saturation and brightness in percent.
		h, _ := d.num("H   ")
		s, _ := d.num("Strt")
		if math.IsNaN(h) || math.IsInf(h, 0) {
			h = 0
		}
		r, g, b := hsbToRGB(math.Mod(h, 360)+360, clampUnit(s/100), clampUnit(v/100))
		return &color.NRGBA{unit8(r), unit8(g), unit8(b), 255}
	}
	r, _ := d.num("Rd  ")
	g, _ := d.num("Grn ")
	b, _ := d.num("Bl  ")
	return &color.NRGBA{clamp(r), clamp(g), clamp(b), 255}
}

func (d *decoder) text(l *Layer, c *cursor) error {
	c.u16()       // version
	c.skip(6 * 8) // transform
	c.u16()       // text version
	if c.err != nil {
		return l.errorf("text: %v", c.err)
	}
	desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth)
	if err != nil {
		return l.errorf("text: %v", err)
	}
	l.Kind = KindText
	sub, _ := desc.get("substitutesUsed").(bool)
	l.Text = &Text{Value: desc.str("Txt "), Substituted: sub}
	return nil
}
