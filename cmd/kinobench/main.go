// Command kinobench measures kino against the numbers in docs/benchmarks.md:
// the wall time of a render through kino next to a hand-written ffmpeg
// command for the same video, run alternately on the same machine, and the
// submit throughput over REST and gRPC. It prints a Markdown report.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/kinohq/kino/server/app"
)

func main() {
	var (
		runs      = flag.Int("runs", 3, "render runs of each side")
		submits   = flag.Int("submits", 2000, "submits per protocol for the throughput test")
		parallel  = flag.Int("parallel", 8, "concurrent submitting clients")
		dbURL     = flag.String("database-url", "", "database of the throughput test (default SQLite in a temp folder)")
		only      = flag.String("only", "", "run one part: render, split, submit, executors, mockups, mockup-layer, preview, words, jobs, claims, memory or upload")
		parts     = flag.String("split-parts", "30,3.75", "part lengths in seconds of the split benchmark, comma-separated")
		jobs      = flag.Int("jobs", 1_000_000, "jobs in the store for the list test")
		queries   = flag.Int("queries", 2000, "list queries of the list test")
		streams   = flag.Int("streams", 1000, "watch streams held open by the memory test")
		waiting   = flag.Int("claim-jobs", 1_000_000, "jobs waiting in each case of the claims test")
		claims    = flag.Int("claims", 2000, "claims timed in each case of the claims test")
		claimCase = flag.String("claim-case", "", "run only the cases of the claims test whose name contains this")
		turns     = flag.String("turn-jobs", "10000,1000000", "A's jobs waiting in each run of the fair-turns test, comma-separated")
		video     = flag.String("video", "", "render only the benchmark videos whose name contains this (background, colour clip, colour band)")
		uploadMB  = flag.Int64("upload-mb", 500, "megabytes of the upload test's file")
		mockupPSD = flag.String("mockup-template", "server/mockup/testdata/bench.psd", "template of the mockups test (server/mockup/testdata/bench-fx.psd: with a shadow, a blur smart filter and curves)")
	)
	flag.Parse()
	ctx := context.Background()

	fmt.Printf("# kinobench, %s\n\n", time.Now().UTC().Format(time.DateTime))
	fmt.Printf("Machine: %d CPUs, %s/%s, %s.\n\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	run := func(part string) bool { return *only == "" || *only == part }
	if run("render") {
		if err := benchRender(ctx, *runs, *video); err != nil {
			fail(err)
		}
	}
	if run("split") {
		var per []float64
		for _, p := range strings.Split(*parts, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || v <= 0 {
				fail(fmt.Errorf("-split-parts: %q is not a length in seconds", p))
			}
			per = append(per, v)
		}
		if err := benchSplit(*runs, per); err != nil {
			fail(err)
		}
	}
	if run("submit") {
		if err := benchSubmit(ctx, *submits, *parallel, *dbURL); err != nil {
			fail(err)
		}
	}
	if run("executors") {
		if err := benchExecutors(ctx, *runs); err != nil {
			fail(err)
		}
	}
	if run("mockups") {
		if err := benchMockups(ctx, *runs, *mockupPSD); err != nil {
			fail(err)
		}
	}
	if run("mockup-layer") {
		if err := benchMockupLayer(ctx, *runs); err != nil {
			fail(err)
		}
	}
	if run("preview") {
		if err := benchPreview(ctx, *runs); err != nil {
			fail(err)
		}
	}
	if run("words") {
		if err := benchWords(ctx, *runs); err != nil {
			fail(err)
		}
	}
	if run("memory") {
		if err := benchMemory(ctx, *streams); err != nil {
			fail(err)
		}
	}
	if run("upload") {
		if err := benchUpload(ctx, *uploadMB*1e6, *runs); err != nil {
			fail(err)
		}
	}
	if *only == "claims" { // minutes of seeding: only when asked for
		var sizes []int
		for _, v := range strings.Split(*turns, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n <= 0 {
				fail(fmt.Errorf("-turn-jobs: %q is not a count of jobs", v))
			}
			sizes = append(sizes, n)
		}
		if err := benchClaims(ctx, *waiting, *claims, sizes, *claimCase, *dbURL); err != nil {
			fail(err)
		}
	}
	if run("jobs") {
		if err := benchJobList(ctx, *jobs, *queries, *dbURL); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kinobench:", err)
	os.Exit(1)
}

// startKino runs kino in this process on loopback.
func startKino(ctx context.Context, dir, dbURL string, workers int) (*app.App, error) {
	if dbURL == "" {
		dbURL = "sqlite://" + filepath.Join(dir, "kino.db")
	}
	return app.Start(ctx, app.Config{
		HTTPAddr:             "127.0.0.1:0",
		GRPCAddr:             "127.0.0.1:0",
		DataDir:              dir,
		DatabaseURL:          dbURL,
		Workers:              workers,
		AllowPrivateNetworks: true,
		Log:                  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}
