package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// executorCase is one media job and the ffmpeg command a person would
// write for the same result, with the same encoder settings.
type executorCase struct {
	name string
	job  string
	raw  func(dir string) []string
}

func executorCases() []executorCase {
	return []executorCase{
		{"audio.extract (mp3)", `{"type":"audio.extract","inputs":{"source":"SRC/talk.mp4"},"params":{"format":"mp3"}}`,
			func(d string) []string {
				return []string{"-i", d + "/talk.mp4", "-vn", "-c:a", "libmp3lame", d + "/raw.mp3"}
			}},
		{"video.trim (5 s)", `{"type":"video.trim","inputs":{"source":"SRC/talk.mp4"},"params":{"start":2,"duration":5}}`,
			func(d string) []string {
				return []string{"-ss", "2", "-t", "5", "-i", d + "/talk.mp4", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", d + "/raw.mp4"}
			}},
		{"video.transcode (mp4, 640 wide)", `{"type":"video.transcode","inputs":{"source":"SRC/talk.mp4"},"params":{"preset":"mp4","width":640}}`,
			func(d string) []string {
				return []string{"-i", d + "/talk.mp4", "-vf", "scale=640:-2", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", d + "/raw.mp4"}
			}},
		{"watermark.apply (image)", `{"type":"watermark.apply","inputs":{"source":"SRC/talk.mp4"},"params":{"watermarks":[{"type":"image","url":"SRC/logo.png"}]}}`,
			func(d string) []string {
				return []string{"-i", d + "/talk.mp4", "-i", d + "/logo.png", "-filter_complex",
					"[1:v]scale=256:-1[l];[0:v][l]overlay=x=W-w-16:y=H-h-16,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", d + "/raw.mp4"}
			}},
		{"video.thumbnail (frame)", `{"type":"video.thumbnail","inputs":{"source":"SRC/talk.mp4"},"params":{"at":5}}`,
			func(d string) []string {
				return []string{"-ss", "5", "-i", d + "/talk.mp4", "-frames:v", "1", d + "/raw.png"}
			}},
	}
}

// benchExecutors times each job through kino (create over REST to
// complete) against its hand-written command, alternately.
func benchExecutors(ctx context.Context, runs int) error {
	dir, err := os.MkdirTemp("", "kinobench-exec-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, args := range [][]string{
		{"-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=48000", "-t", "15",
			"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "talk.mp4"},
		{"-f", "lavfi", "-i", "testsrc2=size=400x200", "-frames:v", "1", "logo.png"},
	} {
		cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("make inputs: %v: %s", err, out)
		}
	}
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer files.Close()
	a, err := startKino(ctx, filepath.Join(dir, "kino"), "", 1)
	if err != nil {
		return err
	}
	defer a.Shutdown(ctx)
	base := "http://" + a.HTTPAddr

	fmt.Printf("## Media jobs against hand-written ffmpeg (15 s 1280x720 30 fps input, %d runs each, medians)\n\n", runs)
	fmt.Println("| job | hand-written ffmpeg | kino, create to complete | ratio |")
	fmt.Println("|---|---|---|---|")
	for _, c := range executorCases() {
		var raw, via []time.Duration
		for range runs {
			t := time.Now()
			cmd := exec.CommandContext(ctx, "ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y"}, c.raw(dir)...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s by hand: %v: %s", c.name, err, out)
			}
			raw = append(raw, time.Since(t))

			t = time.Now()
			if err := runJob(base, strings.ReplaceAll(c.job, "SRC", files.URL)); err != nil {
				return fmt.Errorf("%s through kino: %w", c.name, err)
			}
			via = append(via, time.Since(t))
		}
		r, k := median(raw), median(via)
		fmt.Printf("| %s | %s | %s | %.3f |\n", c.name, r.Round(time.Millisecond), k.Round(time.Millisecond), k.Seconds()/r.Seconds())
	}
	fmt.Println()
	return nil
}

func runJob(base, body string) error {
	resp, err := http.Post(base+"/jobs", "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	var created struct{ Data struct{ ID string } }
	err = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("create: %d %v", resp.StatusCode, err)
	}
	// The watch stream ends when the job does.
	resp, err = http.Get(base + "/jobs/" + created.Data.ID + "/events")
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp, err = http.Get(base + "/jobs/" + created.Data.ID)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var got struct {
		Data struct {
			Status, ErrorMessage string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		return err
	}
	if got.Data.Status != "complete" {
		return fmt.Errorf("ended %s: %s", got.Data.Status, got.Data.ErrorMessage)
	}
	return nil
}
