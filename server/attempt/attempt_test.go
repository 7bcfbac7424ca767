package attempt_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/source"
)

var words = attempt.Words{
	Job: "job", TimeoutCode: "TIMEOUT", TimeoutMessage: "took longer than %s", FolderCode: "NO_FOLDER",
	Invalid: func(src attempt.Source, reason string) *jobs.Failure {
		return &jobs.Failure{Code: "INVALID", Message: src.Label + ": " + reason}
	},
}

// env downloads with a client that may reach 127.0.0.1.
func env(t *testing.T) *attempt.Env {
	return &attempt.Env{TempDir: t.TempDir(), Sources: source.New(source.Config{Fetch: fetch.New(fetch.Options{AllowPrivate: true})})}
}

func begin(t *testing.T, parent context.Context, timeout time.Duration) *attempt.Attempt {
	t.Helper()
	a, f := attempt.Begin(parent, env(t), words, timeout, 0, "test", slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.Nil(t, f)
	t.Cleanup(a.End)
	return a
}

func src(url string, probe bool) attempt.Source {
	return attempt.Source{Label: "inputs.source", Ref: source.Ref{Org: "org", URL: url}, Probe: probe}
}

// TestFetchSaysWhatMayMend: a 5xx or a connection refused fails the
// attempt to be tried again; a 4xx and a file that is not media are the
// caller's, and final.
func TestFetchSaysWhatMayMend(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			http.Error(w, "try later", http.StatusServiceUnavailable)
		case "/text":
			_, _ = io.WriteString(w, "not a picture at all")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	for _, c := range []struct {
		url        string
		probe      bool
		code       string
		retry      bool
		fetchedAll bool
	}{
		{url: srv.URL + "/busy", code: jobs.CodeAssetFetchFailed, retry: true},
		{url: closed.URL + "/refused", code: jobs.CodeAssetFetchFailed, retry: true},
		{url: srv.URL + "/gone", code: jobs.CodeAssetFetchFailed},
		{url: srv.URL + "/text", probe: true, code: "INVALID"},
		{url: srv.URL + "/text", fetchedAll: true},
	} {
		a := begin(t, context.Background(), time.Minute)
		got, f := a.Fetch([]attempt.Source{src(c.url, c.probe)}, func(int) string { return "in" })
		if c.fetchedAll {
			require.Nil(t, f, c.url)
			require.Len(t, got, 1)
			b, err := os.ReadFile(got[0].Path)
			require.NoError(t, err)
			assert.Equal(t, "not a picture at all", string(b))
			assert.Nil(t, got[0].Info, "not probed")
			continue
		}
		require.NotNil(t, f, c.url)
		assert.Equal(t, c.code, f.Code, c.url)
		assert.Equal(t, c.retry, f.Retry, c.url)
		assert.Contains(t, f.Message, "inputs.source", "failures name the field")
		_, stopped := a.Stopped()
		assert.False(t, stopped)
	}
}

// TestOneDeadlineCoversDownloads: a source that never answers ends the
// attempt at its deadline, in the job's words; the job's own end (a
// cancel) is no failure.
func TestOneDeadlineCoversDownloads(t *testing.T) {
	t.Parallel()
	asked := make(chan string, 3)
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- r.URL.Path
		<-r.Context().Done()
	}))
	defer stuck.Close()

	a := begin(t, context.Background(), 200*time.Millisecond)
	got, f := a.Fetch([]attempt.Source{src(stuck.URL+"/a", true), src(stuck.URL+"/b", true)}, func(i int) string { return string(rune('a' + i)) })
	assert.Nil(t, got)
	require.NotNil(t, f)
	assert.Equal(t, "TIMEOUT", f.Code)
	assert.Equal(t, "took longer than 200ms", f.Message)

	parent, cancel := context.WithCancel(context.Background())
	a = begin(t, parent, time.Minute)
	go func() {
		for path := range asked {
			if path == "/c" { // this download, not one above
				cancel()
				return
			}
		}
	}()
	got, f = a.Fetch([]attempt.Source{src(stuck.URL+"/c", true)}, func(int) string { return "c" })
	assert.Nil(t, got)
	assert.Nil(t, f, "a cancel is the job's end, not a failure")
	f, stopped := a.Stopped()
	assert.True(t, stopped)
	assert.Nil(t, f)
}

// TestBeginNeedsRoom: an attempt that may not fit on the disk fails before
// it starts, to be tried again; End removes the working folder.
func TestBeginNeedsRoom(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, f := attempt.Begin(context.Background(), &attempt.Env{TempDir: t.TempDir(), MinFreeDisk: 1 << 62}, words, time.Minute, 0, "test", log)
	require.NotNil(t, f)
	assert.Equal(t, jobs.CodeNoDiskSpace, f.Code)
	assert.True(t, f.Retry)
	assert.Contains(t, f.Message, "to start the job")

	// The bytes it writes beside its output (a render's frames of words
	// that move) count too.
	_, f = attempt.Begin(context.Background(), &attempt.Env{TempDir: t.TempDir(), MinFreeDisk: 1}, words, time.Minute, 1<<62, "test", log)
	require.NotNil(t, f)
	assert.Equal(t, jobs.CodeNoDiskSpace, f.Code)

	a, f := attempt.Begin(context.Background(), &attempt.Env{TempDir: t.TempDir(), MinFreeDisk: 1}, words, time.Minute, 0, "test", log)
	require.Nil(t, f)
	assert.DirExists(t, a.Dir)
	a.End()
	assert.NoDirExists(t, a.Dir)
}
