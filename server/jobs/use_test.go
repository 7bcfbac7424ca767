package jobs_test

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/store/storetest"
)

// spender runs a process that uses some CPU in each attempt and pays a
// provider 0.25 USD; its first attempt fails, to be retried.
type spender struct {
	mu   sync.Mutex
	used []time.Duration
}

func (s *spender) Types() []string { return []string{"t"} }

func (s *spender) Run(ctx context.Context, j *jobs.Job, _ func(float64)) jobs.Outcome {
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		return jobs.Outcome{Failure: &jobs.Failure{Code: jobs.CodeInternal, Message: err.Error()}}
	}
	meter.Process(ctx, cmd.ProcessState)
	meter.Provider(ctx, 0.25)
	s.mu.Lock()
	s.used = append(s.used, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	s.mu.Unlock()
	if j.Attempt == 1 {
		return jobs.Outcome{Failure: &jobs.Failure{Code: jobs.CodeExecFailed, Message: "once", Retry: true}}
	}
	return jobs.Outcome{Result: jobs.Result{Metadata: map[string]any{"done": true}}}
}

// What each attempt's processes used and providers charged is added up
// over the job's attempts, the failed one included.
func TestPoolMetersEveryAttempt(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{MaxAttempts: 2, RetryDelay: time.Millisecond})
		ctx := context.Background()
		jobstest.Insert(t, c, jobstest.Job("j"))
		h := &spender{}
		p := jobs.NewPool(c, jobs.PoolConfig{Owner: "w", Slots: 1, Log: quiet(), PollEvery: 10 * time.Millisecond,
			Handlers: map[string]jobs.Handler{"test": h}})
		p.Start(ctx)
		defer p.Stop(ctx)
		require.Eventually(t, func() bool { return get(t, c, "j").State == jobs.Completed }, 10*time.Second, 10*time.Millisecond)
		j := get(t, c, "j")
		h.mu.Lock()
		defer h.mu.Unlock()
		require.Len(t, h.used, 2)
		assert.Positive(t, h.used[0]+h.used[1])
		assert.InDelta(t, (h.used[0] + h.used[1]).Seconds(), j.Metadata[jobs.MetaCPUSeconds], 1e-9)
		assert.InDelta(t, 0.5, j.Metadata[jobs.MetaProviderCost], 1e-12)
		assert.Equal(t, true, j.Metadata["done"])
	})
}
