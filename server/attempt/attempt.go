// Package attempt owns one attempt at a job, for renders and media jobs
// alike: its working folder, its one deadline (downloads, probes, ffmpeg
// and uploads), fetching (through package source) and probing its sources
// a few at once with one classification of their failures, the room it
// needs on disk, the files it stores, and clean-up. A handler supplies
// only its ffmpeg step and the words its API uses for failures. Env is
// the workers' environment every attempt reads, built once from the
// configuration.
package attempt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/glyphs"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/memory"
	"github.com/kinohq/kino/server/rescue"
	"github.com/kinohq/kino/server/scratch"
	"github.com/kinohq/kino/server/source"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/transcribe"
)

// Env is a node's worker environment: what every attempt of a render or
// of a media job reads, derived once from the configuration and passed
// down as one value to the render worker, the previews and the media
// runner.
type Env struct {
	// TempDir holds each attempt's working folder.
	TempDir string
	// RenderTimeout caps one attempt of a render, or of a step of a split
	// one (--render-timeout); JobTimeout one of a media job
	// (--job-timeout). Each covers downloads, probes, ffmpeg and uploads.
	RenderTimeout, JobTimeout time.Duration
	// MaxOutputBytes bounds what ffmpeg writes in one attempt
	// (--max-output-size); 0 bounds nothing.
	MaxOutputBytes int64
	// MinFreeDisk is the free space, beside MaxOutputBytes, that TempDir's
	// disk must have for an attempt to start (--min-free-disk): room for
	// the downloads, and for everything else on that disk.
	MinFreeDisk int64
	// Font is the font file of text that names none.
	Font string
	// Fonts are the node's fallback fonts of text (the machine's Noto
	// fonts), each read once a node.
	Fonts *glyphs.Machine
	// FFmpeg are the node's limits of every ffmpeg and ffprobe process an
	// attempt starts (--max-image-pixels, --ffmpeg-max-memory).
	FFmpeg ffmpeg.Limits
	// Memory gives back the heap that drawing in kino's own process grew
	// (mockup templates); the node's own, so apps sharing a process keep
	// theirs.
	Memory *memory.Releaser
	// Transcriber hears the speech of caption.extract and of captions
	// layers that transcribe; nil is the offline transcriber.
	Transcriber transcribe.Transcriber
	// Store holds the assets, jobs and usage the workers read and write.
	Store   *store.Store
	Storage *storage.Storage
	// Fetch is the guarded client of downloads that are no source, such as
	// the files a client's own ffmpeg command names.
	Fetch *fetch.Client
	// Sources gets every source an attempt downloads.
	Sources *source.Resolver
	Log     *slog.Logger
}

// Words are how a kind of job names the failures of its attempts: renders
// and media jobs fail alike, in the codes and messages of their own API.
type Words struct {
	// Job names the job in messages: "render", "job".
	Job string
	// TimeoutCode and TimeoutMessage (formatted with the limit) are an
	// attempt that outlived its timeout.
	TimeoutCode, TimeoutMessage string
	// FolderCode is the code of a working folder that could not be made.
	FolderCode string
	// Invalid is a source that downloaded but is not what the job reads;
	// reason is empty when ffprobe could not read it at all.
	Invalid func(src Source, reason string) *jobs.Failure
}

// Attempt is one attempt at a job, begun by Begin and ended by End.
type Attempt struct {
	env     *Env
	words   Words
	timeout time.Duration
	parent  context.Context
	ctx     context.Context
	cancel  context.CancelFunc
	// Dir is the attempt's own working folder, removed by End.
	Dir string
	log *slog.Logger

	mu     sync.Mutex
	stored []string // every key this attempt stored
}

// Begin starts an attempt under parent, which ends when the job is
// cancelled, taken over or handed back, and at timeout. It fails, to be
// tried again later, when the disk has too little room for it: its
// largest output, --min-free-disk and scratchBytes, the most it writes
// in its working folder beside them (a render's frames of words that move). name
// prefixes the working folder; words name its failures.
func Begin(parent context.Context, env *Env, words Words, timeout time.Duration, scratchBytes int64, name string, log *slog.Logger) (*Attempt, *jobs.Failure) {
	if need := env.MaxOutputBytes + env.MinFreeDisk + max(scratchBytes, 0); need > 0 {
		// A full disk fails the attempt here, cleanly, on this node or
		// another, rather than part way through a download or an encode,
		// for this job and every other on the node.
		if err := scratch.Room(env.TempDir, need); err != nil {
			log.Warn("too little free disk to start a "+words.Job+"; handed back", "err", err)
			return nil, &jobs.Failure{Code: jobs.CodeNoDiskSpace, Retry: true,
				Message: "the node had too little free disk space to start the " + words.Job + " (it needs the largest output, --max-output-size, and --min-free-disk, and a render whose words move up to 512 MiB more for their frames); it was tried again until its attempts ran out"}
		}
	}
	dir, err := os.MkdirTemp(env.TempDir, name+"-")
	if err != nil {
		return nil, &jobs.Failure{Code: words.FolderCode, Message: "kino could not create a working folder", Retry: true}
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	return &Attempt{env: env, words: words, timeout: timeout, parent: parent, ctx: ctx, cancel: cancel, Dir: dir, log: log}, nil
}

// Context is the attempt's: it ends with the job's or at the deadline.
func (a *Attempt) Context() context.Context { return a.ctx }

// End removes the working folder and releases the deadline.
func (a *Attempt) End() {
	a.cancel()
	os.RemoveAll(a.Dir)
}

// Stopped is the one way to say that the attempt ended before it was
// done, and how: the job's own end (cancelled, taken over, handed back)
// is not a failure, and its failure is nil; the deadline is. ok is false
// while the attempt goes on.
func (a *Attempt) Stopped() (f *jobs.Failure, ok bool) {
	switch {
	case a.parent.Err() != nil:
		return nil, true
	case a.ctx.Err() != nil:
		return &jobs.Failure{Code: a.words.TimeoutCode, Message: fmt.Sprintf(a.words.TimeoutMessage, a.timeout)}, true
	}
	return nil, false
}

// Source is one file an attempt downloads.
type Source struct {
	// Label names it in failures: an input's or a composition's field.
	Label string
	// Ref is the source as the request named it (its URL is named in
	// messages), got by the environment's resolver.
	Ref source.Ref
	// Probe asks for it to be read by ffprobe: media, not a font or captions.
	Probe bool
}

// Fetched is a source downloaded into the working folder.
type Fetched struct {
	Path  string
	Bytes int64
	// Info is what ffprobe read, for a source to probe.
	Info *ffmpeg.Info
}

// parallelFetches is how many sources of one attempt download at once:
// enough to hide each server's latency, few enough to be polite to one.
const parallelFetches = 4

// Fetch downloads and probes sources, a few at once, each into its own
// file of the working folder named by name(i); the first failure stops
// the others and is the attempt's. When the attempt stops first, the
// failure is Stopped's.
func (a *Attempt) Fetch(sources []Source, name func(i int) string) ([]Fetched, *jobs.Failure) {
	out := make([]Fetched, len(sources))
	g, gctx := errgroup.WithContext(a.ctx)
	g.SetLimit(parallelFetches)
	for i, src := range sources {
		g.Go(rescue.Func(func() error {
			f, fail := a.fetch(gctx, filepath.Join(a.Dir, name(i)), src)
			if fail != nil {
				return fail
			}
			out[i] = f
			return gctx.Err()
		}))
	}
	err := g.Wait()
	// A download or probe that panicked fails the job as a panic of the
	// job's own goroutine does.
	rescue.Raise(err)
	if f, ok := a.Stopped(); ok {
		return nil, f
	}
	var f *jobs.Failure
	if errors.As(err, &f) {
		return nil, f
	}
	return out, nil
}

// fetch downloads one source and probes it; a nil failure when ctx ended
// (Fetch says why).
func (a *Attempt) fetch(ctx context.Context, path string, src Source) (Fetched, *jobs.Failure) {
	t := time.Now()
	n, err := a.env.Sources.Get(ctx, src.Ref, path)
	if ctx.Err() != nil {
		return Fetched{}, nil
	}
	if err != nil {
		return Fetched{}, &jobs.Failure{Code: jobs.CodeAssetFetchFailed, Message: fmt.Sprintf("%s: %v", src.Label, err), Retry: Transient(err)}
	}
	a.log.Info("asset fetched", "field", src.Label, "bytes", n, "ms", time.Since(t).Milliseconds())
	got := Fetched{Path: path, Bytes: n}
	if !src.Probe {
		return got, nil
	}
	info, err := ffmpeg.ProbeFast(ctx, a.env.FFmpeg, path)
	var ie *ffmpeg.InputError
	switch {
	case ctx.Err() != nil:
		return Fetched{}, nil
	case errors.As(err, &ie):
		return Fetched{}, a.words.Invalid(src, ie.Reason)
	case err != nil:
		return Fetched{}, a.words.Invalid(src, "")
	}
	got.Info = info
	return got, nil
}

// Transient says whether a download's failure may mend by itself, so that
// the job core tries the attempt again after its backoff: a 5xx or 429,
// a timeout, a connection refused or reset. A 4xx, a refused address or
// an oversized file are the caller's to mend, and final.
func Transient(err error) bool {
	var fe *fetch.Error
	return errors.As(err, &fe) && fe.Temporary()
}

// Upload stores the file at path under key, under the attempt's deadline.
// When the attempt stopped meanwhile, the failure is Stopped's. What was
// stored stays until Discard: a failed attempt may keep some of it, such
// as a log.
func (a *Attempt) Upload(key, path, contentType string) *jobs.Failure {
	if err := a.env.Storage.Upload(a.ctx, key, path, contentType); err != nil {
		if f, ok := a.Stopped(); ok {
			return f
		}
		a.log.Error("upload output", "key", key, "err", err)
		return &jobs.Failure{Code: jobs.CodeStorageFailed, Message: "the output could not be stored", Retry: true}
	}
	a.Stored(key)
	return nil
}

// Stored records a key the attempt stored by other means, for Discard.
func (a *Attempt) Stored(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stored = append(a.stored, key)
}

// Discard removes what the attempt stored: its outcome is not kept (the
// job's outcome's Discard).
func (a *Attempt) Discard(ctx context.Context) {
	a.mu.Lock()
	keys := a.stored
	a.stored = nil
	a.mu.Unlock()
	for _, key := range keys {
		if err := a.env.Storage.Delete(ctx, key); err != nil {
			a.log.Error("remove output of a job that is not completed", "key", key, "err", err)
		}
	}
}
