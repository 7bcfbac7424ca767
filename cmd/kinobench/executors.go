package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kinohq/kino/server/ffmpeg"
)

// executorCase is one media job and the ffmpeg command a person would
// write for the same result, with the same filters and encoder settings.
// raw reads its inputs from src (a folder, or the URL kino is given) and
// writes into out.
type executorCase struct {
	name string
	job  string
	raw  func(src, out string) []string
}

// spoken is the speech of the caption jobs' input, about 14 s of it.
const spoken = "kino renders videos and runs media jobs for teams around the world. " +
	"This sentence is spoken by a machine so that captions can be found, timed and burned into the picture. " +
	"Thank you for listening to this short benchmark."

// burnStyle is caption.burn's default style on the 1280x720 input (sizes
// in its pixels), written out by hand.
const burnStyle = "PlayResX=1280,PlayResY=720,FontName=DejaVu Sans,FontSize=48,PrimaryColour=&H00FFFFFF,OutlineColour=&H00000000," +
	"BackColour=&H80000000,Bold=-1,BorderStyle=1,Outline=2,Shadow=1,Alignment=2,MarginL=40,MarginR=40,MarginV=60"

func executorCases(dir string) []executorCase {
	x264 := []string{"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac"}
	with := func(args ...[]string) []string {
		var out []string
		for _, a := range args {
			out = append(out, a...)
		}
		return out
	}
	model := "/usr/share/pocketsphinx/model/en-us"
	return []executorCase{
		{"audio.extract (mp3)", `{"type":"audio.extract","inputs":{"source":"SRC/talk.mp4"},"params":{"format":"mp3"}}`,
			func(src, out string) []string {
				return []string{"-i", src + "/talk.mp4", "-vn", "-c:a", "libmp3lame", out + "/raw.mp3"}
			}},
		{"video.trim (5 s)", `{"type":"video.trim","inputs":{"source":"SRC/talk.mp4"},"params":{"start":2,"duration":5}}`,
			func(src, out string) []string {
				return with([]string{"-ss", "2", "-t", "5", "-i", src + "/talk.mp4"}, x264, []string{"-movflags", "+faststart", out + "/raw.mp4"})
			}},
		{"video.transcode (mp4, 640 wide)", `{"type":"video.transcode","inputs":{"source":"SRC/talk.mp4"},"params":{"preset":"mp4","width":640}}`,
			func(src, out string) []string {
				return with([]string{"-i", src + "/talk.mp4", "-vf", "scale=640:-2"}, x264, []string{"-movflags", "+faststart", out + "/raw.mp4"})
			}},
		{"video.transcode (hls, 640 wide)", `{"type":"video.transcode","inputs":{"source":"SRC/talk.mp4"},"params":{"preset":"hls","width":640}}`,
			func(src, out string) []string {
				return with([]string{"-i", src + "/talk.mp4", "-vf", "scale=640:-2"}, x264, []string{"-force_key_frames", "expr:gte(t,n_forced*4)",
					"-f", "hls", "-hls_time", "4", "-hls_playlist_type", "vod", "-hls_segment_filename", out + "/raw-%03d.ts", out + "/raw.m3u8"})
			}},
		{"watermark.apply (image)", `{"type":"watermark.apply","inputs":{"source":"SRC/talk.mp4"},"params":{"watermarks":[{"type":"image","url":"SRC/logo.png"}]}}`,
			func(src, out string) []string {
				return with([]string{"-i", src + "/talk.mp4", "-i", src + "/logo.png", "-filter_complex",
					"[1:v]scale=256:-1[l];[0:v][l]overlay=x=W-w-16:y=H-h-16,format=yuv420p"}, x264, []string{out + "/raw.mp4"})
			}},
		{"video.thumbnail (frame)", `{"type":"video.thumbnail","inputs":{"source":"SRC/talk.mp4"},"params":{"at":5}}`,
			func(src, out string) []string {
				return []string{"-ss", "5", "-i", src + "/talk.mp4", "-frames:v", "1", out + "/raw.png"}
			}},
		{"image.resize (png to jpeg, 320 wide)", `{"type":"image.resize","inputs":{"source":"SRC/photo.png"},"params":{"width":320,"format":"jpeg"}}`,
			func(src, out string) []string {
				return []string{"-i", src + "/photo.png", "-vf", "scale=320:-2", "-frames:v", "1", out + "/raw.jpg"}
			}},
		{"caption.extract (pocketsphinx)", `{"type":"caption.extract","inputs":{"source":"SRC/speech.mp4"}}`,
			func(src, out string) []string {
				return []string{"-i", src + "/speech.mp4", "-vn", "-af", "aresample=16000,aformat=channel_layouts=mono,apad=pad_dur=2," +
					"asr=hmm=" + model + "/en-us:dict=" + model + "/cmudict-en-us.dict:lm=" + model + "/en-us.lm.bin:logfn=/dev/null," +
					"ametadata=mode=print:key=lavfi.asr.text:file=" + out + "/raw-asr.txt", "-f", "null", "-"}
			}},
		{"caption.burn (libass)", `{"type":"caption.burn","inputs":{"source":"SRC/speech.mp4","subtitles":"SRC/subs.vtt"}}`,
			func(src, out string) []string {
				// A person downloads the few bytes of captions; libass reads a file.
				return with([]string{"-i", src + "/speech.mp4", "-vf", "subtitles=filename=" + dir + "/subs.vtt:force_style='" + burnStyle + "'"},
					x264, []string{"-movflags", "+faststart", out + "/raw.mp4"})
			}},
	}
}

// benchExecutors times each job through kino (create over REST to
// complete) against its hand-written command, on the local file and on
// the URL kino is given, in turn within each run.
func benchExecutors(ctx context.Context, runs int) error {
	dir, err := os.MkdirTemp("", "kinobench-exec-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, args := range [][]string{
		{"-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=48000", "-t", "15",
			"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "talk.mp4"},
		{"-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi", "-i", "flite=text='" + spoken + "':voice=slt", "-shortest",
			"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "speech.mp4"},
		{"-f", "lavfi", "-i", "testsrc2=size=400x200", "-frames:v", "1", "logo.png"},
		{"-f", "lavfi", "-i", "testsrc2=size=1920x1080", "-frames:v", "1", "photo.png"},
	} {
		if err := ffmpeg.Run(ctx, args, ffmpeg.RunOptions{Dir: dir}); err != nil {
			return fmt.Errorf("make inputs: %w", err)
		}
	}
	vtt := "WEBVTT\n\n00:00:00.500 --> 00:00:04.000\nkino renders videos\n\n00:00:04.000 --> 00:00:09.000\nand runs media jobs\n\n" +
		"00:00:09.000 --> 00:00:13.000\nfor teams around the world\n"
	if err := os.WriteFile(filepath.Join(dir, "subs.vtt"), []byte(vtt), 0o644); err != nil {
		return err
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
	fmt.Println("| job | ffmpeg, local file | ffmpeg, same URL | kino, create to complete | kino / local | kino / URL |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, c := range executorCases(dir) {
		var local, remote, via []time.Duration
		for range runs {
			for _, side := range []struct {
				src string
				to  *[]time.Duration
			}{{dir, &local}, {files.URL, &remote}} {
				t := time.Now()
				if err := ffmpeg.Run(ctx, c.raw(side.src, dir), ffmpeg.RunOptions{}); err != nil {
					return fmt.Errorf("%s by hand: %w", c.name, err)
				}
				*side.to = append(*side.to, time.Since(t))
			}

			t := time.Now()
			if err := runJob(base, strings.ReplaceAll(c.job, "SRC", files.URL)); err != nil {
				return fmt.Errorf("%s through kino: %w", c.name, err)
			}
			via = append(via, time.Since(t))
		}
		l, r, k := median(local), median(remote), median(via)
		fmt.Printf("| %s | %s | %s | %s | %.3f | %.3f |\n", c.name, l.Round(time.Millisecond), r.Round(time.Millisecond),
			k.Round(time.Millisecond), k.Seconds()/l.Seconds(), k.Seconds()/r.Seconds())
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
