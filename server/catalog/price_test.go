package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrices(t *testing.T) {
	t.Parallel()
	get := func(name string) *Type {
		typ, ok := Lookup(name)
		require.True(t, ok, name)
		return typ
	}
	// Every type costs something, a picture too.
	for _, typ := range All() {
		assert.Positive(t, typ.MinPrice, typ.Name)
		assert.Positive(t, typ.Estimate(nil), typ.Name)
		assert.Positive(t, typ.Price(0, 0), typ.Name)
	}
	assert.InDelta(t, 0.009, get("video.transcode").Price(3, 0), 1e-12)
	assert.InDelta(t, 0.0005, get("audio.extract").Price(0.5, 0), 1e-12, "the least price")
	// A 3000x3000 mockup: 9 megapixels at 0.0004.
	assert.InDelta(t, 0.0036, get("mockup.render").Price(0, 9), 1e-12)
	assert.InDelta(t, 0.002, get("mockup.render").Price(0, 1), 1e-12, "the least price")
	assert.InDelta(t, 0.02, get("video.trim").Estimate(map[string]any{"start": 1.0, "duration": 20.0}), 1e-12)
	assert.InDelta(t, 0.0016, get("image.resize").Estimate(map[string]any{"width": 4000.0, "height": 4000.0}), 1e-12)
	assert.Equal(t, 0.0005, get("image.resize").Estimate(map[string]any{"width": 4000.0}), "one side: the size is not known")
	assert.Equal(t, map[string]any{"image": map[string]any{"pricePerMegapixel": 0.0004, "minPrice": 0.002}}, get("mockup.render").MediaOverrides)
	assert.Equal(t, "price = 0.003 USD per second of input media; at least 0.0005 USD a job", get("video.transcode").CostModel())
	assert.InDelta(t, 0.004, Render.Price(2, 0), 1e-12)
	assert.InDelta(t, 0.001, Render.Price(0, 0.9216), 1e-12, "a 1280x720 still: its least price")
}
