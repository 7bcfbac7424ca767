package engine

import "fmt"

// audio plays an audio layer, and returns the label of its sound.
func (p *planner) audio(i int, l Layer) (string, error) {
	m, err := p.medium(l)
	if err != nil {
		return "", err
	}
	if !m.HasAudio {
		return "", &MediaError{Field: l.SourceField, Message: "the file has no sound; an audio layer needs an audio or video file with an audio track"}
	}
	if !p.sound() {
		// A GIF or a still is silent; the layer is only checked.
		return "", nil
	}
	in := p.input(m, sourceOptions(l, l.Duration)...)
	return p.audioChain(i, l, in), nil
}

// audioChain brings input in's sound to the mix: one format, at the
// layer's speed, cut to the layer, at its volume and fades, delayed to its
// start.
func (p *planner) audioChain(i int, l Layer, in int) string {
	lbl := fmt.Sprintf("a%d", i)
	chain := join(
		fmt.Sprintf("[%d:a]aresample=%d", in, audioRate),
		"aformat=sample_fmts=fltp:channel_layouts=stereo",
		"asetpts=PTS-STARTPTS",
		tempo(l),
		"atrim=end="+f(l.Duration),
		volume(l),
	)
	if l.FadeIn > 0 {
		chain = join(chain, fmt.Sprintf("afade=t=in:st=0:d=%s", f(l.FadeIn)))
	}
	if l.FadeOut > 0 {
		chain = join(chain, fmt.Sprintf("afade=t=out:st=%s:d=%s", f(max(l.Duration-l.FadeOut, 0)), f(l.FadeOut)))
	}
	// The delay in samples, exact where milliseconds would round.
	chain = join(chain, fmt.Sprintf("adelay=delays=%dS:all=1", int64(l.Start*audioRate+0.5)))
	p.graph = append(p.graph, chain+"["+lbl+"]")
	return lbl
}

// gainBlock is the samples of a block whose gain is evaluated once, when
// the gain changes: 5 ms, short enough that a ramp has no audible steps
// (decoders give blocks of 1024 samples and more).
const gainBlock = audioRate / 200

// volume is a layer's gain: a number, or, when it changes, an expression
// of the time from the layer's start evaluated on every block of
// gainBlock samples, at the block's middle.
func volume(l Layer) string {
	m := l.motion()
	k := clock{t: fmt.Sprintf("(t+%s)", f(gainBlock/2.0/audioRate))}
	v := f(l.Volume)
	if m.Volume != nil {
		v = "(" + m.Volume.expr(k) + ")"
	}
	// A layer's own enter and exit fade its sound too; transitions
	// crossfade it.
	fade := product(l.fadingBy(k, m.Enter, m.Exit), l.crossfading(k))
	if m.Volume == nil && fade == "" {
		return "volume=" + v
	}
	return join(fmt.Sprintf("asetnsamples=n=%d:p=0", gainBlock), "volume=volume="+escapeGraph(product(v, fade))+":eval=frame")
}
