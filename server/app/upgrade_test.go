// The upgrade contract: data written by the kino of two job tables
// (render_jobs for renders, jobs for media jobs) must read back through the
// API, byte for byte, on every later kino, and what was left unfinished in
// it must still finish.
//
// testdata/upgrade/ holds that data as today's kino wrote it, one folder a
// database:
//
//	sqlite/data/           a whole data folder: kino.db (checkpointed, no WAL) and outputs/
//	postgres/dump.sql      pg_dump --column-inserts of one schema, its name stripped:
//	                       load it with search_path set to any fresh schema
//	postgres/data/         the outputs/ that go with it
//	*/fixture.json         what is in it: API keys, the public URL, and every render,
//	                       job, pipeline, run and asset by name, id and organisation
//	*/reads.json           every read TestUpgradeFromFixtures makes: organisation, path,
//	                       status; "stable" ones must answer the same after workers ran
//	*/golden/NAME.json     the body of each read, JSON re-indented
//	*/files.json           every file the answers point to: status, type, size, SHA-256
//
// What the fixture holds (organisations org-a and org-b, API keys on, an
// admin key for the system scope, public URL http://kino.example):
//
//   - renders: completed (its webhook delivered, Idempotency-Key), failed
//     (a 404 source; its webhook pending, frozen until 2100, at a fixed
//     loopback port), cancelled, queued (Idempotency-Key), and one of
//     org-b's, cancelled;
//   - media jobs: complete (image.resize of an uploaded asset: outputUrl,
//     outputMeta, stepsJson, logsRef; Idempotency-Key), failed, cancelled,
//     waiting (Idempotency-Key), and one of org-b's, cancelled;
//   - pipelines: org-a's caption.extract -> caption.burn + watermark.apply
//     with one complete run and one whose first node is complete and whose
//     other nodes wait (Idempotency-Key); org-b's, never run;
//   - assets: an image with its thumbnail and a font (org-a), a PSD template
//     with its thumbnail in the system scope.
//
// The fixtures were written once, by TestWriteUpgradeFixtures
// (upgrade_write_test.go, removed with the old schema; see the git history
// of the commit that added it), with the kino that still wrote the old
// schema:
//
//	KINO_WRITE_UPGRADE_FIXTURES=1 \
//	KINO_TEST_POSTGRES_URL='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	go test ./server/app -run TestWriteUpgradeFixtures -count=1 -v
//
// Never regenerate them: they are the upgrade contract, and a kino that no
// longer writes the old schema would only write its own data into them. If
// an answer must change on purpose, change that golden file by hand and say
// why in the commit.
package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

const upgradeDir = "testdata/upgrade"

// upgradeFixture is fixture.json: what one fixture holds.
type upgradeFixture struct {
	PublicURL string `json:"publicUrl"`
	// Keys maps each organisation to its API key; "system" is the admin key.
	Keys map[string]string `json:"keys"`
	// WebhookPort is the loopback port of the pending webhook's URL.
	WebhookPort int           `json:"webhookPort"`
	Renders     []upgradeItem `json:"renders"`
	// Jobs are every media job, the nodes of pipeline runs included.
	Jobs      []upgradeItem `json:"jobs"`
	Pipelines []upgradeItem `json:"pipelines"`
	Runs      []upgradeItem `json:"runs"`
	Assets    []upgradeItem `json:"assets"`
}

// upgradeItem is one thing the fixture holds.
type upgradeItem struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Org  string `json:"org"`
	// Pipeline is a run's pipeline.
	Pipeline string `json:"pipeline,omitempty"`
}

// upgradeRead is one GET the test makes, with the status it must answer.
type upgradeRead struct {
	Name   string `json:"name"`
	Org    string `json:"org"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Stable reads answer the same after the second phase's workers ran:
	// records that had ended, assets and refusals.
	Stable bool `json:"stable,omitempty"`
}

// upgradeFile is one stored file the answers point to.
type upgradeFile struct {
	// Path is /files/KEY or /assets/ID/content.
	Path        string `json:"path"`
	Org         string `json:"org"`
	Status      int    `json:"status"`
	ContentType string `json:"contentType"`
	Size        int    `json:"size"`
	SHA256      string `json:"sha256"`
}

func (f *upgradeFixture) named(items []upgradeItem, name string) upgradeItem {
	for _, it := range items {
		if it.Name == name {
			return it
		}
	}
	panic("the fixture has nothing named " + name) //nolint:forbidigo // programmer error: the test names an item its fixture lacks
}

// path is the path of a URL that kino handed out under the fixture's
// public URL, to GET from the kino under test.
func (f *upgradeFixture) path(t *testing.T, u any) string {
	t.Helper()
	s, _ := u.(string)
	p, ok := strings.CutPrefix(s, f.PublicURL+"/")
	require.True(t, ok, "%v is not under %s", u, f.PublicURL)
	return "/" + p
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v), path)
}

// reindent is the form goldens are kept and compared in: protojson adds a
// random space here and there on purpose, which compacting removes.
func reindent(t *testing.T, b []byte) []byte {
	t.Helper()
	var compact, out bytes.Buffer
	require.NoError(t, json.Compact(&compact, b), "%s", b)
	require.NoError(t, json.Indent(&out, compact.Bytes(), "", "  "))
	out.WriteByte('\n')
	return out.Bytes()
}

// upgradeConfig is how the fixtures were written and are read: the same
// keys and public URL, so that the URLs in answers do not depend on ports.
func upgradeConfig(t *testing.T, f *upgradeFixture, dataDir, dbURL string, workers int) app.Config {
	keys := map[string]string{}
	for org, key := range f.Keys {
		if org != "system" {
			keys[key] = org
		}
	}
	return app.Config{
		HTTPAddr:             "127.0.0.1:0",
		GRPCAddr:             "127.0.0.1:0",
		DataDir:              dataDir,
		DatabaseURL:          dbURL,
		PublicURL:            f.PublicURL,
		Workers:              workers,
		AllowPrivateNetworks: true,
		APIKeys:              keys,
		AdminKey:             f.Keys["system"],
		// With keys on, file URLs are signed; a known secret lets the
		// test sign the paths it fetches as kino would.
		URLSecret:     upgradeURLSecret,
		ShutdownGrace: 5 * time.Second,
		Log:           testLogger(t),
	}
}

// startStoppable starts kino and returns it with a stop that may be called
// before the test ends, and is called at its end otherwise.
func startStoppable(t *testing.T, cfg app.Config) (*kino, func()) {
	t.Helper()
	a, err := app.Start(context.Background(), cfg)
	require.NoError(t, err)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_ = a.Shutdown(ctx)
		})
	}
	t.Cleanup(stop)
	return &kino{app: a, base: "http://" + a.HTTPAddr, cfg: cfg}, stop
}

// read makes one read of the fixture as its organisation.
func (k *kino) read(t *testing.T, f *upgradeFixture, org, path string) response {
	t.Helper()
	return k.do(t, http.MethodGet, path, nil, bearer(f.Keys[org])...)
}

// upgradeURLSecret signs the file URLs of the upgrade test's kino.
const upgradeURLSecret = "upgrade-test-url-secret"

// fetchFile GETs a stored file and returns its answer; a /files/ path is
// signed, as kino signs the URLs it hands out since file URLs are private
// with API keys on.
func fetchFile(t *testing.T, k *kino, f *upgradeFixture, file upgradeFile) response {
	t.Helper()
	path := file.Path
	if key, ok := strings.CutPrefix(path, storage.FilesPath); ok {
		path += "?" + storage.NewSigner([]byte(upgradeURLSecret)).Query(key, time.Now().Add(time.Hour))
	}
	return k.read(t, f, file.Org, path)
}

// signedQuery is the signature kino adds to each file URL, in an answer
// (or a JSON string inside one): it changes with the time of the read,
// so it is checked present and then removed before the golden compare.
var signedQuery = regexp.MustCompile(`\?expires=\d+(?:&|\\+u0026)signature=[A-Za-z0-9_-]+`)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestUpgradeFromFixtures opens the data folder and the PostgreSQL schema
// that the kino of two job tables wrote, checks that every record reads
// back exactly as that kino answered, and then that what it left
// unfinished finishes.
func TestUpgradeFromFixtures(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fix := filepath.Join(upgradeDir, "sqlite")
		data := t.TempDir()
		copyTree(t, filepath.Join(fix, "data"), data)
		checkUpgrade(t, fix, data, "")
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		db := storetest.Postgres(t)
		fix := filepath.Join(upgradeDir, "postgres")
		loadDump(t, db.URL, filepath.Join(fix, "dump.sql"))
		data := t.TempDir()
		copyTree(t, filepath.Join(fix, "data"), data)
		checkUpgrade(t, fix, data, db.URL)
	})
}

func checkUpgrade(t *testing.T, fix, data, dbURL string) {
	var f upgradeFixture
	readJSON(t, filepath.Join(fix, "fixture.json"), &f)
	var reads []upgradeRead
	readJSON(t, filepath.Join(fix, "reads.json"), &reads)
	var files []upgradeFile
	readJSON(t, filepath.Join(fix, "files.json"), &files)
	require.NotEmpty(t, reads)
	require.NotEmpty(t, files)

	// Phase 1: an API-only node reads everything as it was written.
	k, stop := startStoppable(t, upgradeConfig(t, &f, data, dbURL, 0))
	compareReads(t, k, &f, fix, reads, false)
	for _, file := range files {
		r := fetchFile(t, k, &f, file)
		if !assert.Equal(t, file.Status, r.status, "%s: %s", file.Path, r.body) {
			continue
		}
		assert.Equal(t, file.ContentType, r.header.Get("Content-Type"), file.Path)
		assert.Equal(t, file.Size, len(r.body), file.Path)
		assert.Equal(t, file.SHA256, sha(r.body), file.Path)
		if key, ok := strings.CutPrefix(file.Path, "/files/"); ok {
			key, err := url.PathUnescape(key)
			require.NoError(t, err)
			stored, err := os.ReadFile(filepath.Join(data, "outputs", filepath.FromSlash(key)))
			require.NoError(t, err, file.Path)
			assert.True(t, bytes.Equal(stored, r.body), "%s is served as stored", file.Path)
		}
	}
	stop()

	// Phase 2: a node with a worker finishes what was left: the queued
	// render, the waiting job, the waiting nodes of the half-done run, and
	// the pending webhook.
	makeWebhooksDue(t, data, dbURL)
	hooks := listenFixedPort(t, f.WebhookPort)
	k, _ = startStoppable(t, upgradeConfig(t, &f, data, dbURL, 1))

	queued := f.named(f.Renders, "queued")
	var rec map[string]any
	require.Eventually(t, func() bool {
		rec = k.read(t, &f, queued.Org, "/api/render/"+queued.ID).json(t)
		return rec["status"] == "completed" || rec["status"] == "failed"
	}, 2*time.Minute, 100*time.Millisecond, "the queued render ends")
	require.Equal(t, "completed", rec["status"], "%v", rec)
	out := k.do(t, http.MethodGet, f.path(t, rec["outputUrl"]), nil)
	assert.Equal(t, http.StatusOK, out.status)
	assert.NotEmpty(t, out.body)

	waiting := f.named(f.Jobs, "waiting")
	job := waitJob(t, k, &f, waiting)
	require.Equal(t, "complete", job["status"], "%v", job)
	out = k.do(t, http.MethodGet, f.path(t, job["outputUrl"]), nil)
	assert.Equal(t, http.StatusOK, out.status)

	run := f.named(f.Runs, "half-done")
	require.Eventually(t, func() bool {
		r := k.read(t, &f, run.Org, "/pipelines/"+run.Pipeline+"/runs/"+run.ID)
		rec = r.json(t)["data"].(map[string]any)
		switch rec["status"] {
		case "complete", "failed", "cancelled":
			return true
		}
		return false
	}, 2*time.Minute, 100*time.Millisecond, "the half-done run ends")
	require.Equal(t, "complete", rec["status"], "%v", statuses(rec))
	for _, j := range rec["jobs"].([]any) {
		m := j.(map[string]any)
		out = k.do(t, http.MethodGet, f.path(t, m["outputUrl"]), nil)
		assert.Equal(t, http.StatusOK, out.status, "%s's output", m["pipelineNodeId"])
	}

	pending := f.named(f.Renders, "failed")
	var before map[string]any
	readJSON(t, filepath.Join(fix, "golden", "org-a_render_failed.json"), &before)
	attempts := before["webhookDelivery"].(map[string]any)["attempts"].(float64)
	require.Eventually(t, func() bool {
		rec = k.read(t, &f, pending.Org, "/api/render/"+pending.ID).json(t)
		d, _ := rec["webhookDelivery"].(map[string]any)
		if hooks != nil {
			return d["status"] == "delivered"
		}
		n, _ := d["attempts"].(float64)
		return n > attempts
	}, time.Minute, 100*time.Millisecond, "the pending webhook is attempted again")
	if hooks != nil {
		calls := hooks.waitCalls(t, 1)
		var payload map[string]any
		require.NoError(t, json.Unmarshal(calls[0].body, &payload))
		assert.Equal(t, pending.ID, payload["jobId"])
		assert.Equal(t, "failed", payload["status"])
		assert.Equal(t, attempts+1, rec["webhookDelivery"].(map[string]any)["attempts"], "one more attempt after the upgrade")
	} else {
		t.Logf("port %d is taken: checked only that the pending webhook was attempted again", f.WebhookPort)
	}

	// The workers left everything that had ended as it was.
	compareReads(t, k, &f, fix, reads, true)
}

// compareReads makes the reads (only the stable ones when stableOnly) and
// compares each with its golden.
func compareReads(t *testing.T, k *kino, f *upgradeFixture, fix string, reads []upgradeRead, stableOnly bool) {
	t.Helper()
	for _, rd := range reads {
		if stableOnly && !rd.Stable {
			continue
		}
		r := k.read(t, f, rd.Org, rd.Path)
		if !assert.Equal(t, rd.Status, r.status, "%s %s: %s", rd.Org, rd.Path, r.body) {
			continue
		}
		want, err := os.ReadFile(filepath.Join(fix, "golden", rd.Name+".json"))
		require.NoError(t, err)
		got := string(reindent(t, r.body))
		// The answers of the kino that wrote the fixtures had plain file
		// URLs; today every one is signed (keys are on), on purpose.
		// (Inputs an earlier kino stored as URLs stay as they were stored.)
		assert.GreaterOrEqual(t, len(signedQuery.FindAllString(got, -1)), strings.Count(string(want), `"outputUrl": "`+f.PublicURL+storage.FilesPath),
			"%s: every outputUrl is signed: %s", rd.Name, got)
		// A media job's output and error objects came after these
		// fixtures, beside the fields they kept: they are new, not changed.
		for _, added := range []string{"output", "error"} {
			if !strings.Contains(string(want), `"`+added+`": {`) {
				got = withoutObject(got, added)
			}
		}
		assert.Equal(t, string(want), signedQuery.ReplaceAllString(got, ""), "%s: %s %s", rd.Name, rd.Org, rd.Path)
	}
}

// withoutObject removes every member named key whose value is an object
// from indented JSON (reindent's form), keeping the rest as it is.
func withoutObject(indented, key string) string {
	lines := strings.Split(indented, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], " ")
		if trimmed != `"`+key+`": {` {
			out = append(out, lines[i])
			continue
		}
		indent := lines[i][:len(lines[i])-len(trimmed)]
		j := i + 1
		for j < len(lines) && lines[j] != indent+"}" && lines[j] != indent+"}," {
			j++
		}
		if j < len(lines) && lines[j] == indent+"}" && len(out) > 0 {
			out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], ",") // it was the last member
		}
		i = j
	}
	return strings.Join(out, "\n")
}

func waitJob(t *testing.T, k *kino, f *upgradeFixture, it upgradeItem) map[string]any {
	t.Helper()
	var rec map[string]any
	require.Eventually(t, func() bool {
		rec = k.read(t, f, it.Org, "/jobs/"+it.ID).json(t)["data"].(map[string]any)
		switch rec["status"] {
		case "complete", "failed", "cancelled":
			return true
		}
		return false
	}, 2*time.Minute, 100*time.Millisecond, "job %s ends", it.Name)
	return rec
}

// makeWebhooksDue brings the pending webhook, frozen until 2100 so that the
// reads of phase 1 find it as it was, due now. It is the one place this
// test writes to the database itself, through today's ent client.
func makeWebhooksDue(t *testing.T, data, dbURL string) {
	t.Helper()
	if dbURL == "" {
		dbURL = "sqlite://" + filepath.Join(data, "kino.db")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL)
	require.NoError(t, err)
	defer st.Close()
	n, err := st.WebhookDelivery.Update().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).
		SetNextAttemptAt(time.Now().UTC().Truncate(time.Microsecond)).Save(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the fixture holds one pending webhook")
}

// listenFixedPort receives webhooks on the fixture's fixed port, or
// returns nil when something else holds it.
func listenFixedPort(t *testing.T, port int) *hookReceiver {
	t.Helper()
	lis, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil
	}
	h := &hookReceiver{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.calls = append(h.calls, hookCall{header: r.Header.Clone(), body: b})
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { srv.Close() })
	return h
}

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	}))
}

// loadDump runs the dump in the schema that dbURL's search_path names.
func loadDump(t *testing.T, dbURL, path string) {
	t.Helper()
	dump, err := os.ReadFile(path)
	require.NoError(t, err)
	db, err := sql.Open("pgx", dbURL)
	require.NoError(t, err)
	defer db.Close()
	// Without arguments pgx sends the whole script in one simple-protocol
	// query, which may hold many statements.
	_, err = db.Exec(string(dump))
	require.NoError(t, err, "load %s", path)
}
