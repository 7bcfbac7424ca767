package executor

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/rawcmd"
)

// benchEdit is a client's multi-input edit (trim, scale, crop, fade,
// overlay by expression, a colour source, concat, volume, amix, two
// outputs) on the demo media; IN0…IN2 are its inputs.
const benchEdit = `-i IN0 -i IN1 -loop 1 -t 3 -i IN2 -f lavfi -i "color=c=0x102030:s=640x360:d=3:r=25" ` +
	`-filter_complex "[0:v]trim=start=1:end=4,setpts=PTS-STARTPTS,scale=640:360,crop=600:340:20:10,scale=640:360,setsar=1,fps=25,fade=t=in:st=0:d=0.5[a];` +
	`[2:v]scale=320:-2,setsar=1,format=yuva420p,fade=t=out:st=2:d=1:alpha=1[pic];` +
	`[3:v][pic]overlay=x='(W-w)/2+20*sin(t)':y='(H-h)/2':shortest=1,setsar=1[b];` +
	`[a][b]concat=n=2:v=1:a=0,format=yuv420p,split=2[v][vp];` +
	`[0:a]atrim=start=1:end=4,asetpts=PTS-STARTPTS,volume=1.5,apad=pad_dur=3[voice];` +
	`[1:a]atrim=0:6,asetpts=PTS-STARTPTS,volume=0.3[music];[voice][music]amix=inputs=2:duration=shortest[aout]" ` +
	`-map "[v]" -map "[aout]" -shortest -c:v libx264 -preset veryfast -crf 23 -c:a aac -b:a 128k output.mp4 -map "[vp]" -frames:v 1 poster.png`

// BenchmarkRawFFmpegAgainstByHand runs the edit as a raw.ffmpeg job's
// ffmpeg step (the parsed command, inputs forced to their probed
// formats, ffmpeg started through the sandbox launcher in its own
// network namespace under Landlock and rlimits) and, in the same
// iteration, the same command by hand on the same local files, and
// reports both and their ratio. Downloads are not part of either.
func BenchmarkRawFFmpegAgainstByHand(b *testing.B) {
	if w := ffmpeg.ProbeWalls(); !w.Complete() {
		b.Skipf("no sandbox: %s", w.Err)
	}
	media := b.TempDir()
	inputs := map[string]Input{}
	byHand := benchEdit
	for i, name := range []string{"talk.mp4", "music.mp3", "picture1.jpg"} {
		src, err := os.ReadFile(filepath.Join("..", "demo", "files", name))
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(media, name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			b.Fatal(err)
		}
		info, err := ffmpeg.ProbeFast(context.Background(), ffmpeg.Limits{}, path)
		if err != nil {
			b.Fatal(err)
		}
		inputs[CommandInputKey(i)] = Input{Path: path, Info: info}
		byHand = strings.Replace(byHand, "IN"+string(rune('0'+i)), path, 1)
	}
	command := strings.NewReplacer("IN0", "https://media.example/talk.mp4", "IN1", "https://media.example/music.mp3", "IN2", "https://media.example/picture1.jpg").Replace(benchEdit)
	words, err := rawcmd.Split(byHand)
	if err != nil {
		b.Fatal(err)
	}
	params, err := json.Marshal(map[string]any{"command": command, "timeout": 300})
	if err != nil {
		b.Fatal(err)
	}
	job, err := New(Config{MaxPixels: ffmpeg.DefaultMaxPixels, MaxOutputBytes: ffmpeg.DefaultMaxOutputBytes}).Decode("raw.ffmpeg", params)
	if err != nil {
		b.Fatal(err)
	}
	var kino, hand, kinoCPU, handCPU time.Duration
	b.ResetTimer()
	for range b.N {
		// The job's folder holds its downloaded inputs, as the runner
		// leaves them: the sandbox lets ffmpeg read nothing else.
		b.StopTimer()
		dir := b.TempDir()
		local := map[string]Input{}
		for k, in := range inputs {
			p := filepath.Join(dir, "input-"+k[1:])
			if err := os.Link(in.Path, p); err != nil {
				b.Fatal(err)
			}
			local[k] = Input{Path: p, Info: in.Info}
		}
		b.StartTimer()
		start, cpu := time.Now(), childCPU()
		_, err := job.Work(context.Background(), Attempt{Inputs: local, Dir: dir, Log: io.Discard, OnProgress: func(float64) {}})
		kino += time.Since(start)
		kinoCPU += childCPU() - cpu
		if err != nil {
			b.Fatal(err)
		}
		handDir := b.TempDir()
		start, cpu = time.Now(), childCPU()
		cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-y"}, words...)...)
		cmd.Dir = handDir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("by hand: %v: %s", err, out)
		}
		hand += time.Since(start)
		handCPU += childCPU() - cpu
	}
	b.ReportMetric(float64(kino.Milliseconds())/float64(b.N), "kino-ms/op")
	b.ReportMetric(float64(hand.Milliseconds())/float64(b.N), "hand-ms/op")
	b.ReportMetric(float64(kino)/float64(hand), "ratio")
	b.ReportMetric(float64(kinoCPU.Milliseconds())/float64(b.N), "kino-cpu-ms/op")
	b.ReportMetric(float64(handCPU.Milliseconds())/float64(b.N), "hand-cpu-ms/op")
	b.ReportMetric(float64(kinoCPU)/float64(handCPU), "cpu-ratio")
}

// childCPU is the CPU time (user and system) of the waited-for children
// of the process so far: ffmpeg runs, with kino's launcher.
func childCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
