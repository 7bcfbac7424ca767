package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkDrawWords draws the frames of kinobench's words benchmark
// (five 1280×720 layers of 20 words coming in one after the other, each
// word's move 1.5 s, 0.025 s after the one before) to io.Discard: kino's
// own share of a render of words that move, without the disk or ffmpeg.
func BenchmarkDrawWords(b *testing.B) {
	for _, kind := range []string{"slide", "pop"} {
		b.Run(kind, func(b *testing.B) {
			var layers []any
			for k := range 5 {
				layers = append(layers, map[string]any{"type": "text", "fontSize": 48, "color": "white",
					"text": "Twenty words come in one after the other, each sliding up and fading in while the rest are still moving",
					"x":    90, "y": 200 + 40*k, "width": 1100, "start": 2 * k, "duration": 2,
					"enter": map[string]any{"type": kind, "side": "bottom", "by": "word", "stagger": 0.025, "duration": 1.5}})
			}
			body, err := json.Marshal(map[string]any{"width": 1280, "height": 720, "fps": 30, "duration": 10, "layers": layers})
			if err != nil {
				b.Fatal(err)
			}
			if kind == "pop" {
				body = []byte(strings.ReplaceAll(string(body), `"side":"bottom",`, ""))
			}
			s, err := Compile("provider_a", body, nil, DefaultLimits())
			if err != nil {
				b.Fatal(err)
			}
			cmd, err := Plan(context.Background(), s, inputs(nil, testFont), b.TempDir(), "/w/out.mp4")
			if err != nil {
				b.Fatal(err)
			}
			if len(cmd.drawn) != 5 {
				b.Fatalf("%d layers drawn, want 5", len(cmd.drawn))
			}
			b.ResetTimer()
			for range b.N {
				for name, draw := range cmd.drawn {
					if err := draw(io.Discard); err != nil {
						b.Fatal(fmt.Errorf("%s: %w", name, err))
					}
				}
			}
		})
	}
}
