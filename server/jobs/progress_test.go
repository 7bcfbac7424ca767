package jobs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kinohq/kino/server/jobs"
)

func TestShownProgress(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]float64{
		8.248890000000001: 8.25, 17.066670000000002: 17.07, 0.004: 0, 99.999: 100, 33.3333: 33.33, 0: 0, 100: 100, 12: 12,
	} {
		assert.Equal(t, want, jobs.ShownProgress(in), "%v", in)
	}
}
