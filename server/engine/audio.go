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
	in := p.input(m, "-ss", f(l.TrimStart), "-t", f(l.Duration))
	return p.audioChain(i, l, in), nil
}

// audioChain brings input in's sound to the mix: one format, cut to the
// layer, at the layer's volume and fades, delayed to its start.
func (p *planner) audioChain(i int, l Layer, in int) string {
	lbl := fmt.Sprintf("a%d", i)
	chain := join(
		fmt.Sprintf("[%d:a]aresample=%d", in, audioRate),
		"aformat=sample_fmts=fltp:channel_layouts=stereo",
		"asetpts=PTS-STARTPTS",
		"atrim=end="+f(l.Duration),
		"volume="+f(l.Volume),
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
