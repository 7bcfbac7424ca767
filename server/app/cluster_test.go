package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	entjob "github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/storage/s3test"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// clusterNode is one kino process of the three-node test.
type clusterNode struct {
	base string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// TestThreeNodes runs kino as an operator would on one machine: three
// kino processes of the built binary, one PostgreSQL schema, one S3
// server. Jobs are submitted to all three; one is killed with SIGKILL
// mid-way; every job must still end, completed, with an output that
// its URL serves.
func TestThreeNodes(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	media := serveMedia(t)

	bin := filepath.Join(t.TempDir(), "kino")
	build := exec.Command("go", "build", "-o", bin, "github.com/kinohq/kino/cmd/kino")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build kino: %s", out)

	// All three start at once on the fresh schema, as operators start
	// them: they take turns to migrate it.
	nodes := make([]*clusterNode, 3)
	for i := range nodes {
		nodes[i] = startNode(t, bin, i, db.URL, bucket)
	}
	for i, n := range nodes {
		n.waitHealthy(t, i)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for i, n := range nodes {
				b, _ := os.ReadFile(n.log)
				t.Logf("node %d log (tail):\n%s", i, tailLines(string(b), 30))
			}
		}
	})

	// 50 jobs, renders and media jobs of three types, round robin over
	// the nodes: each API node queues, any worker node runs.
	type submitted struct {
		id     string
		render bool
	}
	var jobs []submitted

	// One render longer than the nodes' --split-after, submitted first
	// so that its parts are the first work every node's workers claim.
	split := clusterPost(t, nodes[2].base+"/api/render", map[string]any{"provider": "provider_a", "composition": map[string]any{
		"width": 320, "height": 180, "fps": 25, "duration": 6, "background": "#102030",
		"layers": []any{map[string]any{"type": "video", "src": media.URL + "/clip.mp4", "duration": 6, "loop": true, "fit": "cover"}},
	}}, "jobId")
	jobs = append(jobs, submitted{split, true})

	for i := 1; i < 50; i++ {
		n := nodes[i%3]
		switch i % 4 {
		case 0:
			jobs = append(jobs, submitted{clusterPost(t, n.base+"/api/render", smallComposition(media), "jobId"), true})
		case 1:
			jobs = append(jobs, submitted{clusterPost(t, n.base+"/jobs", map[string]any{"type": "image.resize",
				"inputs": map[string]any{"source": media.URL + "/image.png"}, "params": map[string]any{"width": 32}}, "id"), false})
		case 2:
			jobs = append(jobs, submitted{clusterPost(t, n.base+"/jobs", map[string]any{"type": "audio.extract",
				"inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"format": "mp3"}}, "id"), false})
		case 3:
			jobs = append(jobs, submitted{clusterPost(t, n.base+"/jobs", map[string]any{"type": "video.trim",
				"inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"start": 0.5, "duration": 1}}, "id"), false})
		}
	}

	// Every node heard from every other through the shared database.
	nodeList := clusterGet(t, nodes[0].base+"/api/nodes")["nodes"].([]any)
	require.Len(t, nodeList, 3, "%v", nodeList)

	// Kill node 1 once some jobs have ended and while others run: its
	// running jobs are found by their expired leases and run again.
	survivor := nodes[0].base
	terminal := func(j submitted) (string, string) {
		if j.render {
			m := clusterGet(t, survivor+"/api/render/"+j.id)
			u, _ := m["outputUrl"].(string)
			return m["status"].(string), u
		}
		m := clusterGet(t, survivor+"/jobs/"+j.id)["data"].(map[string]any)
		u, _ := m["outputUrl"].(string)
		return m["status"].(string), u
	}
	ended := func() int {
		n := 0
		for _, j := range jobs {
			if st, _ := terminal(j); st == "completed" || st == "complete" || st == "failed" || st == "cancelled" {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return ended() >= 10 }, 2*time.Minute, 100*time.Millisecond, "no jobs ended")
	// Node 1 is killed while its heartbeat says it runs jobs.
	victim := fmt.Sprintf("-%d-", nodes[1].cmd.Process.Pid)
	var running []any
	require.Eventually(t, func() bool {
		for _, n := range clusterGet(t, survivor+"/api/nodes")["nodes"].([]any) {
			m := n.(map[string]any)
			if strings.Contains(m["id"].(string), victim) {
				running = m["runningJobs"].([]any)
				return len(running) > 0
			}
		}
		return false
	}, time.Minute, 20*time.Millisecond, "node 1 never ran a job")
	killedAt := ended()
	require.NoError(t, nodes[1].cmd.Process.Signal(syscall.SIGKILL))
	<-nodes[1].done
	t.Logf("node 1 killed after %d of %d jobs ended, running %v", killedAt, len(jobs), running)
	require.Less(t, killedAt, len(jobs), "the kill must come mid-way")

	require.Eventually(t, func() bool { return ended() == len(jobs) }, 3*time.Minute, 200*time.Millisecond, "not every job ended")
	for _, j := range jobs {
		st, u := terminal(j)
		if j.render {
			require.Equal(t, "completed", st, "render %s", j.id)
		} else {
			require.Equal(t, "complete", st, "media job %s", j.id)
		}
		require.NotEmpty(t, u, j.id)
		resp, err := http.Get(u)
		require.NoError(t, err)
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "output of %s", j.id)
		require.Positive(t, n, "output of %s", j.id)
	}

	// The split render completed above like every job; its parts ran on
	// more than one node. Which node ran a part is read from durable
	// records, not sampled while it runs: the parts' rows in the shared
	// database, and each node's log, which names every job it worked on.
	st, err := store.Open(context.Background(), db.URL)
	require.NoError(t, err)
	defer st.Close()
	parts, err := st.Job.Query().Where(entjob.BatchID(split), entjob.Kind(renderjob.PartKind)).All(context.Background())
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(parts), 2, "the render was not split")
	ranOn := map[int][]string{}
	for i, n := range nodes {
		b, err := os.ReadFile(n.log)
		require.NoError(t, err)
		for _, p := range parts {
			if strings.Contains(string(b), "msg=\"job completed\" job_id="+p.ID) {
				ranOn[i] = append(ranOn[i], p.ID)
			}
		}
	}
	t.Logf("split render %s: %d parts completed, by node: %v", split, len(parts), ranOn)
	require.GreaterOrEqual(t, len(ranOn), 2, "the split render's parts ran on one node only")
}

func startNode(t *testing.T, bin string, i int, dbURL, bucket string) *clusterNode {
	t.Helper()
	dir := t.TempDir()
	httpAddr, grpcAddr := freeAddr(t), freeAddr(t)
	logPath := filepath.Join(dir, "kino.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve", "--http-addr", httpAddr, "--grpc-addr", grpcAddr, "--data-dir", dir,
		"--database-url", dbURL, "--storage-url", bucket, "--workers", "2", "--allow-private-networks",
		"--lease", "2s", "--job-retry-delay", "200ms", "--shutdown-grace", "1s", "--heartbeat-every", "100ms",
		"--split-after", "3s", "--split-part", "1s")
	// Only the AWS credentials s3test set, none of the caller's KINO_ settings.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KINO_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	n := &clusterNode{base: "http://" + httpAddr, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(n.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-n.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-n.done
		}
	})
	return n
}

// waitHealthy waits for node i to answer its health check.
func (n *clusterNode) waitHealthy(t *testing.T, i int) {
	t.Helper()
	require.Eventually(t, func() bool {
		select {
		case <-n.done:
			b, _ := os.ReadFile(n.log)
			t.Fatalf("node %d exited: %s", i, tailLines(string(b), 20))
		default:
		}
		resp, err := http.Get(n.base + "/api/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "node %d did not start", i)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer lis.Close()
	return lis.Addr().String()
}

func clusterPost(t *testing.T, url string, body any, idField string) string {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(b)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%s: %s", url, rb)
	var m map[string]any
	require.NoError(t, json.Unmarshal(rb, &m))
	if d, ok := m["data"].(map[string]any); ok {
		m = d
	}
	id, _ := m[idField].(string)
	require.NotEmpty(t, id, "%s", rb)
	return id
}

func clusterGet(t *testing.T, url string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", url, b)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
