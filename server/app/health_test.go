package app_test

import (
	"context"
	"database/sql"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestHealthHidesDatabaseDetails: with PostgreSQL gone, health names the
// failed check and says nothing of the connection (user, database, address).
func TestHealthHidesDatabaseDetails(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	u, err := url.Parse(db.URL)
	require.NoError(t, err)
	proxy := startProxy(t, u.Host)
	u.Host = proxy.addr
	k := start(t, storetest.DB{Name: db.Name, URL: u.String()}, func(c *app.Config) { c.Workers = 0 })

	r := k.do(t, http.MethodGet, "/api/health", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)

	proxy.stop()
	// The first check finds its pooled connection cut, the second fails
	// to dial (the driver's message then names user, database and address).
	for range 2 {
		r = k.do(t, http.MethodGet, "/api/health", nil)
		require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
		m := r.json(t)
		assert.Equal(t, "unhealthy", m["status"])
		assert.Equal(t, map[string]any{"store": "unreachable: the database does not answer", "ffmpeg": "ok"}, m["checks"])
		for _, secret := range []string{"user=", "postgres", "127.0.0.1", proxy.addr, "dial", "connect"} {
			assert.NotContains(t, string(r.body), secret)
		}
	}
}

// TestHealthReadsTheStore: a SQLite file whose job table pages are corrupt
// still answers a ping; health reads the job table, so it answers 503
// naming the store instead of "healthy" while every request fails.
func TestHealthReadsTheStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "kino.db")
	db := storetest.DB{Name: "sqlite", URL: "sqlite://" + dbPath}
	useDir := func(c *app.Config) { c.DataDir, c.Workers = dir, 0 }

	first := start(t, db, useDir)
	for range 20 {
		first.submit(t, longComposition())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, first.app.Shutdown(ctx))
	corruptTable(t, dbPath, "jobs")

	k := start(t, db, useDir)
	r := k.do(t, http.MethodGet, "/api/render/x", nil)
	require.Equal(t, http.StatusInternalServerError, r.status, "the corruption breaks reads: %s", r.body)
	r = k.do(t, http.MethodGet, "/api/health", nil)
	require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
	m := r.json(t)
	assert.Equal(t, "unhealthy", m["status"])
	assert.Equal(t, "failing: the job tables could not be read", m["checks"].(map[string]any)["store"])
	assert.NotContains(t, string(r.body), dir)
}

// corruptTable overwrites the pages of a SQLite table and its indexes with
// garbage, leaving the schema (page 1) intact, so the file opens and pings.
func corruptTable(t *testing.T, path, table string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	require.NoError(t, err)
	var pageSize int64
	require.NoError(t, db.QueryRow("PRAGMA page_size").Scan(&pageSize))
	rows, err := db.Query("SELECT rootpage FROM sqlite_master WHERE tbl_name = ? AND rootpage > 1", table)
	require.NoError(t, err)
	var pages []int64
	for rows.Next() {
		var p int64
		require.NoError(t, rows.Scan(&p))
		pages = append(pages, p)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, db.Close())
	require.NotEmpty(t, pages)

	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	garbage := make([]byte, pageSize)
	for i := range garbage {
		garbage[i] = byte(i*7 + 13)
	}
	for _, p := range pages {
		_, err := f.WriteAt(garbage, (p-1)*pageSize)
		require.NoError(t, err)
	}
	require.NoError(t, f.Sync())
}

// proxy forwards TCP connections to a server until stopped; stopping closes
// every connection and the listener, as a database going away would.
type proxy struct {
	addr  string
	lis   net.Listener
	mu    sync.Mutex
	conns []net.Conn
	once  sync.Once
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{addr: lis.Addr().String(), lis: lis}
	t.Cleanup(p.stop)
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) stop() {
	p.once.Do(func() {
		p.lis.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
}
