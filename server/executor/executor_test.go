package executor

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/catalog"
)

// TestEveryTypeHasAWorker builds the workers (New checks each against its
// catalogue entry's params struct) and decodes a job of a type the way
// the runner does: defaults filled in once, refused params named.
func TestEveryTypeHasAWorker(t *testing.T) {
	t.Parallel()
	e := New(Config{MaxPixels: 1_000_000})
	assert.Equal(t, catalog.Names(), e.Types())

	d, err := e.Decode("video.thumbnail", []byte(`{"mode":"sprite","width":320}`))
	require.NoError(t, err)
	assert.Equal(t, catalog.VideoThumbnail{Mode: "sprite", Width: 320, Columns: 5, Rows: 5}, d.Params)

	_, err = e.Decode("video.trim", []byte(`{"start":1}`))
	var pe *catalog.ParamsError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "params.duration: is required", pe.Error())

	_, err = e.Decode("video.trim", []byte(`"start=1"`))
	require.Error(t, err)
	assert.False(t, errors.As(err, &pe), "a row that is not an object is not a refusal of its params: %v", err)

	_, err = e.Decode("video.explode", nil)
	assert.Error(t, err)
}

// A worker is handed the params its job was decoded with.
func TestDecodedWorksWithItsParams(t *testing.T) {
	t.Parallel()
	e := &Executors{env: &env{}, types: map[string]func([]byte) (*Decoded, error){}}
	var got Task[catalog.AudioExtract]
	add(e, "audio.extract", workerFunc[catalog.AudioExtract](func(_ context.Context, t Task[catalog.AudioExtract]) (Result, error) {
		got = t
		return Result{}, nil
	}))
	d, err := e.Decode("audio.extract", nil)
	require.NoError(t, err)
	_, err = d.Work(context.Background(), Attempt{Dir: "/job"})
	require.NoError(t, err)
	assert.Equal(t, "mp3", got.Params.Format)
	assert.Equal(t, "/job", got.Dir)
	assert.Empty(t, got.Given)
	assert.Panics(t, func() { add(e, "video.trim", workerFunc[catalog.AudioExtract](nil)) }, "a worker of another type's params")
}

type workerFunc[T any] func(context.Context, Task[T]) (Result, error)

func (f workerFunc[T]) Work(ctx context.Context, t Task[T]) (Result, error) { return f(ctx, t) }
