package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// benchUpload measures POST /uploads of a file of size bytes against a
// kino process of its own (built from this checkout, defaults, loopback):
// the upload's rate next to writing the same bytes to a file on the same
// disk, and kino's resident memory before and at its peak during the
// upload (sampled every 20 ms, and the kernel's high-water mark, reset
// first). The body comes from a generator, so the client holds 1 MiB.
func benchUpload(ctx context.Context, size int64, runs int) error {
	dir, err := os.MkdirTemp(".", "kinobench-upload-")
	if err != nil {
		return err
	}
	dir, _ = filepath.Abs(dir)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "kino")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/kino")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build kino: %w", err)
	}
	httpAddr, grpcAddr := freeAddr(), freeAddr()
	cmd := exec.CommandContext(ctx, bin, "serve", "--data-dir", filepath.Join(dir, "data"),
		"--http-addr", httpAddr, "--grpc-addr", grpcAddr, "--workers", "0", "--upload-lifetime", "1h")
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base := "http://" + httpAddr
	if err := waitHealthy(ctx, base); err != nil {
		return err
	}
	block := make([]byte, 1<<20)
	_, _ = rand.Read(block)

	fmt.Printf("## Uploads\n\n%d MB through `POST /uploads` (raw body, no Content-Type) against writing it to a file on the same disk.\n\n", size/1e6)
	fmt.Println("| run | disk write | upload | upload / disk | kino CPU | upload / kino CPU s | RSS before | RSS peak (sampled) | RSS peak (VmHWM) | growth |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for i := 1; i <= runs; i++ {
		diskRate, err := diskWrite(filepath.Join(dir, "direct.bin"), block, size)
		if err != nil {
			return err
		}
		before, err := rss(cmd.Process.Pid)
		if err != nil {
			return err
		}
		// Writing 5 resets the high-water mark of the resident set.
		_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", cmd.Process.Pid), []byte("5"), 0)
		var peak atomic.Int64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			t := time.NewTicker(20 * time.Millisecond)
			defer t.Stop()
			for {
				if r, err := rss(cmd.Process.Pid); err == nil && r > peak.Load() {
					peak.Store(r)
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		cpu0, err := cpuSeconds(cmd.Process.Pid)
		if err != nil {
			return err
		}
		start := time.Now()
		err = postUpload(base, block, size)
		elapsed := time.Since(start)
		cpu1, _ := cpuSeconds(cmd.Process.Pid)
		close(stop)
		<-done
		if err != nil {
			return err
		}
		hwm, _ := procField(cmd.Process.Pid, "VmHWM:")
		upRate := float64(size) / elapsed.Seconds()
		fmt.Printf("| %d | %.0f MB/s | %.0f MB/s | %.2f | %.2f s | %.0f MB/s | %.1f MB | %.1f MB | %.1f MB | +%.1f MB |\n", i, diskRate/1e6, upRate/1e6,
			upRate/diskRate, cpu1-cpu0, float64(size)/1e6/(cpu1-cpu0), mb(before), mb(peak.Load()), mb(hwm), mb(max(peak.Load(), hwm)-before))
	}
	fmt.Println()
	return nil
}

// diskWrite writes size bytes of block to path and returns the rate.
func diskWrite(path string, block []byte, size int64) (float64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	_, err = io.Copy(f, &repeat{block: block, left: size})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	rate := float64(size) / time.Since(start).Seconds()
	os.Remove(path)
	return rate, err
}

func postUpload(base string, block []byte, size int64) error {
	req, err := http.NewRequest(http.MethodPost, base+"/uploads?filename=big.bin", &repeat{block: block, left: size})
	if err != nil {
		return err
	}
	req.ContentLength = size
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Size float64 `json:"size"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("upload answered %d (%v)", resp.StatusCode, err)
	}
	if int64(body.Data.Size) != size {
		return fmt.Errorf("upload stored %v bytes of %d", body.Data.Size, size)
	}
	return nil
}

// repeat reads block over and over, left bytes in all.
type repeat struct {
	block []byte
	left  int64
	off   int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), r.left)], r.block[r.off:])
	r.off = (r.off + n) % len(r.block)
	r.left -= int64(n)
	return n, nil
}

// procField reads a size field (kB) of a process's /proc status.
func procField(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc status", field)
}

// cpuSeconds is the user and system CPU time a process has used, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s).
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat")
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("read /proc stat")
	}
	return (utime + stime) / 100, nil
}
