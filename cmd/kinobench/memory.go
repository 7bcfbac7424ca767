package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
)

// benchMemory measures the resident memory of a kino process of its own
// (built from this checkout, started with its defaults on loopback), idle
// and then holding open watch streams, half over REST and half over gRPC.
// The streams follow queued renders of an API-only node, so nothing runs
// and every stream stays open until the measurement ends.
// settle is how long kino runs before its memory is read: a measure of
// what it holds over time, not a wait for an event.
const settle = 5 * time.Second

func benchMemory(ctx context.Context, streams int) error {
	dir, err := os.MkdirTemp("", "kinobench-memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "kino")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/kino")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build kino: %w", err)
	}
	httpAddr, grpcAddr := freeAddr(), freeAddr()
	cmd := exec.CommandContext(ctx, bin, "serve", "--data-dir", filepath.Join(dir, "data"),
		"--http-addr", httpAddr, "--grpc-addr", grpcAddr, "--workers", "0",
		"--max-watch-streams", strconv.Itoa(streams))
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base := "http://" + httpAddr
	if err := waitHealthy(ctx, base); err != nil {
		return err
	}

	// Idle: after start-up and one request of each protocol, settled.
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := renderv1.NewRenderServiceClient(conn)
	if _, err := client.Health(ctx, &renderv1.HealthRequest{}); err != nil {
		return err
	}
	const jobs = 10
	ids := make([]string, 0, jobs)
	for range jobs {
		resp, err := http.Post(base+"/api/render", "application/json", strings.NewReader(submitBody))
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			return fmt.Errorf("submit answered %d: %s", resp.StatusCode, body)
		}
		var submitted struct {
			JobID string `json:"jobId"`
		}
		if err := json.Unmarshal(body, &submitted); err != nil || submitted.JobID == "" {
			return fmt.Errorf("submit answered %s", body)
		}
		ids = append(ids, submitted.JobID)
	}
	<-time.After(settle)
	idle, err := rss(cmd.Process.Pid)
	if err != nil {
		return err
	}

	// Streams: each sends its first snapshot before it counts as open.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	opened := make(chan error, streams)
	hc := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: streams}}
	for i := range streams {
		id := ids[i%jobs]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				s, err := client.WatchRender(sctx, &renderv1.WatchRenderRequest{JobId: id})
				if err == nil {
					_, err = s.Recv()
				}
				opened <- err
				<-sctx.Done()
				return
			}
			req, _ := http.NewRequestWithContext(sctx, http.MethodGet, base+"/api/render/"+id+"/events", nil)
			resp, err := hc.Do(req)
			if err == nil {
				defer resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("watch answered %d", resp.StatusCode)
				} else if _, err = bufio.NewReader(resp.Body).ReadBytes('\n'); err == nil {
					opened <- nil
					_, _ = io.Copy(io.Discard, resp.Body)
					return
				}
			}
			opened <- err
		}()
	}
	for range streams {
		if err := <-opened; err != nil {
			cancel()
			wg.Wait()
			return fmt.Errorf("open a watch stream: %w", err)
		}
	}
	<-time.After(settle)
	loaded, err := rss(cmd.Process.Pid)
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}

	fmt.Printf("## Memory (SQLite, API-only node, %d watch streams: half REST, half gRPC)\n\n", streams)
	fmt.Println("| state | RSS | targets |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| idle | %.1f MB | < 60 MB |\n", mb(idle))
	fmt.Printf("| %d streams open | %.1f MB (+%.1f MB) | < 100 MB more |\n\n", streams, mb(loaded), mb(loaded-idle))
	return nil
}

func mb(b int64) float64 { return float64(b) / 1e6 }

// rss reads a process's resident set size from /proc.
func rss(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err) //nolint:forbidigo // programmer error: a benchmark that cannot listen on loopback cannot run at all
	}
	defer l.Close()
	return l.Addr().String()
}

func waitHealthy(ctx context.Context, base string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/api/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("kino did not become healthy within 60 s")
}
