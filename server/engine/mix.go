package engine

import (
	"fmt"
	"strings"
)

// mix makes the output's sound, [aout], from the silent base and the
// sound of each layer that plays (sounds, by layer index): sounds that
// duck go through their compressor, everything is summed at the volume
// each layer asked for, then normalised when the scene asks.
func (p *planner) mix(sounds map[int]string) {
	// Which playing sounds key each ducking sound. Sounds that duck
	// under the same sounds share one mix of them (sets, by the keys'
	// labels, lists the ducking sounds of each), so each sound is needed
	// once in the mix and once in every distinct set of keys it is part of.
	keys := map[int][]int{}
	setOf := map[int]string{}
	sets := map[string][]int{}
	uses := map[int]int{}
	for i, l := range p.s.Layers {
		if sounds[i] == "" {
			continue
		}
		uses[i]++
		if l.Duck == nil {
			continue
		}
		var set strings.Builder
		for _, k := range l.Duck.Keys {
			if sounds[k] != "" {
				keys[i] = append(keys[i], k)
				set.WriteString("[" + sounds[k] + "]")
			}
		}
		if len(keys[i]) == 0 {
			continue
		}
		setOf[i] = set.String()
		if sets[setOf[i]] == nil {
			for _, k := range keys[i] {
				uses[k]++
			}
		}
		sets[setOf[i]] = append(sets[setOf[i]], i)
	}
	copies := map[int][]string{}
	for i := range p.s.Layers {
		switch n := uses[i]; {
		case n == 1:
			copies[i] = []string{sounds[i]}
		case n > 1:
			var out strings.Builder
			for c := range n {
				copies[i] = append(copies[i], fmt.Sprintf("%sc%d", sounds[i], c))
				out.WriteString("[" + copies[i][c] + "]")
			}
			p.graph = append(p.graph, fmt.Sprintf("[%s]asplit=%d%s", sounds[i], n, out.String()))
		}
	}
	take := func(i int) string {
		c := copies[i][0]
		copies[i] = copies[i][1:]
		return c
	}
	// The key mix of each set, made when its first ducking sound comes,
	// split when others share it.
	mixes := map[string][]string{}
	key := func(i int) string {
		set := setOf[i]
		if mixes[set] == nil {
			var ks []string
			for _, k := range keys[i] {
				ks = append(ks, take(k))
			}
			mixes[set] = p.keyMix(i, ks, len(sets[set]))
		}
		k := mixes[set][0]
		mixes[set] = mixes[set][1:]
		return k
	}

	mixed := []string{"abase"}
	for i, l := range p.s.Layers {
		if sounds[i] == "" {
			continue
		}
		s := take(i)
		if len(keys[i]) > 0 {
			s = p.duck(i, s, key(i), l.Duck)
		}
		mixed = append(mixed, s)
	}
	var in strings.Builder
	for _, a := range mixed {
		in.WriteString("[" + a + "]")
	}
	// Silence stays silence. And a graph without inputs is started before
	// the encoder tells it its frame size, so loudnorm's long frames would
	// reach the encoder uncut.
	loudness := ""
	if len(mixed) > 1 {
		loudness = normalize(p.s.Loudness)
	}
	frames := ""
	if p.s.Format == "webm" {
		// libopus takes frames of 20 ms (960 samples) at most; a mix of
		// generated silence alone comes in frames of 1024 and fails
		// ("more samples than frame size").
		frames = "asetnsamples=n=960:p=0"
	}
	// duration=first: the silent base sets the length; normalize=0 keeps
	// each layer at the volume it asked for instead of dividing by the
	// number of inputs.
	p.graph = append(p.graph, fmt.Sprintf("%s%s[aout]", in.String(),
		join(fmt.Sprintf("amix=inputs=%d:duration=first:normalize=0", len(mixed)), loudness, fmt.Sprintf("aresample=%d", audioRate), frames)))
}
