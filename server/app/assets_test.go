package app_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
)

const adminKey = "admin-key-0123456789abcdef"

// minimalPSD builds an 8-bit RGB Photoshop file of w×h pixels, raw data.
func minimalPSD(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("8BPS")
	binary.Write(&b, binary.BigEndian, uint16(1)) // version
	b.Write(make([]byte, 6))                      // reserved
	binary.Write(&b, binary.BigEndian, uint16(3)) // channels
	binary.Write(&b, binary.BigEndian, uint32(h)) // height
	binary.Write(&b, binary.BigEndian, uint32(w)) // width
	binary.Write(&b, binary.BigEndian, uint16(8)) // depth
	binary.Write(&b, binary.BigEndian, uint16(3)) // RGB
	binary.Write(&b, binary.BigEndian, uint32(0)) // colour mode data
	binary.Write(&b, binary.BigEndian, uint32(0)) // image resources
	binary.Write(&b, binary.BigEndian, uint32(0)) // layers and masks
	binary.Write(&b, binary.BigEndian, uint16(0)) // raw image data
	for c := 0; c < 3; c++ {
		b.Write(bytes.Repeat([]byte{byte(60 * (c + 1))}, w*h))
	}
	return b.Bytes()
}

// upload posts a multipart form with fields in order, the file last.
func (k *kino) upload(t *testing.T, key string, fields [][2]string, filename string, content []byte) response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		require.NoError(t, mw.WriteField(f[0], f[1]))
	}
	fw, err := mw.CreateFormFile("file", filename)
	require.NoError(t, err)
	_, err = fw.Write(content)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, k.base+"/assets", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func TestAssets(t *testing.T) {
	t.Parallel()
	eachSetup(t, func(t *testing.T, su setup) {
		k := su.start(t, func(c *app.Config) {
			withKeys(c)
			c.AdminKey = adminKey
			c.MaxUploadBytes = 2 << 20
		})
		media := testMedia(t)
		png, err := os.ReadFile(filepath.Join(media, "image.png"))
		require.NoError(t, err)
		font, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
		require.NoError(t, err)

		// An organisation's image, with its size and a thumbnail.
		r := k.upload(t, keyA, [][2]string{{"type", "image"}, {"name", "Logo"}, {"category", "print"}}, "logo.png", png)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		img := r.json(t)["data"].(map[string]any)
		assert.Equal(t, "org-a", img["orgId"])
		assert.Equal(t, "org", img["scope"])
		assert.Equal(t, "ready", img["status"])
		assert.Equal(t, "print", img["category"])
		assert.Equal(t, float64(len(png)), img["fileSize"])
		assert.NotEmpty(t, img["thumbnailKey"])
		// Its thumbnail loads from the URL in the record as it is, signed
		// (keys are on here, and a private bucket needs it too).
		thumb, err := http.Get(img["thumbnailUrl"].(string))
		require.NoError(t, err)
		thumbBody, _ := io.ReadAll(thumb.Body)
		thumb.Body.Close()
		require.Equal(t, http.StatusOK, thumb.StatusCode, "%s", thumbBody)
		assert.True(t, bytes.HasPrefix(thumbBody, []byte("\x89PNG")), "a PNG thumbnail")
		var meta map[string]any
		require.NoError(t, json.Unmarshal([]byte(img["metadata"].(string)), &meta))
		assert.Equal(t, map[string]any{"format": "png", "contentType": "image/png", "width": 64.0, "height": 48.0}, meta)

		// A system template, by the admin; its PSD decodes to a thumbnail.
		r = k.upload(t, adminKey, [][2]string{{"type", "psd_template"}, {"name", "Mug"}, {"category", "drinkware"}, {"scope", "system"}}, "mug.psd", minimalPSD(40, 30))
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		tpl := r.json(t)["data"].(map[string]any)
		assert.Equal(t, "system", tpl["scope"])
		assert.Equal(t, "ready", tpl["status"], "%v", tpl["metadata"])
		assert.Contains(t, tpl["metadata"], `"width":40`)

		r = k.upload(t, keyA, [][2]string{{"type", "font"}}, "DejaVuSans.ttf", font)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		assert.Equal(t, "DejaVuSans.ttf", r.json(t)["data"].(map[string]any)["name"], "name defaults to the file name")
		assert.NotContains(t, r.json(t)["data"], "thumbnailUrl", "a font has no thumbnail")

		// Content is checked, not trusted.
		for _, tc := range []struct {
			fields  [][2]string
			name    string
			content []byte
			key     string
			inMsg   string
		}{
			{[][2]string{{"type", "font"}}, "logo.ttf", png, keyA, "PNG"},
			{[][2]string{{"type", "image"}}, "x.png", []byte("GIF89a not supported"), keyA, "not a PSD, PNG"},
			{[][2]string{{"type", "image"}}, "big.png", append(append([]byte{}, png...), make([]byte, 3<<20)...), keyA, "upload limit"},
			{[][2]string{{"type", "image"}, {"scope", "system"}}, "x.png", png, keyA, "admin key"},
			{[][2]string{{"type", "video"}}, "x.png", png, keyA, "type:"},
			{[][2]string{{"type", "image"}, {"category", "toys"}}, "x.png", png, keyA, "category:"},
		} {
			r = k.upload(t, tc.key, tc.fields, tc.name, tc.content)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
			assert.Contains(t, string(r.body), tc.inMsg)
		}
		r = k.upload(t, "", [][2]string{{"type", "image"}}, "x.png", png)
		assert.Equal(t, http.StatusUnauthorized, r.status)

		// Lists: own assets by default, system ones on request, templates.
		list := k.as(t, keyA, http.MethodGet, "/assets", nil)
		require.Equal(t, http.StatusOK, list.status, "%s", list.body)
		assert.Equal(t, map[string]any{"total": 2.0, "limit": 50.0, "offset": 0.0}, list.json(t)["meta"])
		list = k.as(t, keyA, http.MethodGet, "/assets?type=image&category=print", nil)
		assert.Equal(t, 1.0, list.json(t)["meta"].(map[string]any)["total"])
		list = k.as(t, keyB, http.MethodGet, "/assets", nil)
		assert.JSONEq(t, `{"data":[],"meta":{"total":0,"limit":50,"offset":0}}`, string(list.body))
		list = k.as(t, keyB, http.MethodGet, "/assets?scope=system", nil)
		assert.Equal(t, 1.0, list.json(t)["meta"].(map[string]any)["total"])
		list = k.as(t, keyB, http.MethodGet, "/assets/templates?category=drinkware", nil)
		require.Equal(t, http.StatusOK, list.status, "%s", list.body)
		assert.Equal(t, tpl["id"], list.json(t)["data"].([]any)[0].(map[string]any)["id"])
		list = k.as(t, keyB, http.MethodGet, "/assets/templates?category=apparel", nil)
		assert.Equal(t, 0.0, list.json(t)["meta"].(map[string]any)["total"])
		for _, q := range []string{"limit=abc", "limit=101", "offset=-1", "type=video", "scope=all", "category=toys"} {
			r = k.as(t, keyA, http.MethodGet, "/assets?"+q, nil)
			assert.Equal(t, http.StatusBadRequest, r.status, q)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), q)
		}

		// Assets as job inputs: the media kind must fit, and only visible assets count.
		r = k.as(t, keyA, http.MethodPost, "/jobs", map[string]any{"type": "image.resize", "inputs": map[string]any{"source": img["id"]}, "params": map[string]any{"width": 32}})
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		resized := r.json(t)["data"].(map[string]any)["id"].(string)
		require.Eventually(t, func() bool { // the worker copies the asset from storage
			return k.as(t, keyA, http.MethodGet, "/jobs/"+resized, nil).json(t)["data"].(map[string]any)["status"] == "complete"
		}, time.Minute, 50*time.Millisecond)
		r = k.as(t, keyA, http.MethodPost, "/jobs", map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": img["id"]}})
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, string(r.body), "is image media; source takes video or audio")
		r = k.as(t, keyB, http.MethodPost, "/jobs", map[string]any{"type": "image.resize", "inputs": map[string]any{"source": img["id"]}})
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, string(r.body), "no asset has the id")

		// Reading, content, isolation, deletion.
		id := img["id"].(string)
		r = k.as(t, keyA, http.MethodGet, "/assets/"+id, nil)
		require.Equal(t, http.StatusOK, r.status)
		r = k.as(t, keyA, http.MethodGet, "/assets/"+id+"/content", nil)
		require.Equal(t, http.StatusOK, r.status)
		assert.Equal(t, png, r.body)
		assert.Equal(t, "image/png", r.header.Get("Content-Type"))
		for _, path := range []string{"/assets/" + id, "/assets/" + id + "/content"} {
			r = k.as(t, keyB, http.MethodGet, path, nil)
			assert.Equal(t, http.StatusNotFound, r.status, path)
			assert.Equal(t, "ASSET_NOT_FOUND", r.errorCode(t), path)
		}
		r = k.as(t, keyB, http.MethodGet, "/assets/"+tpl["id"].(string), nil)
		assert.Equal(t, http.StatusOK, r.status, "system assets are visible to all")
		r = k.as(t, keyB, http.MethodDelete, "/assets/"+tpl["id"].(string), nil)
		assert.Equal(t, http.StatusNotFound, r.status, "but only the admin deletes them")
		r = k.as(t, keyB, http.MethodDelete, "/assets/"+id, nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		keys := []string{img["storageKey"].(string), img["thumbnailKey"].(string)}
		for _, key := range keys {
			require.True(t, k.stored(t, su, key), key)
		}
		r = k.as(t, keyA, http.MethodDelete, "/assets/"+id, nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.NotContains(t, r.json(t)["data"], "thumbnailUrl", "a deleted asset's thumbnail is gone")
		for _, key := range keys {
			assert.False(t, k.stored(t, su, key), "deleting the asset deletes %s", key)
		}
		r = k.as(t, keyA, http.MethodGet, "/assets/"+id, nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		r = k.as(t, adminKey, http.MethodDelete, "/assets/"+tpl["id"].(string), nil)
		assert.Equal(t, http.StatusOK, r.status)
	})
}
