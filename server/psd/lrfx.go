package psd

import (
	"image/color"
	"math"
)

// maxLegacyEffects bounds the entries of an lrFX block: Photoshop writes
// 6 or 7 (common state and one of each effect).
const maxLegacyEffects = 16

// readLegacyEffects reads an lrFX block, the effects layer of Photoshop 5
// (Adobe's specification, "Effects Layer"), into the structures an lfx2
// descriptor fills, so that a layer styled by an old Photoshop draws as a
// new one's would. Photoshop still writes it beside lfx2 for the effects
// it can hold (shadows, glows, bevel, solid fill), and lfx2 is read over
// it when both are there. Sizes, distances and angles are 16.16 fixed
// point; opacities a byte. Nil when nothing is switched on or the block
// cannot be read (an entry cut short ends the reading; what was read
// before is kept).
func readLegacyEffects(c *cursor, globalAngle float64) *Effects {
	c.u16() // version, 0
	n := int(c.u16())
	if c.err != nil || n > maxLegacyEffects {
		return nil
	}
	e := &Effects{}
	for i := 0; i < n && c.left() >= 12; i++ {
		if c.sig() != "8BIM" {
			break
		}
		key := c.sig()
		ec := c.sub(int64(c.u32()), "lrFX "+key)
		if c.err != nil {
			break
		}
		ec.u32() // version: 0, or 2 with the "native" colours after
		switch key {
		case "cmnS":
			if ec.u8() == 0 && ec.err == nil {
				return nil // all effects hidden
			}
		case "dsdw", "isdw":
			s, on := legacyShadow(ec, globalAngle)
			switch {
			case !on:
			case key == "dsdw":
				e.DropShadows = append(e.DropShadows, s)
			default:
				e.InnerShadows = append(e.InnerShadows, s)
			}
		case "oglw", "iglw":
			g := Glow{Size: legacyPixels(ec)}
			fixed16(ec) // intensity: 0 in every file seen
			g.Color, g.Blend = legacyColor(ec), legacyBlend(ec)
			on := ec.u8() != 0
			g.Opacity = float64(ec.u8()) / 255
			if ec.err != nil || !on {
				continue
			}
			if key == "oglw" {
				e.OuterGlows = append(e.OuterGlows, g)
			} else {
				e.InnerGlows = append(e.InnerGlows, g)
			}
		case "sofi":
			o := ColorOverlay{Blend: legacyBlend(ec), Color: legacyColor(ec)}
			o.Opacity = float64(ec.u8()) / 255
			if on := ec.u8() != 0; on && ec.err == nil {
				e.ColorOverlays = append(e.ColorOverlays, o)
			}
		case "bevl":
			// Angle, depth, blur, two blend modes, two colours, style and
			// two opacities come before its switch.
			ec.skip(12 + 16 + 20 + 3)
			if ec.u8() != 0 && ec.err == nil {
				e.Unread = append(e.Unread, "bevel and emboss")
			}
		}
	}
	if !e.Any() {
		return nil
	}
	return e
}

// legacyShadow reads a drop or inner shadow entry after its version, and
// whether it is switched on.
func legacyShadow(c *cursor, globalAngle float64) (Shadow, bool) {
	// Photoshop 5 had no spread or choke: what lfx2 holds as those is not
	// here, and they are drawn as 0. The "intensity" in their place is 0
	// in every file seen, beside any spread.
	s := Shadow{Size: legacyPixels(c)}
	fixed16(c) // intensity
	angle := fixed16(c)
	s.Distance = legacyPixels(c)
	s.Color = legacyColor(c)
	s.Blend = legacyBlend(c)
	on := c.u8() != 0
	global := c.u8() != 0
	s.Opacity = float64(c.u8()) / 255
	s.Angle = globalAngle
	if !global && !math.IsNaN(angle) {
		s.Angle = clampRange(angle, -360, 360)
	}
	return s, on && c.err == nil
}

// fixed16 reads a signed 16.16 fixed-point number.
func fixed16(c *cursor) float64 { return float64(c.i32()) / 65536 }

// legacyPixels reads a size in pixels, bounded as lfx2's are.
func legacyPixels(c *cursor) float64 { return clampRange(fixed16(c), 0, 1000) }

// legacyBlend reads an effect's blend mode: "8BIM" and a layer blend key.
func legacyBlend(c *cursor) BlendMode {
	if c.sig() != "8BIM" {
		return "normal"
	}
	return blendMode(c.sig())
}

// legacyColor reads Photoshop's colour structure: a colour space and four
// 16-bit components. RGB, CMYK (0 is full ink, as in a CMYK file's
// pixels), greyscale (0 to 10000 of black, as the descriptors' Gry ) and
// HSB are converted; Lab and others give black.
func legacyColor(c *cursor) color.NRGBA {
	space := c.u16()
	var v [4]uint16
	for i := range v {
		v[i] = c.u16()
	}
	b8 := func(x uint16) uint8 { return uint8((uint32(x) + 128) / 257) }
	switch space {
	case 0:
		return color.NRGBA{b8(v[0]), b8(v[1]), b8(v[2]), 255}
	case 1:
		r, g, b := hsbToRGB(float64(v[0])/65535*360, float64(v[1])/65535, float64(v[2])/65535)
		return color.NRGBA{unit8(r), unit8(g), unit8(b), 255}
	case 2:
		p := []byte{b8(v[0]), b8(v[1]), b8(v[2])}
		cmykToRGB(p, b8(v[3]))
		return color.NRGBA{p[0], p[1], p[2], 255}
	case 8:
		g := unit8(1 - math.Min(float64(v[0]), 10000)/10000)
		return color.NRGBA{g, g, g, 255}
	}
	return color.NRGBA{A: 255}
}

// hsbToRGB converts hue (degrees), saturation and brightness (0 to 1).
func hsbToRGB(h, s, v float64) (r, g, b float64) {
	h = math.Mod(h, 360) / 60
	i := math.Floor(h)
	f := h - i
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	switch int(i) {
	case 0:
		return v, t, p
	case 1:
		return q, v, p
	case 2:
		return p, v, t
	case 3:
		return p, q, v
	case 4:
		return t, p, v
	}
	return v, p, q
}
