package engine

// pictureAndSoundOutputs counts the labelled outputs the chains of
// pictures and sounds add to a graph, for FuzzCompile: those of each
// contain-blur drawn (layers up to under are hidden, or all when the
// output has no picture), and those of ducking.
func pictureAndSoundOutputs(s *Scene, media map[string]Media, under int) int {
	n := 0
	sound := map[int]bool{}
	for i, l := range s.Layers {
		switch l.Kind {
		case KindImage, KindVideo:
			if i > under && l.Look.Fit == FitContainBlur {
				n += 4 // the split's two, the background and the picture
			}
			m := media[l.Source]
			sound[i] = l.Kind == KindVideo && l.Volume > 0 && m.HasAudio && !m.Still
		case KindAudio:
			sound[i] = true
		}
	}
	if !s.HasSound() {
		return n // no mix: nothing ducks
	}
	inKeys := map[int]int{}
	for i, l := range s.Layers {
		if !sound[i] || l.Duck == nil {
			continue
		}
		keyed := false
		for _, k := range l.Duck.Keys {
			if sound[k] {
				inKeys[k]++
				keyed = true
			}
		}
		if keyed {
			n += 2 // the key and the ducked sound
		}
	}
	for _, keys := range inKeys {
		n += 1 + keys // a split sound: its copy for the mix, one per key
	}
	return n
}
