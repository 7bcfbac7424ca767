package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// benchMockups measures mockup.render end to end on the benchmark
// template (3000x3000: a background, one smart object in a perspective
// quad, a multiply shading clipped to it) with a 2000x2000 design: one
// design a job, submit to complete, runs times; then a batch of 20
// designs in one job.
//
// template is the PSD's path from the repository's root: bench-fx.psd is
// the same with a drop shadow, a Gaussian blur smart filter and a curves
// adjustment clipped to the smart object.
func benchMockups(ctx context.Context, runs int, template string) error {
	dir, err := os.MkdirTemp("", "kinobench-mockup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tpl, err := os.ReadFile(filepath.FromSlash(template))
	if err != nil {
		return fmt.Errorf("run from the repository's root: %w", err)
	}
	designs := map[string][]byte{}
	for i := range 20 {
		designs[fmt.Sprintf("/design-%d.png", i)] = designPNG(2000, 2000, i)
	}
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := designs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	defer files.Close()
	a, err := startKino(ctx, filepath.Join(dir, "kino"), "", 1)
	if err != nil {
		return err
	}
	defer a.Shutdown(ctx)
	base := "http://" + a.HTTPAddr
	t := time.Now()
	id, err := uploadTemplate(base, tpl)
	if err != nil {
		return err
	}
	upload := time.Since(t)

	fmt.Printf("## Mockups (%s, 2000x2000 PNG design; %d runs, median)\n\n", template, runs)
	fmt.Println("| case | submit to complete | mockups/s | CPU a mockup (kinobench's process: kino in-process) |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| template upload (read, check, thumbnail) | %s | | |\n", upload.Round(time.Millisecond))
	for _, format := range []string{"png", "jpg", "webp"} {
		var times, cpus []time.Duration
		for i := range runs {
			body := fmt.Sprintf(`{"type":"mockup.render","inputs":{"template":%q,"design":"%s/design-%d.png"},"params":{"format":%q}}`,
				id, files.URL, i%20, format)
			t, c := time.Now(), cpuTime()
			if err := runJob(base, body); err != nil {
				return fmt.Errorf("mockup %s: %w", format, err)
			}
			times, cpus = append(times, time.Since(t)), append(cpus, cpuTime()-c)
		}
		m := median(times)
		fmt.Printf("| one design, %s | %s | %.2f | %s |\n", format, m.Round(time.Millisecond), 1/m.Seconds(), median(cpus).Round(time.Millisecond))
	}
	steps, err := lastSteps(base)
	if err != nil {
		return err
	}
	var refs []string
	for i := 1; i < 20; i++ {
		refs = append(refs, fmt.Sprintf("%q", fmt.Sprintf("%s/design-%d.png", files.URL, i)))
	}
	var times, cpus []time.Duration
	for range max(1, runs/3) {
		body := fmt.Sprintf(`{"type":"mockup.render","inputs":{"template":%q,"design":"%s/design-0.png"},"params":{"designs":[%s]}}`,
			id, files.URL, strings.Join(refs, ","))
		t, c := time.Now(), cpuTime()
		if err := runJob(base, body); err != nil {
			return fmt.Errorf("batch: %w", err)
		}
		times, cpus = append(times, time.Since(t)), append(cpus, cpuTime()-c)
	}
	m := median(times)
	fmt.Printf("| batch of 20 designs, png | %s | %.2f | %s |\n\n", m.Round(time.Millisecond), 20/m.Seconds(), (median(cpus) / 20).Round(time.Millisecond))
	fmt.Printf("Steps of the last one-design job (webp): %s\n\n", steps)
	return nil
}

// lastSteps is the stepsJson of the newest job.
func lastSteps(base string) (string, error) {
	resp, err := http.Get(base + "/jobs?limit=1")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var got struct {
		Data []struct {
			StepsJSON string `json:"stepsJson"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || len(got.Data) == 0 {
		return "", fmt.Errorf("list jobs: %v", err)
	}
	return got.Data[0].StepsJSON, nil
}

// cpuTime is the CPU time this process has used (user and system, every
// thread): kino runs in it, so a job's share is the difference around it
// (ffmpeg's, for WebP, is a child's and not counted).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// designPNG is a photo-like design: smooth colour with fine texture, so
// its PNG decodes at a realistic cost.
func designPNG(w, h, seed int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := uint8((x*7 + y*13 + seed*31) % 17)
			img.SetNRGBA(x, y, color.NRGBA{
				uint8(128+100*math.Sin(float64(x+seed*50)/300)) + n,
				uint8(128+100*math.Cos(float64(y)/250)) + n,
				uint8((x + y + seed*10) / 16 % 256), 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// uploadTemplate posts a PSD as a psd_template asset and returns its id.
func uploadTemplate(base string, psd []byte) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("type", "psd_template")
	_ = mw.WriteField("category", "apparel")
	fw, _ := mw.CreateFormFile("file", "bench.psd")
	_, _ = fw.Write(psd)
	_ = mw.Close()
	resp, err := http.Post(base+"/assets", mw.FormDataContentType(), &body)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var got struct{ Data struct{ ID, Status string } }
	if err := json.Unmarshal(b, &got); err != nil || got.Data.Status != "ready" {
		return "", fmt.Errorf("upload the template: %d %s", resp.StatusCode, b)
	}
	return got.Data.ID, nil
}
