package composite

import (
	"context"
	"image"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/rescue"
)

// TestABandsPanicReachesTheCaller: a panic in one of the compositor's
// worker goroutines is raised in the goroutine that called it, where a
// job's or a request's recovery catches it, instead of stopping the process.
func TestABandsPanicReachesTheCaller(t *testing.T) {
	if runtime.GOMAXPROCS(0) == 1 {
		t.Skip("one core: rows draws in the caller's goroutine")
	}
	var got any
	func() {
		defer func() { got = recover() }()
		rows(context.Background(), image.Rect(0, 0, 512, 512), func(y0, _ int) {
			if y0 >= 256 {
				panic("injected") //nolint:forbidigo // deliberate: the recovery under test
			}
		})
	}()
	p, ok := got.(*rescue.Panic)
	require.True(t, ok, "%v", got)
	assert.Equal(t, "injected", p.Value)
}
