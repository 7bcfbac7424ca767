package mockup

import (
	"context"
	"image"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/rescue"
)

// TestAnEncoderBandsPanicReachesTheCaller: a picture the parallel PNG
// encoder's bands cannot read (its pixels cut short) panics in the
// caller's goroutine, not in a band's, which would stop the process.
func TestAnEncoderBandsPanicReachesTheCaller(t *testing.T) {
	img := &image.NRGBA{Rect: image.Rect(0, 0, 512, 512), Stride: 512 * 4, Pix: make([]byte, 512*4*8)}
	var got any
	func() {
		defer func() { got = recover() }()
		_ = encodePNGParallel(context.Background(), io.Discard, img, true)
	}()
	p, ok := got.(*rescue.Panic)
	require.True(t, ok, "%v", got)
	assert.Contains(t, p.Error(), "out of range")
}
