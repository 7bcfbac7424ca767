package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/store/storetest"
)

// fetchOutput downloads an output URL, checks the type it is served with,
// and probes it counting its frames.
func fetchOutput(t *testing.T, url, contentType string) *ffmpeg.Info {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	assert.Equal(t, contentType, resp.Header.Get("Content-Type"), url)
	assert.Empty(t, resp.Header.Get("Content-Disposition"), "%s is shown in place", url)
	path := filepath.Join(t.TempDir(), "out")
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	info, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, path)
	require.NoError(t, err)
	return info
}

// webhookPayload waits for the first delivery and decodes it.
func webhookPayload(t *testing.T, hooks *hookReceiver) map[string]any {
	t.Helper()
	var payload map[string]any
	require.NoError(t, json.Unmarshal(hooks.waitCalls(t, 1)[0].body, &payload))
	return payload
}

// TestRenderGIFAndMP3 renders a unified composition as a GIF and a
// provider_a one as an MP3 through the API: each is stored with its own
// extension and type, and the record and the webhook describe it.
func TestRenderGIFAndMP3(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), nil)

	t.Run("gif", func(t *testing.T) {
		t.Parallel()
		hooks := receiveHooks(t, 0)
		id := k.submit(t, map[string]any{
			"provider":  "unified",
			"assetUrls": map[string]any{"logo": media.URL + "/image.png", "tone": media.URL + "/tone.wav"},
			"webhook":   hooks.URL,
			"composition": map[string]any{
				"output": map[string]any{"width": 96, "height": 64, "fps": 12, "format": "gif", "background": "#203040"},
				"tracks": []any{
					map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": "kino", "fontSize": 20}, "start": 0, "length": 1.5}}},
					map[string]any{"clips": []any{
						map[string]any{"asset": map[string]any{"type": "image", "src": "logo"}, "start": 0, "length": 1.5, "fadeIn": 0.5},
						map[string]any{"asset": map[string]any{"type": "audio", "src": "tone"}, "start": 0, "length": 1.5},
					}},
				},
			},
		})
		rec := k.waitStatus(t, id, "completed", 60*time.Second)
		url := rec["outputUrl"].(string)
		assert.Equal(t, k.base+"/files/renders/"+id+".gif", url)
		assert.NotContains(t, rec, "posterUrl")
		assert.NotContains(t, rec, "thumbnailUrl")

		info := fetchOutput(t, url, "image/gif")
		v := info.Video()
		require.NotNil(t, v)
		assert.Nil(t, info.Audio(), "a GIF is silent")
		assert.Equal(t, "gif", v.CodecName)
		assert.Equal(t, 96, v.Width)
		assert.Equal(t, 64, v.Height)
		assert.Equal(t, 18, v.NbFrames, "1.5 s at 12 fps")

		payload := webhookPayload(t, hooks)
		assert.Equal(t, map[string]any{"jobId": id, "status": "completed", "outputUrl": url, "duration": 1.5, "format": "gif",
			"resolution": map[string]any{"width": 96.0, "height": 64.0}}, payload)
	})

	t.Run("mp3", func(t *testing.T) {
		t.Parallel()
		hooks := receiveHooks(t, 0)
		body := smallComposition(media)
		body["composition"].(map[string]any)["format"] = "mp3"
		body["webhook"] = hooks.URL
		id := k.submit(t, body)
		rec := k.waitStatus(t, id, "completed", 60*time.Second)
		url := rec["outputUrl"].(string)
		assert.True(t, strings.HasSuffix(url, "/files/renders/"+id+".mp3"), url)

		info := fetchOutput(t, url, "audio/mpeg")
		assert.Nil(t, info.Video(), "no picture")
		require.NotNil(t, info.Audio())
		assert.Equal(t, "mp3", info.Audio().CodecName)
		assert.InDelta(t, 2.0, info.Duration, 0.05)

		payload := webhookPayload(t, hooks)
		assert.Equal(t, "mp3", payload["format"])
		assert.Equal(t, 2.0, payload["duration"])
		assert.Equal(t, map[string]any{"width": 0.0, "height": 0.0}, payload["resolution"], "a sound has no picture")
	})
}

// TestRenderPosterAndThumbnail asks for a poster and a thumbnail beside a
// video and reads their URLs from the status record (HTTP and gRPC) and
// from the webhook; each is a JPEG of one frame, stored under the
// render's prefix.
func TestRenderPosterAndThumbnail(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		media := serveMedia(t)
		hooks := receiveHooks(t, 0)
		k := start(t, db, nil)

		body := smallComposition(media)
		comp := body["composition"].(map[string]any)
		comp["poster"] = map[string]any{"capture": 1}
		comp["thumbnail"] = map[string]any{"capture": 0.5, "scale": 0.5}
		body["webhook"] = hooks.URL
		id := k.submit(t, body)
		queued := k.get(t, id)
		assert.NotContains(t, queued, "posterUrl", "only once completed")

		rec := k.waitStatus(t, id, "completed", 60*time.Second)
		poster, thumbnail := rec["posterUrl"].(string), rec["thumbnailUrl"].(string)
		assert.Equal(t, k.base+"/files/renders/"+id+".mp4", rec["outputUrl"])
		assert.Equal(t, k.base+"/files/renders/"+id+".poster.jpg", poster)
		assert.Equal(t, k.base+"/files/renders/"+id+".thumbnail.jpg", thumbnail)

		for _, pic := range []struct {
			url  string
			w, h int
		}{{poster, 160, 90}, {thumbnail, 80, 46}} {
			info := fetchOutput(t, pic.url, "image/jpeg")
			v := info.Video()
			require.NotNil(t, v, pic.url)
			assert.Equal(t, "mjpeg", v.CodecName, pic.url)
			assert.Equal(t, 1, v.NbFrames, pic.url)
			assert.Equal(t, pic.w, v.Width, pic.url)
			assert.Equal(t, pic.h, v.Height, pic.url)
		}
		video := fetchOutput(t, rec["outputUrl"].(string), "video/mp4")
		require.NotNil(t, video.Video())
		assert.Equal(t, 20, video.Video().NbFrames, "the video is whole")

		got, err := k.rpc.GetRender(context.Background(), &renderv1.GetRenderRequest{JobId: id})
		require.NoError(t, err)
		assert.Equal(t, poster, got.GetJob().GetPosterUrl())
		assert.Equal(t, thumbnail, got.GetJob().GetThumbnailUrl())

		payload := webhookPayload(t, hooks)
		assert.Equal(t, poster, payload["posterUrl"])
		assert.Equal(t, thumbnail, payload["thumbnailUrl"])
		assert.Equal(t, rec["outputUrl"], payload["outputUrl"])
		assert.Equal(t, "mp4", payload["format"])
	})
}
