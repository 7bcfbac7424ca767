package psd

// Adjustment is an adjustment layer kino draws, as per-channel tables or
// a threshold; Kind names it ("invert", "posterize", "threshold").
// Adjustments not read have no Adjustment: the layer's Unsupported names
// them.
type Adjustment struct {
	Kind string
	// Tables map each of R, G and B (grey uses R), 0..255, when set.
	Tables *[3][256]uint8
	// Threshold, when not zero, turns pixels whose luminance is at least
	// it white and the others black.
	Threshold int
}

// readAdjustment reads the adjustments kino draws from their block; nil
// for the others, or for a block it cannot read.
func readAdjustment(key string, c *cursor) *Adjustment {
	switch key {
	case "nvrt":
		t := identity()
		for ch := range t {
			for v := range t[ch] {
				t[ch][v] = uint8(255 - v)
			}
		}
		return &Adjustment{Kind: "invert", Tables: t}
	case "post":
		n := int(c.u16())
		if c.err != nil || n < 2 || n > 255 {
			return nil
		}
		t := identity()
		for ch := range t {
			for v := range t[ch] {
				// Photoshop's bands: v·n/256 levels, spread over 0..255.
				t[ch][v] = uint8(min(v*n/256, n-1) * 255 / (n - 1))
			}
		}
		return &Adjustment{Kind: "posterize", Tables: t}
	case "thrs":
		n := int(c.u16())
		if c.err != nil || n < 1 || n > 255 {
			return nil
		}
		return &Adjustment{Kind: "threshold", Threshold: n}
	}
	return nil
}

func identity() *[3][256]uint8 {
	var t [3][256]uint8
	for ch := range t {
		for v := range t[ch] {
			t[ch][v] = uint8(v)
		}
	}
	return &t
}
