package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/psd/psdtest"
	"github.com/kinohq/kino/server/store/storetest"
)

// hostilePreview is the 97 KB preview: 100 rectangles of 7680×4320
// that move, each filled with a 16-stop radial gradient, in a 4K
// composition. kino paints each shape in its own process (a frame-sized
// picture each): about 70 s of CPU in all.
func hostilePreview() map[string]any {
	var layers []any
	for i := range 100 {
		var stops []any
		for s := range 16 {
			stops = append(stops, map[string]any{"offset": float64(s) / 15, "color": fmt.Sprintf("#%02x%02x%02x", 16*s, 255-16*s, (i*7+s*13)%256)})
		}
		layers = append(layers, map[string]any{"type": "rectangle", "width": 7680, "height": 4320, "start": 0, "duration": 10,
			"x":        []any{map[string]any{"time": 0, "value": -i}, map[string]any{"time": 10, "value": -3840 + i}},
			"y":        []any{map[string]any{"time": 0, "value": -i}, map[string]any{"time": 10, "value": -2160 + i}},
			"gradient": map[string]any{"type": "radial", "stops": stops}})
	}
	return map[string]any{"provider": "provider_a", "time": 5, "composition": map[string]any{
		"width": 3840, "height": 2160, "fps": 30, "background": "#000000", "layers": layers}}
}

// TestHostilePreviewStopsAndIsMetered: the hostile preview stops at its
// deadline, and when its client leaves, instead of painting for a minute
// more; either way the CPU it used is the organisation's, in GET /usage
// under render.preview, and is far less than the whole painting's.
func TestHostilePreviewStopsAndIsMetered(t *testing.T) {
	t.Parallel()
	body := hostilePreview()
	size, err := json.Marshal(body)
	require.NoError(t, err)
	t.Logf("the preview request is %d KB", len(size)>>10)

	t.Run("deadline", func(t *testing.T) {
		t.Parallel()
		k := start(t, storetest.SQLite(t), func(c *app.Config) {
			c.APIKeys = map[string]string{"key-a": "org-a"}
			c.CPUSecondCost = 0.001
			c.PreviewTimeout = 2 * time.Second
		})
		r := k.do(t, http.MethodPost, "/api/render/preview", body, bearer("key-a")...)
		require.Contains(t, []int{http.StatusRequestTimeout, http.StatusServiceUnavailable, http.StatusGatewayTimeout}, r.status, "%s", r.body)
		assert.Contains(t, string(r.body), "took longer than")
		// The answer comes once the painting has stopped: the row is
		// written after it.
		rows, _ := k.usageRows(t, "key-a")
		row := rows["render.preview"]
		require.NotNil(t, row, "%v", rows)
		cpu := row["cpuSeconds"].(float64)
		assert.Greater(t, cpu, 0.0)
		assert.Less(t, cpu, 20.0, "the painting stopped at its deadline, not after all of it")
		assert.Equal(t, 0.0, row["jobs"], "a preview is no job")
		t.Logf("stopped at its deadline after %.2f s of CPU", cpu)
	})

	t.Run("client leaves", func(t *testing.T) {
		t.Parallel()
		k := start(t, storetest.SQLite(t), func(c *app.Config) {
			c.APIKeys = map[string]string{"key-b": "org-b"}
		})
		enc, err := json.Marshal(body)
		require.NoError(t, err)
		// The client gives up after a few seconds, well into the
		// painting (about a minute of CPU in all).
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.base+"/api/render/preview", strings.NewReader(string(enc)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer key-b")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		require.ErrorIs(t, err, context.DeadlineExceeded, "the client left before an answer")
		// The preview's row is written when its work has stopped: within
		// a preview's limit (60 s) only if it stopped when the client left.
		var cpu float64
		require.Eventually(t, func() bool {
			rows, _ := k.usageRows(t, "key-b")
			if row := rows["render.preview"]; row != nil {
				cpu = row["cpuSeconds"].(float64)
				return true
			}
			return false
		}, 30*time.Second, 50*time.Millisecond)
		assert.Less(t, cpu, 20.0, "the painting stopped when the client left")
		t.Logf("stopped when the client left, after %.2f s of CPU", cpu)
	})
}

// TestHostileTemplatesRefusedAtUpload: each of the templates (a
// 7071² canvas of 16 nested groups around a smart object covering it;
// 16 nested isolated groups of canvas-sized layers in exotic modes;
// 1,999 layers of 440²) is refused at upload, 400 naming the budget it
// is over, the same way twice, from its structure: the CPU its refusal
// cost, in GET /usage under asset.upload, is a fraction of a second
// where drawing them took 17 to 60 s.
func TestHostileTemplatesRefusedAtUpload(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.APIKeys = map[string]string{"key-a": "org-a"}
	})
	for name, file := range psdtest.Hostile() {
		var first string
		for try := range 2 {
			r := k.upload(t, "key-a", [][2]string{{"type", "psd_template"}}, name+".psd", file)
			require.Equal(t, http.StatusBadRequest, r.status, "%s: %s", name, r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), name)
			msg := r.json(t)["error"].(map[string]any)["message"].(string)
			assert.True(t, strings.HasPrefix(msg, "file: "), msg)
			assert.Contains(t, msg, "over kino's budget", name)
			if try == 0 {
				first = msg
				t.Logf("%s (%d KB): %s", name, len(file)>>10, msg)
			} else {
				assert.Equal(t, first, msg, "%s: refused the same way twice", name)
			}
		}
	}
	rows, _ := k.usageRows(t, "key-a")
	if row := rows["asset.upload"]; row != nil {
		assert.Less(t, row["cpuSeconds"].(float64), 2.0, "eight refusals read the structure only")
		t.Logf("eight refusals: %.3f s of CPU", row["cpuSeconds"])
	}
	list := k.do(t, http.MethodGet, "/assets", nil, bearer("key-a")...)
	assert.Equal(t, 0.0, list.json(t)["meta"].(map[string]any)["total"], "nothing stored")
}

// TestMockupWorkIsMetered: the template's reading and drawing at upload
// and a mockup.render's drawing in kino's process are the organisation's
// CPU time: asset.upload and mockup.render in GET /usage, and the job's
// infraCost, are more than nothing.
func TestMockupWorkIsMetered(t *testing.T) {
	t.Parallel()
	const rate = 0.001
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.CPUSecondCost = rate
		// The previews below draw the largest template under -race on a
		// busy machine: a bound, not a speed (the default minute ran
		// out once with the whole suite beside it).
		c.PreviewTimeout = 5 * time.Minute
	})
	up := k.upload(t, "", [][2]string{{"type", "psd_template"}}, "largest.psd", psdtest.Largest())
	require.Equal(t, http.StatusCreated, up.status, "%s", up.body)
	tpl := up.json(t)["data"].(map[string]any)["id"].(string)
	base := serveBytes(t, map[string][]byte{"design.png": quadrantsPNG(t, 400, 400)})
	id := k.createJob(t, map[string]any{"type": "mockup.render",
		"inputs": map[string]any{"template": tpl, "design": base + "/design.png"},
		"params": map[string]any{"designs": []any{base + "/design.png", base + "/design.png"}, "format": "jpg"}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	infra := j["infraCost"].(float64)
	assert.Greater(t, infra, 0.0, "the drawing's CPU is in infraCost")
	r := k.do(t, http.MethodGet, "/usage", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	rows := map[string]map[string]any{}
	for _, row := range r.json(t)["data"].([]any) {
		rows[row.(map[string]any)["type"].(string)] = row.(map[string]any)
	}
	require.NotNil(t, rows["mockup.render"], "%v", rows)
	assert.Greater(t, rows["mockup.render"]["cpuSeconds"], 0.0)
	assert.InDelta(t, infra/rate, rows["mockup.render"]["cpuSeconds"], 1e-6)
	require.NotNil(t, rows["asset.upload"], "%v", rows)
	assert.Greater(t, rows["asset.upload"]["cpuSeconds"], 0.0)
	t.Logf("upload: %.3f s of CPU; mockup.render of 3 designs: %.3f s", rows["asset.upload"]["cpuSeconds"], rows["mockup.render"]["cpuSeconds"])

	// What was accepted at upload draws in a mockup layer, a picture's
	// or a video's, or is refused at submit naming the layer.
	media := serveMedia(t)
	for _, c := range []struct {
		src  string
		size bool
	}{{base + "/design.png", true}, {media.URL + "/clip.mp4", true}, {base + "/design.png", false}, {media.URL + "/clip.mp4", false}} {
		src := c.src
		layer := map[string]any{"type": "mockup", "template": tpl, "src": src, "start": 0, "duration": 1}
		if c.size {
			layer["width"], layer["height"] = 720, 720
		}
		r := k.do(t, http.MethodPost, "/api/render/preview", map[string]any{"provider": "provider_a", "time": 0.5, "composition": map[string]any{
			"width": 1280, "height": 720, "fps": 10, "layers": []any{layer}}})
		if r.status == http.StatusBadRequest {
			assert.Contains(t, r.json(t)["error"].(map[string]any)["message"], "composition.layers[0].", src)
			t.Logf("%s: %s", src, r.body)
			continue
		}
		assert.Equal(t, http.StatusOK, r.status, "%s: %.300s", src, r.body)
	}
}
