package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
)

const submitBody = `{"provider":"provider_a","composition":{"width":1280,"height":720,"fps":30,"background":"#000000",
 "layers":[{"type":"color","color":"#ff0000","start":0,"duration":10,"x":100,"y":100,"width":400,"height":300},
           {"type":"text","text":"Hello","fontSize":48,"color":"#ffffff","x":"center","y":"center","start":0,"duration":10}]}}`

// benchSubmit measures how fast an API-only kino (no workers, so rendering
// does not compete for the CPU) accepts jobs over each protocol.
func benchSubmit(ctx context.Context, n, parallel int, dbURL string) error {
	dir, err := os.MkdirTemp("", "kinobench-submit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a, err := startKino(ctx, dir, dbURL, 0)
	if err != nil {
		return err
	}
	defer a.Shutdown(ctx)

	req := &renderv1.SubmitRenderRequest{}
	if err := protojson.Unmarshal([]byte(submitBody), req); err != nil {
		return err
	}
	conn, err := grpc.NewClient(a.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := renderv1.NewRenderServiceClient(conn)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: parallel}}
	url := "http://" + a.HTTPAddr + "/api/render"

	db := "SQLite"
	if dbURL != "" {
		db = "PostgreSQL"
	}
	fmt.Printf("## Submit throughput (%s, %d submits, %d clients)\n\n", db, n, parallel)
	fmt.Println("| protocol | submits/s | p50 | p99 |")
	fmt.Println("|---|---|---|---|")
	for _, proto := range []string{"REST", "gRPC"} {
		submit := func() error {
			if proto == "gRPC" {
				_, err := client.SubmitRender(ctx, req)
				return err
			}
			resp, err := hc.Post(url, "application/json", bytes.NewReader([]byte(submitBody)))
			if err != nil {
				return err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				return fmt.Errorf("submit answered %d", resp.StatusCode)
			}
			return nil
		}
		rate, p50, p99, err := load(n, parallel, submit)
		if err != nil {
			return fmt.Errorf("%s: %w", proto, err)
		}
		fmt.Printf("| %s | %.0f | %s | %s |\n", proto, rate, p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond))
	}
	fmt.Println()
	return nil
}

// load runs fn n times from parallel goroutines and reports the rate and latencies.
func load(n, parallel int, fn func() error) (float64, time.Duration, time.Duration, error) {
	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, n)
		firstErr  error
		next      = make(chan struct{}, n)
		wg        sync.WaitGroup
	)
	for range n {
		next <- struct{}{}
	}
	close(next)
	start := time.Now()
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				t := time.Now()
				err := fn()
				d := time.Since(t)
				mu.Lock()
				latencies = append(latencies, d)
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	total := time.Since(start)
	if firstErr != nil {
		return 0, 0, 0, firstErr
	}
	slices.Sort(latencies)
	return float64(n) / total.Seconds(), latencies[len(latencies)/2], latencies[len(latencies)*99/100], nil
}
