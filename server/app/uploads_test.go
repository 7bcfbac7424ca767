package app_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	stdpng "image/png"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// psdHeader is a Photoshop file's header declaring w×h pixels of 8-bit RGB,
// with empty sections and RLE image data cut short: a few dozen bytes that
// a decoder would have to expand to w×h×3.
func psdHeader(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("8BPS")
	_ = binary.Write(&b, binary.BigEndian, uint16(1)) // version
	b.Write(make([]byte, 6))                          // reserved
	_ = binary.Write(&b, binary.BigEndian, uint16(3)) // channels
	_ = binary.Write(&b, binary.BigEndian, uint32(h)) // height
	_ = binary.Write(&b, binary.BigEndian, uint32(w)) // width
	_ = binary.Write(&b, binary.BigEndian, uint16(8)) // depth
	_ = binary.Write(&b, binary.BigEndian, uint16(3)) // RGB
	b.Write(make([]byte, 12))                         // colour mode, resources, layers: empty
	_ = binary.Write(&b, binary.BigEndian, uint16(1)) // RLE image data
	return b.Bytes()
}

// storedFiles lists every file of kino's local bucket, .attrs sidecars
// included.
func storedFiles(t *testing.T, k *kino) []string {
	t.Helper()
	root := filepath.Join(k.cfg.DataDir, "outputs")
	var files []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, rel)
		return nil
	}))
	return files
}

// TestUploadNamesCannotBreakStorage: the file name of an upload never
// decides where its thumbnail goes, a name storage cannot hold is refused
// before anything is stored, and /files never serves storage's own
// sidecar files.
func TestUploadNamesCannotBreakStorage(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	// Wider than a thumbnail, so the thumbnail is not the same file.
	wide := filepath.Join(t.TempDir(), "wide.png")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=640x480",
		"-frames:v", "1", wide).CombinedOutput()
	require.NoError(t, err, "%s", out)
	png, err := os.ReadFile(wide)
	require.NoError(t, err)

	// A file named like the thumbnail keeps its own bytes, and the
	// thumbnail its own.
	r := k.upload(t, "", [][2]string{{"type", "image"}}, "thumbnail.png", png)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	a := r.json(t)["data"].(map[string]any)
	assert.Equal(t, "ready", a["status"], "%v", a["metadata"])
	key, thumb := a["storageKey"].(string), a["thumbnailKey"].(string)
	assert.NotEqual(t, key, thumb)
	r = k.do(t, http.MethodGet, "/files/"+key, nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, png, r.body, "the original is what was sent")
	r = k.do(t, http.MethodGet, "/files/"+thumb, nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	cfg, err := stdpng.DecodeConfig(bytes.NewReader(r.body))
	require.NoError(t, err)
	assert.Equal(t, [2]int{320, 240}, [2]int{cfg.Width, cfg.Height}, "the thumbnail is the thumbnail")
	r = k.do(t, http.MethodGet, "/assets/"+a["id"].(string)+"/content", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, png, r.body)

	r = k.do(t, http.MethodDelete, "/assets/"+a["id"].(string), nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Empty(t, storedFiles(t, k), "a deleted asset leaves nothing")

	// Names storage cannot hold are refused, naming the field, and leave
	// nothing behind.
	for name, inMessage := range map[string]string{
		"..":                           `not "." or ".."`,
		".":                            "1 to 200 bytes",
		strings.Repeat("é", 100) + "x": "1 to 200 bytes",
		strings.Repeat("n", 240):       "1 to 200 bytes", // too long for the local bucket's temporary file
		"x.attrs":                      `".attrs"`,
		"a.png.ATTRS":                  `".attrs"`,
		"tab\there.png":                "control characters",
	} {
		r = k.upload(t, "", [][2]string{{"type", "image"}, {"name", "x"}}, name, png)
		assert.Equal(t, http.StatusBadRequest, r.status, "%q: %s", name, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), name)
		msg := r.json(t)["error"].(map[string]any)["message"].(string)
		assert.True(t, strings.HasPrefix(msg, "file: "), "%q: %s", name, msg)
		assert.Contains(t, msg, inMessage, name)
	}
	// The longest name allowed is stored.
	long := strings.Repeat("n", 196) + ".png"
	r = k.upload(t, "", [][2]string{{"type", "image"}}, long, png)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	a = r.json(t)["data"].(map[string]any)
	assert.Equal(t, long, a["filename"])
	r = k.do(t, http.MethodDelete, "/assets/"+a["id"].(string), nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Empty(t, storedFiles(t, k), "refused uploads leave nothing")
	r = k.do(t, http.MethodGet, "/assets", nil)
	assert.Equal(t, 0.0, r.json(t)["meta"].(map[string]any)["total"])
}

// TestUploadPictureBombs: a small file declaring a huge picture is refused
// from its header, before anything decodes it, with the size it declares;
// nothing is stored.
func TestUploadPictureBombs(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AdminKey = adminKey })
	for _, tc := range []struct {
		name, typ string
		content   []byte
		inMessage string
	}{
		{"bomb.png", "image", pngHeader(16000, 16000), "16000×16000 pixels"},
		{"bomb.psd", "psd_template", psdHeader(30000, 30000), "30000×30000 pixels"},
	} {
		r := k.upload(t, adminKey, [][2]string{{"type", tc.typ}}, tc.name, tc.content)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", tc.name, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), tc.name)
		assert.Contains(t, string(r.body), "file: ", tc.name)
		assert.Contains(t, string(r.body), tc.inMessage, tc.name)
	}
	assert.Empty(t, storedFiles(t, k))

	// A template within the limit still makes its thumbnail.
	r := k.upload(t, adminKey, [][2]string{{"type", "psd_template"}}, "ok.psd", minimalPSD(40, 30))
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	a := r.json(t)["data"].(map[string]any)
	assert.Equal(t, "ready", a["status"], "%v", a["metadata"])
	assert.NotEmpty(t, a["thumbnailKey"])
}

// TestUploadProcessingTimeout: an upload whose picture takes longer than
// --upload-timeout to probe and thumbnail is stored as failed, saying so.
func TestUploadProcessingTimeout(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.UploadTimeout = 1 })
	png, err := os.ReadFile(filepath.Join(testMedia(t), "image.png"))
	require.NoError(t, err)
	r := k.upload(t, "", [][2]string{{"type", "image"}}, "logo.png", png)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	a := r.json(t)["data"].(map[string]any)
	assert.Equal(t, "failed", a["status"])
	assert.Nil(t, a["thumbnailKey"])
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(a["metadata"].(string)), &meta))
	assert.Contains(t, meta["error"], "took longer than the limit of 1ns")
}

// children counts the running processes of these names (ffmpeg, ffprobe)
// whose parent is this test binary: kino runs in it and starts them itself.
func children(names ...string) int {
	self := strconv.Itoa(os.Getpid())
	dirs, _ := os.ReadDir("/proc")
	n := 0
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so split after ")".
		open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || end < open {
			continue
		}
		comm, rest := string(stat[open+1:end]), strings.Fields(string(stat[end+1:]))
		// A zombie (state Z) has ended; only its exit status is left to read.
		if slices.Contains(names, comm) && len(rest) > 1 && rest[0] != "Z" && rest[1] == self {
			n++
		}
	}
	return n
}

// TestUploadWorkersBoundProcessing: however many uploads arrive at once,
// only --upload-workers of them are probed and thumbnailed at a time; the
// others wait their turn and succeed. Not parallel: it counts this test
// binary's ffmpeg and ffprobe processes, and parallel tests start theirs.
func TestUploadWorkersBoundProcessing(t *testing.T) {
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.UploadWorkers = 1 })
	pic := filepath.Join(t.TempDir(), "hd.png")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080",
		"-frames:v", "1", pic).CombinedOutput()
	require.NoError(t, err, "%s", out)
	png, err := os.ReadFile(pic)
	require.NoError(t, err)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("type", "image"))
	fw, err := mw.CreateFormFile("file", "hd.png")
	require.NoError(t, err)
	_, _ = fw.Write(png)
	require.NoError(t, mw.Close())

	var peak atomic.Int32
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if n := int32(children("ffmpeg", "ffprobe")); n > peak.Load() {
				peak.Store(n)
			}
		}
	}()
	const uploads = 6
	statuses := make([]string, uploads)
	var wg sync.WaitGroup
	for i := range uploads {
		wg.Go(func() {
			resp, err := http.Post(k.base+"/assets", mw.FormDataContentType(), bytes.NewReader(body.Bytes()))
			if err != nil {
				statuses[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			var r struct {
				Data struct{ Status string } `json:"data"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&r)
			statuses[i] = fmt.Sprintf("%d %s", resp.StatusCode, r.Data.Status)
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	for i, s := range statuses {
		assert.Equal(t, "201 ready", s, "upload %d", i)
	}
	assert.Equal(t, int32(1), peak.Load(), "ffmpeg and ffprobe processes at once")
}
