package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kinoCmd runs the client against p and returns what it printed, failing
// the test when the command fails.
func (p *process) kinoCmd(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(kinoBin, append(args, "--addr", p.grpc)...).CombinedOutput()
	require.NoError(t, err, "kino %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// kinoFails runs the client and returns its output, which must be a failure.
func (p *process) kinoFails(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(kinoBin, append(args, "--addr", p.grpc)...).CombinedOutput()
	require.Error(t, err, "kino %s should fail: %s", strings.Join(args, " "), out)
	return string(out)
}

// jsonOut reads the JSON a command printed (after any line on stderr).
func jsonOut(t *testing.T, out string) map[string]any {
	t.Helper()
	i := strings.Index(out, "{")
	require.GreaterOrEqual(t, i, 0, "no JSON in %s", out)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out[i:]), &m), "%s", out)
	return m
}

// probeSize is the picture size ffprobe reads in the file at url.
func probeSize(t *testing.T, url string) string {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
		"-of", "csv=p=0:s=x", url).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.TrimSpace(string(out))
}

// lastLine is the last non-empty line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestRenderListSubcommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := serveKino(t, dir, "")
	req := writeFile(t, dir, "render.json", `{"provider":"provider_a","composition":{"width":96,"height":54,"fps":5,"duration":1,
	  "layers":[{"type":"text","text":"hi","start":0,"duration":1}]}}`)

	id := jsonOut(t, p.kinoCmd(t, "render", "submit", req))["jobId"].(string)
	url := lastLine(p.kinoCmd(t, "render", "watch", id))
	assert.Equal(t, "96x54", probeSize(t, url), "the render's output, from watch")

	list := jsonOut(t, p.kinoCmd(t, "render", "list", "--status", "completed"))
	data := list["data"].([]any)
	require.Len(t, data, 1)
	assert.Equal(t, id, data[0].(map[string]any)["jobId"])
	assert.Equal(t, 1.0, list["meta"].(map[string]any)["total"])
	list = jsonOut(t, p.kinoCmd(t, "render", "list", "--status", "failed"))
	assert.Empty(t, list["data"])
	assert.Contains(t, p.kinoFails(t, "render", "list", "--limit", "0"), "VALIDATION_ERROR")

	// Its request comes back as submit takes it, and renders again.
	again := writeFile(t, dir, "again.json", p.kinoCmd(t, "render", "request", id))
	assert.Contains(t, jsonOut(t, p.kinoCmd(t, "render", "request", id))["composition"], "layers")
	assert.NotEmpty(t, jsonOut(t, p.kinoCmd(t, "render", "submit", again))["jobId"])
}

func TestJobSubcommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48",
		"-frames:v", "1", filepath.Join(dir, "pic.png")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(files.Close)
	long := serveLongVideo(t)
	p := serveKino(t, filepath.Join(dir, "data"), "", "--allow-private-networks")

	resize := writeFile(t, dir, "resize.json", `{"type":"image.resize","inputs":{"source":"`+files.URL+`/pic.png"},"params":{"width":32}}`)
	out2 := p.kinoCmd(t, "job", "create", resize, "--watch")
	assert.Contains(t, out2, "complete")
	assert.Equal(t, "32x24", probeSize(t, lastLine(out2)), "the resized picture, from create --watch")

	list := jsonOut(t, p.kinoCmd(t, "job", "list", "--status", "complete", "--type", "image.resize"))
	data := list["data"].([]any)
	require.Len(t, data, 1)
	id := data[0].(map[string]any)["id"].(string)
	got := jsonOut(t, p.kinoCmd(t, "job", "get", id))["data"].(map[string]any)
	assert.Equal(t, "complete", got["status"])
	assert.Equal(t, 100.0, got["progress"])
	assert.Contains(t, p.kinoFails(t, "job", "cancel", id), "JOB_NOT_CANCELLABLE")

	transcode := writeFile(t, dir, "transcode.json", `{"type":"video.transcode","inputs":{"source":"`+long+`"},"params":{"preset":"webm"}}`)
	long1 := jsonOut(t, p.kinoCmd(t, "job", "create", transcode, "--idempotency-key", "k1"))["data"].(map[string]any)["id"].(string)
	again := jsonOut(t, p.kinoCmd(t, "job", "create", transcode, "--idempotency-key", "k1"))["data"].(map[string]any)["id"].(string)
	assert.Equal(t, long1, again, "the key returns the first job")
	cancelled := jsonOut(t, p.kinoCmd(t, "job", "cancel", long1))["data"].(map[string]any)
	assert.Equal(t, "cancelled", cancelled["status"])
	assert.Contains(t, p.kinoFails(t, "job", "watch", long1), "ended cancelled")
	assert.Contains(t, p.kinoFails(t, "job", "get", "job_nope"), "JOB_NOT_FOUND")
	assert.Equal(t, 2.0, jsonOut(t, p.kinoCmd(t, "job", "list"))["meta"].(map[string]any)["total"])

	// Usage: the resize, priced; the transcode was cancelled before it ended.
	table := p.kinoCmd(t, "usage")
	assert.Regexp(t, `(?m)^\s*DAY\s+TYPE\s+JOBS\s+MEDIA S\s+CPU S\s+PRICE USD\s*$`, table)
	assert.Regexp(t, `(?m)^\s*\d{4}-\d\d-\d\d\s+image\.resize\s+1\s+\S+\s+\S+\s+0\.0005\s*$`, table)
	assert.Regexp(t, `(?m)\stotal\s+1\s`, table)
	used := jsonOut(t, p.kinoCmd(t, "usage", "--json"))
	rows := used["data"].([]any)
	require.Len(t, rows, 1, "%v", used)
	row := rows[0].(map[string]any)
	assert.Equal(t, "image.resize", row["type"])
	assert.Equal(t, 1.0, row["jobs"])
	assert.Positive(t, row["cpuSeconds"])
	assert.Equal(t, 0.0005, row["price"])
	assert.Contains(t, p.kinoFails(t, "usage", "--from", "last week"), "VALIDATION_ERROR")
}

func TestPipelineSubcommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48",
		"-frames:v", "1", filepath.Join(dir, "pic.png")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(files.Close)
	p := serveKino(t, filepath.Join(dir, "data"), "", "--allow-private-networks")

	def := writeFile(t, dir, "pipeline.json", `{"name":"resize twice","nodes":[
	  {"id":"small","jobType":"image.resize","params":{"width":32}},
	  {"id":"smaller","jobType":"image.resize","params":{"width":16}}],
	 "edges":[{"from":"small","to":"smaller","outputMapping":{"sourceField":"outputUrl","targetField":"source"}}]}`)
	pid := jsonOut(t, p.kinoCmd(t, "pipeline", "create", def))["data"].(map[string]any)["id"].(string)
	require.True(t, strings.HasPrefix(pid, "pl_"), pid)
	list := jsonOut(t, p.kinoCmd(t, "pipeline", "list"))
	assert.Equal(t, pid, list["data"].([]any)[0].(map[string]any)["id"])

	// run takes the id of the pipeline just created; no second one is made.
	out3 := p.kinoCmd(t, "pipeline", "run", pid, "--input", "small.source="+files.URL+"/pic.png", "--watch")
	assert.Contains(t, out3, "small:complete smaller:complete")
	i := strings.Index(out3, "smaller: ")
	require.GreaterOrEqual(t, i, 0, "%s", out3)
	assert.Equal(t, "16x12", probeSize(t, strings.TrimSpace(strings.SplitN(out3[i+len("smaller: "):], "\n", 2)[0])))
	assert.Equal(t, 1.0, jsonOut(t, p.kinoCmd(t, "pipeline", "list"))["meta"].(map[string]any)["total"])

	// run with the file runs the stored pipeline of that definition, every
	// time, instead of a new copy a run; another definition is another
	// pipeline.
	for range 3 {
		out := p.kinoCmd(t, "pipeline", "run", def, "--input", "small.source="+files.URL+"/pic.png")
		assert.Contains(t, out, "pipeline "+pid+", run ")
	}
	assert.Equal(t, 1.0, jsonOut(t, p.kinoCmd(t, "pipeline", "list"))["meta"].(map[string]any)["total"])
	other := writeFile(t, dir, "other.json", `{"name":"resize twice","nodes":[
	  {"id":"small","jobType":"image.resize","params":{"width":40}},
	  {"id":"smaller","jobType":"image.resize","params":{"width":16}}],
	 "edges":[{"from":"small","to":"smaller","outputMapping":{"sourceField":"outputUrl","targetField":"source"}}]}`)
	assert.NotContains(t, p.kinoCmd(t, "pipeline", "run", other, "--input", "small.source="+files.URL+"/pic.png"), "pipeline "+pid+",")
	assert.Equal(t, 2.0, jsonOut(t, p.kinoCmd(t, "pipeline", "list"))["meta"].(map[string]any)["total"])

	runs := jsonOut(t, p.kinoCmd(t, "pipeline", "runs", pid))
	data := runs["data"].([]any)
	require.Len(t, data, 4)
	assert.Equal(t, "complete", data[len(data)-1].(map[string]any)["status"])
	assert.Contains(t, p.kinoFails(t, "pipeline", "runs", "pl_nope"), "PIPELINE_NOT_FOUND")
}

// --metrics-addr serves /metrics on its own listener, apart from the gateway.
func TestMetricsAddrFlag(t *testing.T) {
	t.Parallel()
	p := serveKino(t, t.TempDir(), "", "--metrics-addr", "127.0.0.1:0")
	require.NotEmpty(t, p.metrics, "the address is logged with the others")
	require.NotEqual(t, strings.TrimPrefix(p.base, "http://"), p.metrics)
	resp, err := http.Get("http://" + p.metrics + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(b), `kino_queue_depth{kind="render",type="render"} 0`)

	resp, err = http.Get(p.base + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "not on the gateway")
}

// Every client command takes VERB [ARG]: list alone, every other verb with
// its one argument. Anything else prints the command's usage and exits 2,
// before any connection.
func TestClientCommandsCheckTheirArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"render"}, {"render", "list", "extra"}, {"render", "get"}, {"render", "nope", "x"},
		{"job", "watch"}, {"job", "create", "a.json", "b.json"},
		{"pipeline", "list", "pl_x"}, {"pipeline", "runs"},
		{"assets", "upload"}, {"assets", "list", "x"},
		{"webhooks", "get"}, {"webhooks", "list", "x"}, {"webhooks", "nope", "x"},
	} {
		out, err := exec.Command(kinoBin, append(args, "--addr", "127.0.0.1:1")...).CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v: %s", args, out)
		assert.Equal(t, 2, exit.ExitCode(), "%v: %s", args, out)
		assert.Contains(t, string(out), "Usage:\n  kino "+strings.TrimSuffix(args[0], "s"), "%v", args)
		assert.Contains(t, string(out), "-api-key", "%v: the flags follow", args)
	}
}

func TestWebhooksSubcommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := serveKino(t, filepath.Join(dir, "data"), "")
	made := jsonOut(t, p.kinoCmd(t, "webhooks", "create", "https://hooks.example/in", "--events", "job.completed, job.failed", "--name", "ci"))["data"].(map[string]any)
	id := made["id"].(string)
	assert.True(t, strings.HasPrefix(made["signingSecret"].(string), "whsec_"), "%v", made)
	assert.Equal(t, []any{"job.completed", "job.failed"}, made["subscribedEvents"])
	list := jsonOut(t, p.kinoCmd(t, "webhooks", "list"))["data"].([]any)
	require.Len(t, list, 1)
	assert.NotContains(t, list[0], "signingSecret")
	assert.Equal(t, id, jsonOut(t, p.kinoCmd(t, "webhooks", "get", id))["data"].(map[string]any)["id"])
	assert.Contains(t, p.kinoFails(t, "webhooks", "create", "https://hooks.example/in"), "subscribedEvents")
	p.kinoCmd(t, "webhooks", "delete", id)
	assert.Contains(t, p.kinoFails(t, "webhooks", "get", id), "NOT_FOUND")
}

// TestUploadSubcommand stores a file with kino upload and runs a job on its
// downloadUrl, on a kino that refuses private addresses: the job reads the
// organisation's own upload in-process.
func TestUploadSubcommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48",
		"-frames:v", "1", filepath.Join(dir, "pic.png")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	p := serveKino(t, filepath.Join(dir, "data"), "")
	up := jsonOut(t, p.kinoCmd(t, "upload", filepath.Join(dir, "pic.png")))["data"].(map[string]any)
	assert.Equal(t, "pic.png", up["filename"])
	assert.Equal(t, "image/png", up["contentType"])
	url := up["downloadUrl"].(string)
	require.Contains(t, url, "/files/uploads/default/")
	resize := writeFile(t, dir, "resize.json", `{"type":"image.resize","inputs":{"source":"`+url+`"},"params":{"width":32}}`)
	got := p.kinoCmd(t, "job", "create", resize, "--watch")
	assert.Equal(t, "32x24", probeSize(t, lastLine(got)), "%s", got)
	assert.Contains(t, p.kinoFails(t, "upload", filepath.Join(dir, "nothere.png")), "no such file")
}
