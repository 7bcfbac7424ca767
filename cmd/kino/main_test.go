package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// The tests here run the real binary, so that a kill is a real kill.

var kinoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kino-bin-")
	if err != nil {
		panic(err) //nolint:forbidigo // programmer error: TestMain has no t to fail, and no test can run without the binary
	}
	kinoBin = filepath.Join(dir, "kino")
	if out, err := exec.Command("go", "build", "-o", kinoBin, ".").CombinedOutput(); err != nil {
		panic(string(out)) //nolint:forbidigo // programmer error: TestMain has no t to fail, and no test can run without the binary
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type process struct {
	cmd  *exec.Cmd
	base string
	grpc string
	// metrics is the address of /metrics, empty when off.
	metrics string
	logs    *syncBuffer
}

// syncBuffer is a log buffer the reading goroutine and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) WriteString(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveKino starts `kino serve` and waits for its listening addresses.
func serveKino(t *testing.T, dataDir, dbURL string, extra ...string) *process {
	t.Helper()
	return serveKinoIn(t, "", dataDir, dbURL, extra...)
}

// serveKinoIn starts kino in the working folder dir.
func serveKinoIn(t *testing.T, dir, dataDir, dbURL string, extra ...string) *process {
	t.Helper()
	args := append([]string{"serve", "--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0",
		"--data-dir", dataDir, "--log-format", "json", "--workers", "1", "--lease", "1s"}, extra...)
	if dbURL != "" {
		args = append(args, "--database-url", dbURL)
	}
	cmd := exec.Command(kinoBin, args...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &process{cmd: cmd, logs: &syncBuffer{}}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("kino logs:\n%s", p.logs.String())
		}
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.logs.WriteString(line + "\n")
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "kino serving" {
				p.base = "http://" + m["http"].(string)
				p.grpc = m["grpc"].(string)
				p.metrics, _ = m["metrics"].(string)
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("kino did not start: %s", p.logs.String())
	}
	return p
}

func (p *process) getJob(t *testing.T, id string) map[string]any {
	t.Helper()
	resp, err := http.Get(p.base + "/api/render/" + id)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func (p *process) submit(t *testing.T, body string) string {
	t.Helper()
	resp, err := http.Post(p.base+"/api/render", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%s", b)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m["jobId"].(string)
}

// aFewSeconds renders in a few seconds on two cores: a colour band that
// fades and a title over the background, overlaid on every frame (a lone
// full-frame colour would be the base, encoded almost for free).
const aFewSeconds = `{"provider":"provider_a","composition":{"width":1280,"height":720,"fps":25,"duration":30,"background":"#102030",
  "layers":[{"type":"color","color":"#3366ff","start":0,"duration":30,"x":0,"y":200,"width":1280,"height":300,"fadeIn":10,"fadeOut":10},
            {"type":"text","text":"kino","fontSize":64,"color":"#ffffff","x":"center","y":"center","start":0,"duration":30}]}}`

func TestKillAndRestartRecoversTheJob(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		dataDir := t.TempDir()
		first := serveKino(t, dataDir, db.URL)
		id := first.submit(t, aFewSeconds)
		require.Eventually(t, func() bool {
			j := first.getJob(t, id)
			return j["status"] == "processing" && j["progress"].(float64) > 0
		}, 30*time.Second, 50*time.Millisecond)
		require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
		_ = first.cmd.Wait()
		left, err := filepath.Glob(filepath.Join(dataDir, "tmp", "proc-*", "render-*"))
		require.NoError(t, err)
		require.NotEmpty(t, left, "the killed process left its render's folder")

		second := serveKino(t, dataDir, db.URL)
		for _, dir := range left {
			assert.NoDirExists(t, dir, "start-up removes what the killed process left")
		}
		var job map[string]any
		require.Eventually(t, func() bool {
			job = second.getJob(t, id)
			return job["status"] == "completed"
		}, 90*time.Second, 100*time.Millisecond, "the killed job is re-queued and rendered")
		assert.Equal(t, 100.0, job["progress"])
		assert.Contains(t, second.logs.String(), "rescued jobs whose worker was lost")
	})
}

func TestKilledTooOftenFailsWithWorkerLost(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	first := serveKino(t, dataDir, "", "--max-attempts", "1")
	id := first.submit(t, aFewSeconds)
	require.Eventually(t, func() bool { return first.getJob(t, id)["status"] == "processing" }, 30*time.Second, 50*time.Millisecond)
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	_ = first.cmd.Wait()

	second := serveKino(t, dataDir, "", "--max-attempts", "1")
	var job map[string]any
	require.Eventually(t, func() bool {
		job = second.getJob(t, id)
		return job["status"] == "failed"
	}, 30*time.Second, 100*time.Millisecond)
	assert.Equal(t, "WORKER_LOST", job["error"].(map[string]any)["code"])
}

func TestSIGTERMReleasesUnfinishedRenders(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	first := serveKino(t, dataDir, "", "--shutdown-grace", "200ms")
	id := first.submit(t, aFewSeconds)
	require.Eventually(t, func() bool { return first.getJob(t, id)["status"] == "processing" }, 30*time.Second, 50*time.Millisecond)
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- first.cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "kino exits cleanly on SIGTERM")
	case <-time.After(15 * time.Second):
		t.Fatal("kino did not stop within 15 s of SIGTERM")
	}
	assert.Contains(t, first.logs.String(), "job handed back for another worker")

	second := serveKino(t, dataDir, "")
	require.Eventually(t, func() bool { return second.getJob(t, id)["status"] == "completed" }, 90*time.Second, 100*time.Millisecond)
}

// The README's default is --data-dir ./data: a relative folder, while
// ffmpeg runs in each render's own folder.
func TestRelativeDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := serveKinoIn(t, dir, "./data", "")
	id := p.submit(t, `{"provider":"provider_a","composition":{"width":64,"height":64,"fps":5,
	  "layers":[{"type":"text","text":"hi","start":0,"duration":1}]}}`)
	var job map[string]any
	require.Eventually(t, func() bool {
		job = p.getJob(t, id)
		return job["status"] == "completed" || job["status"] == "failed"
	}, 30*time.Second, 50*time.Millisecond)
	assert.Equal(t, "completed", job["status"], "%v", job)
	_, err := os.Stat(filepath.Join(dir, "data", "kino.db"))
	assert.NoError(t, err)
}

func TestAssetsSubcommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := serveKino(t, dir, "")
	png := filepath.Join(dir, "logo.png")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=red:s=32x24",
		"-frames:v", "1", png).CombinedOutput()
	require.NoError(t, err, "%s", out)

	out, err = exec.Command(kinoBin, "assets", "upload", png, "--type", "image", "--category", "print", "--addr", p.grpc).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var up struct{ Data map[string]any }
	require.NoError(t, json.Unmarshal(out, &up), "%s", out)
	assert.Equal(t, "ready", up.Data["status"])
	assert.Equal(t, "logo.png", up.Data["filename"])

	out, err = exec.Command(kinoBin, "assets", "list", "--addr", p.grpc, "--type", "image").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), up.Data["id"].(string))

	out, err = exec.Command(kinoBin, "assets", "upload", png, "--type", "font", "--addr", p.grpc).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "VALIDATION_ERROR")
}

func TestPipelinesRunSubcommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := serveKino(t, dir, "")
	png := filepath.Join(dir, "pic.png")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48",
		"-frames:v", "1", png).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(kinoBin, "assets", "upload", png, "--type", "image", "--addr", p.grpc).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var up struct{ Data map[string]any }
	require.NoError(t, json.Unmarshal(out, &up), "%s", out)

	def := filepath.Join(dir, "pipeline.json")
	require.NoError(t, os.WriteFile(def, []byte(`{"name":"resize twice","nodes":[
	  {"id":"small","jobType":"image.resize","params":{"width":32}},
	  {"id":"smaller","jobType":"image.resize","params":{"width":16}}],
	 "edges":[{"from":"small","to":"smaller","outputMapping":{"sourceField":"outputUrl","targetField":"source"}}]}`), 0o644))
	out, err = exec.Command(kinoBin, "pipelines", "run", def, "--input", "small.source="+up.Data["id"].(string),
		"--watch", "--addr", p.grpc).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "small:complete smaller:complete")
	assert.Contains(t, string(out), "smaller: http://")
}

// serveLongVideo serves a 40 s video that takes a few seconds to transcode
// to webm, long enough to kill kino in the middle of it.
func serveLongVideo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25",
		"-t", "40", "-c:v", "libx264", "-preset", "ultrafast", filepath.Join(dir, "long.mp4")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(files.Close)
	return files.URL + "/long.mp4"
}

// postData posts a JSON body and returns the answer's data object.
func postData(t *testing.T, url, body string, want int) map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var m struct{ Data map[string]any }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	require.Equal(t, want, resp.StatusCode, "%v", m)
	return m.Data
}

func getData(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	var m struct{ Data map[string]any }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	return m.Data
}

func TestKillAndRestartRecoversAMediaJob(t *testing.T) {
	t.Parallel()
	src := serveLongVideo(t)
	data := filepath.Join(t.TempDir(), "data")
	first := serveKino(t, data, "", "--allow-private-networks")
	id := postData(t, first.base+"/jobs", `{"type":"video.transcode","inputs":{"source":"`+src+`"},"params":{"preset":"webm"}}`,
		http.StatusAccepted)["id"].(string)
	getJob := func(p *process) map[string]any { return getData(t, p.base+"/jobs/"+id) }
	require.Eventually(t, func() bool { return getJob(first)["status"] == "running" }, 30*time.Second, 50*time.Millisecond)
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	_ = first.cmd.Wait()

	second := serveKino(t, data, "", "--allow-private-networks")
	var job map[string]any
	require.Eventually(t, func() bool {
		job = getJob(second)
		return job["status"] == "complete" || job["status"] == "failed"
	}, 120*time.Second, 200*time.Millisecond)
	assert.Equal(t, "complete", job["status"], "%v", job)
	assert.Equal(t, 1.0, job["retryCount"], "the lost attempt is counted")
}

// A pipeline node whose worker is lost once too often fails with
// WORKER_LOST, and, as on any failure, the nodes after it are cancelled.
func TestKilledPipelineNodeFailsWithWorkerLost(t *testing.T) {
	t.Parallel()
	src := serveLongVideo(t)
	data := filepath.Join(t.TempDir(), "data")
	first := serveKino(t, data, "", "--allow-private-networks", "--max-attempts", "1")
	pid := postData(t, first.base+"/pipelines", `{"name":"transcode then thumbnail","nodes":[
	  {"id":"transcode","jobType":"video.transcode","params":{"preset":"webm"}},
	  {"id":"thumb","jobType":"video.thumbnail","params":{"at":1}}],
	 "edges":[{"from":"transcode","to":"thumb","outputMapping":{"sourceField":"outputUrl","targetField":"source"}}]}`,
		http.StatusCreated)["id"].(string)
	rid := postData(t, first.base+"/pipelines/"+pid+"/runs", `{"inputs":{"transcode":{"source":"`+src+`"}}}`,
		http.StatusAccepted)["id"].(string)
	nodes := func(p *process) (string, map[string]map[string]any) {
		run := getData(t, p.base+"/pipelines/"+pid+"/runs/"+rid)
		out := map[string]map[string]any{}
		for _, j := range run["jobs"].([]any) {
			out[j.(map[string]any)["pipelineNodeId"].(string)] = j.(map[string]any)
		}
		return run["status"].(string), out
	}
	require.Eventually(t, func() bool {
		_, n := nodes(first)
		return n["transcode"]["status"] == "running"
	}, 30*time.Second, 50*time.Millisecond)
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	_ = first.cmd.Wait()

	second := serveKino(t, data, "", "--allow-private-networks", "--max-attempts", "1")
	var status string
	var n map[string]map[string]any
	require.Eventually(t, func() bool {
		status, n = nodes(second)
		return status != "waiting" && status != "running"
	}, 60*time.Second, 100*time.Millisecond)
	assert.Equal(t, "failed", status)
	assert.Equal(t, "failed", n["transcode"]["status"])
	assert.Equal(t, "WORKER_LOST", n["transcode"]["errorCode"])
	assert.Equal(t, "cancelled", n["thumb"]["status"])
	assert.Equal(t, "UPSTREAM_FAILED", n["thumb"]["errorCode"])
}
