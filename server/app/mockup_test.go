package app_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/mockup"
	"github.com/kinohq/kino/server/store/storetest"
)

// mockupTemplate reads a template of server/mockup's tests.
func mockupTemplate(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "mockup", "testdata", name))
	require.NoError(t, err)
	return b
}

// quadrantsPNG is a w×h design of four flat colours: red, green / blue, yellow.
func quadrantsPNG(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, quadrantColor(float64(x)/float64(w), float64(y)/float64(h)))
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func quadrantColor(u, v float64) color.NRGBA {
	switch {
	case u < 0.5 && v < 0.5:
		return color.NRGBA{220, 30, 30, 255}
	case v < 0.5:
		return color.NRGBA{30, 200, 30, 255}
	case u < 0.5:
		return color.NRGBA{30, 30, 220, 255}
	}
	return color.NRGBA{230, 220, 20, 255}
}

// serveBytes serves files by name on 127.0.0.1.
func serveBytes(t *testing.T, files map[string][]byte) string {
	return serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
}

// fetchPNG downloads and decodes a PNG kino made.
func fetchPNG(t *testing.T, url string) *image.NRGBA {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	img, err := png.Decode(resp.Body)
	require.NoError(t, err)
	out := image.NewNRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

type manifestQuad struct {
	SmartObjects []struct {
		Path string        `json:"path"`
		Quad [4][2]float64 `json:"quad"`
	} `json:"smartObjects"`
	Layers []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"layers"`
	Width int `json:"width"`
}

// TestMockupRenderOverREST uploads an ag-psd template and renders a
// design into its smart object over REST: the design's pixels land where
// the quad's homography puts them, darkened by the clipped multiply
// shading, and the hidden layer is gone.
func TestMockupRenderOverREST(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	up := k.upload(t, "", [][2]string{{"type", "psd_template"}, {"category", "apparel"}}, "shirt.psd", mockupTemplate(t, "mockup.psd"))
	require.Equal(t, http.StatusCreated, up.status, "%s", up.body)
	a := up.json(t)["data"].(map[string]any)
	require.Equal(t, "ready", a["status"], "%v", a["metadata"])
	assert.NotEmpty(t, a["thumbnailKey"])
	var m manifestQuad
	require.NoError(t, json.Unmarshal([]byte(a["metadata"].(string)), &m))
	assert.Equal(t, 600, m.Width)
	var quad [4]composite.Point
	found := false
	for _, so := range m.SmartObjects {
		if so.Path == "Front/Design" {
			found = true
			for i, c := range so.Quad {
				quad[i] = composite.Point{X: c[0], Y: c[1]}
			}
		}
	}
	require.True(t, found, "manifest: %s", a["metadata"])
	tpl := a["id"].(string)

	design := quadrantsPNG(t, 400, 400)
	base := serveBytes(t, map[string][]byte{"design.png": design, "back.png": quadrantsPNG(t, 50, 50)})

	// Exactly the request.
	id := k.createJob(t, map[string]any{"type": "mockup.render",
		"inputs": map[string]any{"template": tpl, "design": base + "/design.png"},
		"params": map[string]any{"smartObject": "Design", "hide": []any{"Other"}, "format": "png"}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	img := fetchPNG(t, j["outputUrl"].(string))
	require.Equal(t, image.Rect(0, 0, 600, 600), img.Bounds())

	h := composite.Perspective(quad)
	darker := 0
	for _, s := range [][2]float64{{0.2, 0.2}, {0.3, 0.3}, {0.7, 0.2}, {0.8, 0.3}, {0.2, 0.7}, {0.3, 0.8}, {0.7, 0.7}, {0.8, 0.8}} {
		p := h.Map(composite.Point{X: s[0], Y: s[1]})
		got := img.NRGBAAt(int(math.Round(p.X)), int(math.Round(p.Y)))
		want := quadrantColor(s[0], s[1])
		// Multiply never lightens: each channel at most the design's, and
		// the design's hue stays (its strongest channel stays strongest).
		for c, pair := range [][2]uint8{{got.R, want.R}, {got.G, want.G}, {got.B, want.B}} {
			assert.LessOrEqual(t, int(pair[0]), int(pair[1])+2, "sample %v at %v channel %d: got %v, design %v", s, p, c, got, want)
		}
		assert.Greater(t, int(got.R)+int(got.G)+int(got.B), (int(want.R)+int(want.G)+int(want.B))/3, "sample %v at %v: %v is not the design's %v shaded", s, p, got, want)
		if int(got.R)+int(got.G)+int(got.B) < int(want.R)+int(want.G)+int(want.B)-15 {
			darker++
		}
	}
	assert.GreaterOrEqual(t, darker, 4, "the multiply shading darkens the design")
	// Other (pure green at 20..120 x 520..580) is hidden: the background shows.
	assert.Equal(t, color.NRGBA{235, 235, 235, 255}, img.NRGBAAt(70, 550))
	// Outside the quad, the shirt's colour is untouched.
	assert.Equal(t, color.NRGBA{51, 102, 170, 255}, img.NRGBAAt(120, 500))

	// Without hide, Other is there.
	id = k.createJob(t, map[string]any{"type": "mockup.render",
		"inputs": map[string]any{"template": tpl, "design": base + "/design.png"},
		"params": map[string]any{"smartObject": "Front/Design", "colors": map[string]any{"Shirt": "#aa2200"},
			"designs": []any{base + "/back.png"}, "smartObjects": map[string]any{"Back": base + "/back.png"}}})
	j = k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	meta := map[string]any{}
	require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
	require.Contains(t, meta, "outputUrl2", "a batch of two lists both: %v", meta)
	// So does the output object: the first is its file, both are in files.
	out := j["output"].(map[string]any)
	files := out["files"].([]any)
	require.Len(t, files, 2, "%v", out)
	assert.Equal(t, out["file"], files[0])
	for i, field := range []string{"outputUrl", "outputUrl2"} {
		f := files[i].(map[string]any)
		assert.Equal(t, meta[field], f["url"])
		assert.Equal(t, "image", f["type"])
		assert.Greater(t, f["size"], 0.0)
	}
	for _, field := range []string{"outputUrl", "outputUrl2"} {
		img := fetchPNG(t, meta[field].(string))
		assert.Equal(t, color.NRGBA{0, 255, 0, 255}, img.NRGBAAt(70, 550), field)
		assert.Equal(t, color.NRGBA{0xaa, 0x22, 0x00, 255}, img.NRGBAAt(120, 500), "%s: colors recolours the shirt", field)
		// The back's top-left quadrant is red.
		assert.Equal(t, uint8(220), img.NRGBAAt(490, 40).R, field)
	}

	// A template alone is drawn as it is, at its own size: every smart
	// object with its own pixels, Other shown, hide applied when given,
	// pixel for pixel what the mockup package draws with no design.
	own, closer, err := mockup.Load(filepath.Join("..", "mockup", "testdata", "mockup.psd"), 100_000_000)
	require.NoError(t, err)
	defer closer.Close()
	for _, params := range []map[string]any{{}, {"hide": []any{"Other"}}} {
		id := k.createJob(t, map[string]any{"type": "mockup.render",
			"inputs": map[string]any{"template": tpl}, "params": params})
		j := k.waitJob(t, id)
		require.Equal(t, "complete", j["status"], "%v", j)
		img := fetchPNG(t, j["outputUrl"].(string))
		require.Equal(t, image.Rect(0, 0, 600, 600), img.Bounds())
		hide, _ := params["hide"].([]any)
		want, _, err := own.Render(mockup.Options{})
		if len(hide) > 0 {
			want, _, err = own.Render(mockup.Options{Hide: []string{"Other"}})
			assert.Equal(t, color.NRGBA{235, 235, 235, 255}, img.NRGBAAt(70, 550), "Other hidden")
		} else {
			assert.Equal(t, color.NRGBA{0, 255, 0, 255}, img.NRGBAAt(70, 550), "Other shown")
		}
		require.NoError(t, err)
		assert.Equal(t, want.Pix, img.Pix, "%v: the template's own drawing", params)
		meta := map[string]any{}
		require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
		assert.Equal(t, []any{map[string]any{"output": "outputUrl"}}, meta["mockups"], "one mockup, of no design")
	}

	// Paths the template does not have, or of the wrong kind, are refused
	// at submit, named.
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"smartObject": "Nope"}, `params.smartObject: "Nope" is not a layer of the template`},
		{map[string]any{"smartObject": "Other"}, `params.smartObject: "Other" is a pixel layer, not a smart object`},
		{map[string]any{"smartObject": "Design", "hide": []any{"Ghost"}}, `params.hide: "Ghost" is not a layer of the template`},
		{map[string]any{"smartObject": "Design", "colors": map[string]any{"Other": "#ffffff"}}, `params.colors: "Other" is a pixel layer, not a solid-colour fill`},
		{map[string]any{}, `params.smartObject: is required: the template has several smart objects`},
	} {
		r := k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "mockup.render",
			"inputs": map[string]any{"template": tpl, "design": base + "/design.png"}, "params": tc.params})
		require.Equal(t, http.StatusBadRequest, r.status, "%v: %s", tc.params, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		assert.Contains(t, r.json(t)["error"].(map[string]any)["message"], tc.want)
	}

	// A mockup feeds a pipeline like any picture: mockup -> image.resize.
	r := k.do(t, http.MethodPost, "/pipelines", map[string]any{"name": "mockup then thumbnail",
		"nodes": []any{
			map[string]any{"id": "mockup", "jobType": "mockup.render", "params": map[string]any{"smartObject": "Design", "format": "jpg"}},
			map[string]any{"id": "small", "jobType": "image.resize", "params": map[string]any{"width": 150}},
		},
		"edges": []any{map[string]any{"from": "mockup", "to": "small", "outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}}}})
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	pid := r.json(t)["data"].(map[string]any)["id"].(string)
	r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{
		"mockup": map[string]any{"template": tpl, "design": base + "/design.png"}}})
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	run := k.waitRun(t, pid, r.json(t)["data"].(map[string]any)["id"].(string))
	require.Equal(t, "complete", run["status"], "%v", statuses(run))
	small := download(t, run["jobs"].([]any)[1].(map[string]any)["outputUrl"].(string))
	require.NotNil(t, small.Video())
	assert.Equal(t, 150, small.Video().Width)

	// A template with one smart object needs no smartObject (the psd
	// reader's ag-psd template: Product/Design under a clipped multiply).
	b, err := os.ReadFile(filepath.Join("..", "psd", "testdata", "template.psd"))
	require.NoError(t, err)
	up = k.upload(t, "", [][2]string{{"type", "psd_template"}}, "template.psd", b)
	require.Equal(t, http.StatusCreated, up.status, "%s", up.body)
	id = k.createJob(t, map[string]any{"type": "mockup.render",
		"inputs": map[string]any{"template": up.json(t)["data"].(map[string]any)["id"], "design": base + "/design.png"},
		"params": map[string]any{"format": "webp", "width": 150}})
	j = k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	assert.Contains(t, j["outputMeta"], `"width":150`)
	assert.Contains(t, j["outputMeta"], `"contentType":"image/webp"`)

	// A template by URL is checked when the job runs: the job fails naming it.
	tplURL := serveBytes(t, map[string][]byte{"t.psd": mockupTemplate(t, "mockup.psd")}) + "/t.psd"
	id = k.createJob(t, map[string]any{"type": "mockup.render",
		"inputs": map[string]any{"template": tplURL, "design": base + "/design.png"},
		"params": map[string]any{"smartObject": "Design", "hide": []any{"Ghost"}}})
	j = k.waitJob(t, id)
	require.Equal(t, "failed", j["status"], "%v", j)
	assert.Contains(t, j["errorMessage"], `hide: "Ghost" is not a layer of the template`)
}

// psdWriter writes small PSD files for the upload tests: a header, one
// layer (whose channels and extra blocks the caller gives), and a raw
// merged image.
type psdLayer struct {
	w, h        int
	compression uint16
	channel     []byte // each of the four channels' data (after its compression code)
	extra       []byte // tagged blocks after the name
}

func writePSD(w, h int, l *psdLayer, merged uint16, mergedData []byte) []byte {
	var b bytes.Buffer
	be := func(v any) { _ = binary.Write(&b, binary.BigEndian, v) }
	b.WriteString("8BPS")
	be(uint16(1))
	b.Write(make([]byte, 6))
	be(uint16(3))
	be(uint32(h))
	be(uint32(w))
	be(uint16(8))
	be(uint16(3))
	be(uint32(0)) // colour mode data
	be(uint32(0)) // resources
	var lm bytes.Buffer
	if l != nil {
		var li bytes.Buffer
		lbe := func(v any) { _ = binary.Write(&li, binary.BigEndian, v) }
		lbe(int16(1))
		lbe(int32(0))
		lbe(int32(0))
		lbe(int32(l.h))
		lbe(int32(l.w))
		lbe(uint16(4))
		for _, id := range []int16{-1, 0, 1, 2} {
			lbe(id)
			lbe(uint32(2 + len(l.channel)))
		}
		li.WriteString("8BIMnorm")
		li.Write([]byte{255, 0, 0, 0})
		var ex bytes.Buffer
		_ = binary.Write(&ex, binary.BigEndian, uint32(0)) // mask
		_ = binary.Write(&ex, binary.BigEndian, uint32(0)) // blending ranges
		ex.Write([]byte{1, 'L', 0, 0})                     // name "L", padded to 4
		ex.Write(l.extra)
		lbe(uint32(ex.Len()))
		li.Write(ex.Bytes())
		for range 4 {
			lbe(l.compression)
			li.Write(l.channel)
		}
		if li.Len()%2 == 1 {
			li.WriteByte(0)
		}
		_ = binary.Write(&lm, binary.BigEndian, uint32(li.Len()))
		lm.Write(li.Bytes())
		_ = binary.Write(&lm, binary.BigEndian, uint32(0)) // global mask
	}
	be(uint32(lm.Len()))
	b.Write(lm.Bytes())
	be(merged)
	b.Write(mergedData)
	return b.Bytes()
}

// packBits is PackBits of n copies of v, as ImageMagick writes a flat row.
func packBits(v byte, n int) []byte {
	var out []byte
	for n > 0 {
		c := min(n, 128)
		out = append(out, byte(257-c), v)
		n -= c
	}
	return out
}

// rlePSD is a flat RLE-compressed PSD as ImageMagick writes one by default.
func rlePSD(w, h int) []byte {
	var counts, rows bytes.Buffer
	for c := 0; c < 3; c++ {
		for y := 0; y < h; y++ {
			row := packBits(byte(60*(c+1)+y%7), w)
			_ = binary.Write(&counts, binary.BigEndian, uint16(len(row)))
			rows.Write(row)
		}
	}
	return writePSD(w, h, nil, 1, append(counts.Bytes(), rows.Bytes()...))
}

// deepDescriptor is an SoLd block whose descriptor nests depth objects.
func deepDescriptor(depth int) []byte {
	var d bytes.Buffer
	be := func(v any) { _ = binary.Write(&d, binary.BigEndian, v) }
	d.WriteString("soLD")
	be(uint32(4))
	be(uint32(16))
	for range depth {
		be(uint32(0)) // name: empty unicode string
		be(uint32(0)) // class id: 4 bytes follow
		d.WriteString("null")
		be(uint32(1)) // one item
		be(uint32(0))
		d.WriteString("deep")
		d.WriteString("Objc")
	}
	be(uint32(0))
	be(uint32(0))
	d.WriteString("null")
	be(uint32(0))
	var b bytes.Buffer
	b.WriteString("8BIMSoLd")
	_ = binary.Write(&b, binary.BigEndian, uint32(d.Len()))
	b.Write(d.Bytes())
	return b.Bytes()
}

// TestTemplateUploadInspection: ImageMagick's RLE PSDs are ready; hostile
// files are each a 400 naming file, quickly, with nothing stored.
func TestTemplateUploadInspection(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	r := k.upload(t, "", [][2]string{{"type", "psd_template"}}, "flat.psd", rlePSD(120, 80))
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	a := r.json(t)["data"].(map[string]any)
	assert.Equal(t, "ready", a["status"], "%v", a["metadata"])
	assert.NotEmpty(t, a["thumbnailKey"])
	assert.Contains(t, a["metadata"], `"width":120`)

	good := mockupTemplate(t, "mockup.psd")
	lying := bytes.Clone(good)
	// The layer and mask section claims far more than the file holds.
	off := 26 + 4 + 4 + int(binary.BigEndian.Uint32(good[30:]))
	binary.BigEndian.PutUint32(lying[off:], 0x7fff0000)

	var bomb bytes.Buffer
	{
		zw := newZlib(&bomb)
		_, _ = zw.Write(make([]byte, 64<<20)) // 64 MiB of zeros in 64 KB, for 64 bytes of plane
		_ = zw.Close()
	}
	zipBomb := writePSD(4, 4, &psdLayer{w: 4, h: 4, compression: 2, channel: bomb.Bytes()}, 0, make([]byte, 4*4*3))
	deep := writePSD(4, 4, &psdLayer{w: 4, h: 4, compression: 0, channel: make([]byte, 16), extra: deepDescriptor(500)}, 0, make([]byte, 4*4*3))

	for _, tc := range []struct {
		name    string
		content []byte
	}{
		{"truncated.psd", good[:len(good)/2]},
		{"lying.psd", lying},
		{"huge.psd", psdHeader(30000, 30000)},
		{"zipbomb.psd", zipBomb},
		{"deep.psd", deep},
	} {
		start := time.Now()
		r := k.upload(t, "", [][2]string{{"type", "psd_template"}}, tc.name, tc.content)
		took := time.Since(start)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", tc.name, r.body)
		if r.status == http.StatusBadRequest {
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), tc.name)
			assert.True(t, strings.HasPrefix(r.json(t)["error"].(map[string]any)["message"].(string), "file: "), "%s: %s", tc.name, r.body)
		}
		assert.Less(t, took, 5*time.Second, tc.name)
		t.Logf("%s: %s in %s", tc.name, r.body, took.Round(time.Millisecond))
	}
	list := k.do(t, http.MethodGet, "/assets", nil)
	assert.Equal(t, 1.0, list.json(t)["meta"].(map[string]any)["total"], "only the good upload is stored")
}

func newZlib(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }
