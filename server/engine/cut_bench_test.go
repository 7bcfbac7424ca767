package engine

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kinohq/kino/server/ffmpeg"
)

// BenchmarkTransitions renders 10 s of 1280×720 at 30 fps: two
// full-frame pictures (gradient cards kino paints), the first handing
// over to the second at 5 s by each transition of 1 s, against a plain
// cut. What a transition adds is the difference to "cut". Besides the
// wall time it reports ffmpeg's CPU time (cpu-s/op), which a shared
// machine's load disturbs far less; results in docs/benchmarks.md.
//
//	go test ./server/engine -run '^$' -bench Transitions -benchtime 3x
func BenchmarkTransitions(b *testing.B) {
	card := func(from, to string, start, duration float64, tr map[string]any) map[string]any {
		l := map[string]any{"type": "rectangle", "start": start, "duration": duration,
			"gradient": map[string]any{"angle": 135, "stops": []any{
				map[string]any{"offset": 0, "color": from}, map[string]any{"offset": 1, "color": to}}}}
		if tr != nil {
			l["transition"] = tr
		}
		return l
	}
	for _, name := range []string{"cut", "fade", "dissolve", "wipeLeft", "slideLeft", "circleOpen", "zoom"} {
		layers := []any{card("#ff6600", "#6a00f4", 0, 5, nil), card("#2a9d8f", "#264653", 5, 5, nil)}
		if name != "cut" {
			layers = []any{card("#ff6600", "#6a00f4", 0, 5.5, map[string]any{"name": name, "duration": 1}),
				card("#2a9d8f", "#264653", 4.5, 5.5, nil)}
		}
		s, err := Compile("provider_a", mustJSON(b, map[string]any{"width": 1280, "height": 720, "fps": 30, "layers": layers}), nil, DefaultLimits())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			work := b.TempDir()
			cmd, err := Plan(context.Background(), s, inputs(nil, testFont), work, filepath.Join(work, "out.mp4"))
			if err != nil {
				b.Fatal(err)
			}
			for name, content := range cmd.Files {
				if err := os.WriteFile(filepath.Join(work, name), content, 0o600); err != nil {
					b.Fatal(err)
				}
			}
			before := childCPU(b)
			b.ResetTimer()
			for range b.N {
				if err := ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: s.Duration}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((childCPU(b)-before).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// childCPU is the CPU time, user and system, of the finished child
// processes of the test binary so far.
func childCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
