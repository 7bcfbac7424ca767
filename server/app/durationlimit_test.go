package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestDurationLimitIsExact: a duration is held to the 600 s limit as
// written, not after rounding: 600 passes, 600.0000001 does not.
func TestDurationLimitIsExact(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 0 })
	body := func(composition, layer float64) map[string]any {
		return map[string]any{"provider": "provider_a", "composition": map[string]any{
			"width": 160, "height": 90, "fps": 10, "duration": composition,
			"layers": []any{map[string]any{"type": "color", "color": "#ff0000", "start": 0, "duration": layer}},
		}}
	}
	r := k.do(t, http.MethodPost, "/api/render", body(600, 600))
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	for _, tc := range []struct {
		composition, layer float64
		field              string
	}{
		{600.0000001, 600, "composition.duration"},
		{600, 600.0000001, "composition.layers[0].duration"},
	} {
		r := k.do(t, http.MethodPost, "/api/render", body(tc.composition, tc.layer))
		require.Equal(t, http.StatusBadRequest, r.status, "%v: %s", tc, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		assert.Contains(t, string(r.body), tc.field)
	}
}
