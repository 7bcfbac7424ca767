package app_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestCaptionsAssets: SRT and WebVTT upload as captions assets, known by
// their content and parsed on the way in, so a bad file is a 400 naming
// its line and nothing is stored; a captions layer then takes such an
// asset's id as its src (directly or through assetUrls) and shows its
// cues at their times, and an asset of another type is refused at the
// field that names it.
func TestCaptionsAssets(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	png, err := os.ReadFile(filepath.Join(testMedia(t), "image.png"))
	require.NoError(t, err)
	up := func(typ, name, content string) response {
		return k.upload(t, "", [][2]string{{"type", typ}}, name, []byte(content))
	}
	record := func(r response) map[string]any {
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		return r.json(t)["data"].(map[string]any)
	}
	message := func(r response) string {
		e, _ := r.json(t)["error"].(map[string]any)
		m, _ := e["message"].(string)
		return m
	}
	metadata := func(a map[string]any) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(a["metadata"].(string)), &m))
		return m
	}

	// The names say nothing: the content decides.
	const vttText = "WEBVTT\n\nNOTE the second half\n\n00:00.500 --> 00:01.000\nLOW\n"
	srt := record(up("captions", "top.txt", "\xef\xbb\xbf1\r\n00:00:00,000 --> 00:00:00,500\r\n<b>HIGH</b>\r\n\r\n2\r\n00:00:00,500 --> 00:00:00,600\r\n{\\an8}\r\n"))
	vtt := record(up("captions", "bottom.srt", vttText))
	assert.Equal(t, "captions", srt["type"])
	assert.Equal(t, "ready", srt["status"])
	assert.NotContains(t, srt, "thumbnailKey", "captions have no thumbnail")
	assert.Equal(t, map[string]any{"format": "srt", "contentType": "application/x-subrip; charset=utf-8", "cues": 1.0}, metadata(srt),
		"the cue left empty once its tags are stripped is not counted")
	assert.Equal(t, map[string]any{"format": "vtt", "contentType": "text/vtt; charset=utf-8", "cues": 1.0}, metadata(vtt))
	image := record(up("image", "logo.png", string(png)))

	r := k.do(t, http.MethodGet, "/assets/"+vtt["id"].(string)+"/content", nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, vttText, string(r.body))
	assert.Equal(t, "text/vtt; charset=utf-8", r.header.Get("Content-Type"))
	r = k.do(t, http.MethodGet, "/assets?type=captions", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.EqualValues(t, 2, r.json(t)["meta"].(map[string]any)["total"])

	before := storedFiles(t, k)
	big := "WEBVTT\n\n00:00.000 --> 00:01.000\n" + strings.Repeat("x", 1<<20) + "\n"
	for name, c := range map[string]struct {
		typ, content, want string
	}{
		"a bad timing":         {"captions", "1\n00:00:00,000 --> 00:00:01,000\nfine\n\n2\n00:00:01,000 --> later\nbroken\n", `file: line 6: "later" is not a time`},
		"a cue ending early":   {"captions", "WEBVTT\n\n00:02.000 --> 00:01.000\nback\n", "file: line 3: the cue ends at or before it starts"},
		"no cue at all":        {"captions", "WEBVTT\n\nNOTE nothing here\n", "file: has no cue with text to show"},
		"not UTF-8":            {"captions", "1\n00:00:00,000 --> 00:00:01,000\n\xff\xfe\n", "file: is not UTF-8 text"},
		"plain text":           {"captions", "just some words\n", "file: is not a PSD, PNG, JPEG, WebP, TTF, OTF, WOFF2, SRT or WebVTT file"},
		"SRT declared image":   {"image", "1\n00:00:00,000 --> 00:00:01,000\nhi\n", "type: the file is SRT, which makes a captions asset, not a image"},
		"a PNG as captions":    {"captions", string(png), "type: the file is PNG, which makes a image asset, not a captions"},
		"over the 1 MiB limit": {"captions", big, "file: is larger than the captions limit of 1048576 bytes"},
	} {
		r := up(c.typ, "subs.srt", c.content)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", name, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), name)
		assert.Contains(t, message(r), c.want, name)
	}
	assert.Equal(t, before, storedFiles(t, k), "a refused upload stores nothing")

	// One captions layer at the top from the SRT asset's id, one at the
	// bottom from the WebVTT asset through an assetUrls key.
	const w, h = 320, 180
	captions := func(src, align string) map[string]any {
		return map[string]any{"type": "captions", "src": src, "verticalAlign": align, "fontSize": 40, "color": "white"}
	}
	render := func(layers ...any) map[string]any {
		return map[string]any{"provider": "provider_a", "assetUrls": map[string]any{"low": vtt["id"]},
			"composition": map[string]any{"width": w, "height": h, "fps": 10, "duration": 1, "background": "black", "layers": layers}}
	}
	id := k.submit(t, render(captions(srt["id"].(string), "top"), captions("low", "bottom")))
	job := k.waitStatus(t, id, "completed", time.Minute)
	out := filepath.Join(t.TempDir(), "out.mp4")
	fetchBody(t, job["outputUrl"].(string), out)
	ink := func(frame []byte, y0, y1 int) int {
		n := 0
		for _, p := range frame[y0*w : y1*w] {
			if p > 128 {
				n++
			}
		}
		return n
	}
	early, late := grayFrame(t, out, "0.2", w, h), grayFrame(t, out, "0.8", w, h)
	t.Logf("ink top/bottom: at 0.2 s %d/%d, at 0.8 s %d/%d", ink(early, 0, h/2), ink(early, h/2, h), ink(late, 0, h/2), ink(late, h/2, h))
	assert.Greater(t, ink(early, 0, h/2), 100, "the SRT cue at the top until 0.5 s")
	assert.Zero(t, ink(early, h/2, h), "nothing at the bottom before 0.5 s")
	assert.Zero(t, ink(late, 0, h/2), "nothing at the top after 0.5 s")
	assert.Greater(t, ink(late, h/2, h), 100, "the WebVTT cue at the bottom from 0.5 s")

	// An asset of the wrong type, wherever it is named.
	for name, c := range map[string]struct {
		layer any
		want  string
	}{
		"an image as captions": {captions(image["id"].(string), "top"),
			"composition.layers[0].src: asset " + image["id"].(string) + " is an image; a captions layer takes a captions asset (SRT or WebVTT)"},
		"captions as a picture": {map[string]any{"type": "image", "src": srt["id"]},
			"composition.layers[0].src: asset " + srt["id"].(string) + " is captions; a layer takes an image asset"},
		"captions as a font": {map[string]any{"type": "text", "text": "hi", "font": "low"},
			"composition.layers[0].font: asset " + vtt["id"].(string) + " is captions, not a font"},
	} {
		r := k.do(t, http.MethodPost, "/api/render", render(c.layer))
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", name, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), name)
		assert.Contains(t, message(r), c.want, name)
	}

	// caption.burn takes a captions asset as its subtitles, and no other.
	media := serveMedia(t)
	burn := func(subtitles string) response {
		return k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "caption.burn",
			"inputs": map[string]any{"source": media.URL + "/clip.mp4", "subtitles": subtitles}})
	}
	r = burn(srt["id"].(string))
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	j := k.waitJob(t, r.json(t)["data"].(map[string]any)["id"].(string))
	assert.Equal(t, "complete", j["status"], "%v", j)
	r = burn(image["id"].(string))
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Contains(t, message(r), "inputs.subtitles: asset "+image["id"].(string)+" is image media; subtitles takes subtitles")
}
