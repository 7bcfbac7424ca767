package engine

import "fmt"

// The memory a picture layer holds in ffmpeg's graph, by the pixels of the
// box it is drawn in: its frames in flight, and a Gaussian blur's float
// planes. Measured on ffmpeg 5.1: blurred 1280×720 pictures ran out of a
// 4 GiB address space between 45 and 50 of them (about 90 bytes a pixel
// each); 100 plain pictures in 3840×2160 layers drew.
const (
	layerBytesPerPixel = 4
	blurBytesPerPixel  = 96
)

// checkGraphMemory refuses, naming the layer, a picture whose layers would
// need more memory in ffmpeg's graph than one ffmpeg process may use
// (Inputs.FFmpeg: --ffmpeg-max-memory), where ffmpeg would fail to configure its filters
// ("Cannot allocate memory") with nothing the client could act on.
func (p *planner) checkGraphMemory() error {
	budget := p.limits.WithDefaults().MaxMemory
	var total int64
	for _, l := range p.s.Layers {
		if l.Kind != KindImage && l.Kind != KindVideo && l.Kind != KindMockup {
			continue
		}
		m, ok := p.media[l.Source]
		if !ok {
			continue
		}
		bw, bh := box(l, m)
		w, h := drawn(l, bw, bh)
		px := int64(w) * int64(h)
		field, cost := l.Field, px*layerBytesPerPixel
		for _, fl := range l.Look.Filters {
			if fl.Name == "blur" && fl.Amount > 0 {
				field, cost = l.Field+".filters.blur", cost+px*blurBytesPerPixel
			}
		}
		if total += cost; total > budget {
			return &MediaError{Field: field, Message: fmt.Sprintf(
				"with the layers under it, drawing needs about %d MiB of memory (a layer %d bytes a pixel of its box, a blur %d more), more than one ffmpeg process may use (%d MiB, --ffmpeg-max-memory): blur fewer or smaller layers",
				total>>20, layerBytesPerPixel, blurBytesPerPixel, budget>>20)}
		}
	}
	return nil
}
