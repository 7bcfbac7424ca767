package queue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/renderjob"
	"github.com/kinohq/kino/server/queue"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

type bundle struct {
	st       *store.Store
	q        *queue.Queue
	terminal []string
	mu       sync.Mutex
}

func setup(t *testing.T, db storetest.DB, cfg queue.Config) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db.URL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	b := &bundle{st: st}
	if cfg.Owner == "" {
		cfg.Owner = "worker-a"
	}
	b.q = queue.New(st, cfg, queue.Hooks{
		OnTerminal: func(_ context.Context, _ *ent.Tx, job *ent.RenderJob) error {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.terminal = append(b.terminal, job.ID+":"+string(job.Status))
			return nil
		},
	})
	return b
}

func (b *bundle) insert(t *testing.T, id string, created time.Time) {
	t.Helper()
	_, err := b.st.RenderJob.Create().SetID(id).SetProvider("provider_a").SetComposition([]byte("{}")).
		SetFormat("mp4").SetWidth(16).SetHeight(16).SetDuration(1).SetRequestHash("h").
		SetCreatedAt(created).SetUpdatedAt(created).Save(context.Background())
	require.NoError(t, err)
}

func TestClaimOrderAndLifecycle(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		b := setup(t, db, queue.Config{})
		base := time.Now().UTC().Add(-time.Minute)
		b.insert(t, "second", base.Add(time.Second))
		b.insert(t, "first", base)

		job, err := b.q.Claim(ctx)
		require.NoError(t, err)
		require.NotNil(t, job)
		assert.Equal(t, "first", job.ID, "the oldest queued job is claimed first")
		assert.Equal(t, renderjob.StatusProcessing, job.Status)
		assert.Equal(t, 1, job.Attempts)
		assert.Equal(t, "worker-a", job.LeaseOwner)

		require.NoError(t, b.q.SetProgress(ctx, "first", 42))
		ok, err := b.q.Renew(ctx, "first")
		require.NoError(t, err)
		assert.True(t, ok)

		ok, err = b.q.Complete(ctx, "first", "renders/first.mp4")
		require.NoError(t, err)
		assert.True(t, ok)
		got, err := b.st.RenderJob.Get(ctx, "first")
		require.NoError(t, err)
		assert.Equal(t, renderjob.StatusCompleted, got.Status)
		assert.Equal(t, 100.0, got.Progress)
		assert.Equal(t, "renders/first.mp4", got.OutputKey)
		assert.Equal(t, []string{"first:completed"}, b.terminal)

		job, err = b.q.Claim(ctx)
		require.NoError(t, err)
		require.NotNil(t, job)
		assert.Equal(t, "second", job.ID)
		job, err = b.q.Claim(ctx)
		require.NoError(t, err)
		assert.Nil(t, job, "nothing left to claim")
	})
}

func TestCancel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		b := setup(t, db, queue.Config{})
		now := time.Now().UTC()
		b.insert(t, "queued", now)

		job, err := b.q.Cancel(ctx, "queued")
		require.NoError(t, err)
		assert.Equal(t, renderjob.StatusCancelled, job.Status)

		_, err = b.q.Cancel(ctx, "queued")
		var nc *queue.NotCancellableError
		require.ErrorAs(t, err, &nc)
		assert.Equal(t, renderjob.StatusCancelled, nc.Status)

		_, err = b.q.Cancel(ctx, "missing")
		require.ErrorIs(t, err, queue.ErrNotFound)

		b.insert(t, "running", now.Add(time.Second))
		claimed, err := b.q.Claim(ctx)
		require.NoError(t, err)
		require.Equal(t, "running", claimed.ID)
		_, err = b.q.Cancel(ctx, "running")
		require.NoError(t, err)

		// The render finishing after the cancel must not win.
		ok, err := b.q.Complete(ctx, "running", "renders/running.mp4")
		require.NoError(t, err)
		assert.False(t, ok)
		ok, err = b.q.Fail(ctx, "running", "RENDER_FAILED", "x")
		require.NoError(t, err)
		assert.False(t, ok)
		ok, err = b.q.Renew(ctx, "running")
		require.NoError(t, err)
		assert.False(t, ok, "a cancelled job's lease cannot be renewed")
		got, err := b.st.RenderJob.Get(ctx, "running")
		require.NoError(t, err)
		assert.Equal(t, renderjob.StatusCancelled, got.Status)
		assert.Empty(t, got.OutputKey)
		assert.ElementsMatch(t, []string{"queued:cancelled", "running:cancelled"}, b.terminal)
	})
}

func TestRecoverLostWorker(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		b := setup(t, db, queue.Config{Lease: 50 * time.Millisecond, MaxAttempts: 2})
		b.insert(t, "job", time.Now().UTC())

		for attempt := 1; attempt <= 2; attempt++ {
			job, err := b.q.Claim(ctx)
			require.NoError(t, err)
			require.NotNil(t, job, "attempt %d", attempt)
			require.Eventually(t, func() bool {
				n, err := b.q.Recover(ctx)
				require.NoError(t, err)
				return n == 1
			}, 5*time.Second, 20*time.Millisecond)
		}
		got, err := b.st.RenderJob.Get(ctx, "job")
		require.NoError(t, err)
		assert.Equal(t, renderjob.StatusFailed, got.Status)
		assert.Equal(t, queue.WorkerLost, got.ErrorCode)
		assert.Equal(t, []string{"job:failed"}, b.terminal)
	})
}

func TestReleaseDoesNotCountAttempt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		b := setup(t, db, queue.Config{})
		b.insert(t, "job", time.Now().UTC())
		_, err := b.q.Claim(ctx)
		require.NoError(t, err)
		ok, err := b.q.Release(ctx, "job")
		require.NoError(t, err)
		require.True(t, ok)
		got, err := b.st.RenderJob.Get(ctx, "job")
		require.NoError(t, err)
		assert.Equal(t, renderjob.StatusQueued, got.Status)
		assert.Equal(t, 0, got.Attempts)
		assert.Empty(t, got.LeaseOwner)
	})
}

func TestConcurrentClaimsTakeEachJobOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		b := setup(t, db, queue.Config{})
		const jobs = 40
		now := time.Now().UTC()
		for i := range jobs {
			b.insert(t, fmt.Sprintf("job-%02d", i), now.Add(time.Duration(i)*time.Millisecond))
		}
		// Four workers in different "processes", each with its own queue.
		var (
			mu   sync.Mutex
			seen = map[string]int{}
			wg   sync.WaitGroup
		)
		for w := range 4 {
			q := queue.New(b.st, queue.Config{Owner: fmt.Sprintf("w%d", w)}, queue.Hooks{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					job, err := q.Claim(ctx)
					if !assert.NoError(t, err) || job == nil {
						return
					}
					mu.Lock()
					seen[job.ID]++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		assert.Len(t, seen, jobs)
		for id, n := range seen {
			assert.Equal(t, 1, n, "job %s claimed %d times", id, n)
		}
	})
}
