package events

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// sep joins the lines of a payload: the sender's origin, then topics.
	// Job ids (UUIDs) and Work never hold it.
	sep = "\n"
	// maxPayload is the longest NOTIFY payload PostgreSQL accepts (it must
	// be shorter than 8000 bytes).
	maxPayload = 7999
	// maxIdent is the longest identifier, so the longest channel name.
	maxIdent = 63

	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
	// quietCheck is how long the listener waits without a notification
	// before it pings its connection.
	quietCheck  = 30 * time.Second
	pingTimeout = 5 * time.Second
	dialTimeout = 10 * time.Second
	sendTimeout = 5 * time.Second
)

// Postgres is a Bus shared by every node on one PostgreSQL database and
// schema, through LISTEN/NOTIFY. Subscribers of this process are signalled
// at once; other nodes' when the notification reaches them.
type Postgres struct {
	local   *Local
	dsn     string
	channel string
	// origin starts every payload this bus sends, so that it skips its own
	// notifications when they come back: its subscribers already had them.
	origin string
	pool   *pgxpool.Pool
	log    *slog.Logger

	mu      sync.Mutex
	pending map[string]struct{}
	closed  bool
	kick    chan struct{}
	quit    chan struct{}

	// pid is the listening connection's backend, for tests that kill it.
	pid atomic.Uint32

	stopListening context.CancelFunc
	wg            sync.WaitGroup
	closeOnce     sync.Once
}

// NewPostgres connects to dsn and listens on the channel of its
// search_path (the dsn's search_path parameter): nodes on one schema wake
// each other, nodes on other schemas of the same server do not. ctx bounds
// the first connection only.
func NewPostgres(ctx context.Context, dsn string, log *slog.Logger) (*Postgres, error) {
	if log == nil {
		log = slog.Default()
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse events database url: %w", err)
	}
	poolCfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse events database url: %w", err)
	}
	// One sender goroutine sends every notification.
	poolCfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return nil, fmt.Errorf("open events pool: %w", err)
	}
	// Connected now, the first publish does not wait for a new backend.
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect events sender: %w", err)
	}
	p := &Postgres{
		local:   NewLocal(),
		dsn:     dsn,
		channel: channelFor(cfg.RuntimeParams["search_path"]),
		origin:  rand.Text()[:12],
		pool:    pool,
		log:     log,
		pending: make(map[string]struct{}),
		kick:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
	}
	conn, err := p.listen(ctx)
	if err != nil {
		pool.Close()
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	p.stopListening = cancel
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		p.listenLoop(lctx, conn)
	}()
	go func() {
		defer p.wg.Done()
		p.sendLoop()
	}()
	return p, nil
}

// channelFor names the channel of the nodes on searchPath: the schema
// itself when it is a plain name short enough, else a hash of it.
func channelFor(searchPath string) string {
	const base = "kino_events"
	if searchPath == "" {
		return base
	}
	if plain(searchPath) && len(base)+1+len(searchPath) <= maxIdent {
		return base + "_" + searchPath
	}
	sum := sha256.Sum256([]byte(searchPath))
	return base + "_" + hex.EncodeToString(sum[:12])
}

func plain(s string) bool {
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// Subscribe implements Bus.
func (p *Postgres) Subscribe(topics ...string) (<-chan struct{}, func()) {
	return p.local.Subscribe(topics...)
}

// Publish implements Bus: this process's subscribers at once, other nodes'
// through a NOTIFY sent in the background, so the caller never waits on
// the database.
func (p *Postgres) Publish(topics ...string) {
	p.local.Publish(topics...)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	for _, t := range topics {
		p.pending[t] = struct{}{}
	}
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// Close stops listening, sends what is still pending (briefly) and closes
// the connections.
func (p *Postgres) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.stopListening()
		close(p.quit)
		p.wg.Wait()
		p.pool.Close()
	})
	return nil
}

// listenerPID is the backend of the listening connection.
func (p *Postgres) listenerPID() uint32 { return p.pid.Load() }

func (p *Postgres) listen(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.dsn)
	if err != nil {
		return nil, fmt.Errorf("connect events listener: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{p.channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("listen on %s: %w", p.channel, err)
	}
	p.pid.Store(conn.PgConn().PID())
	return conn, nil
}

// listenLoop delivers notifications until ctx ends, reconnecting whenever
// the connection is lost.
func (p *Postgres) listenLoop(ctx context.Context, conn *pgx.Conn) {
	for {
		err := p.wait(ctx, conn)
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(closeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		p.log.Warn("events listener lost its connection; reconnecting", "err", err)
		if conn = p.reconnect(ctx); conn == nil {
			return
		}
		// Notifications sent while nobody listened are gone: every
		// watcher re-reads what it follows, every idle worker looks for work.
		p.local.signalAll()
		p.log.Info("events listener reconnected")
	}
}

// reconnect tries until it listens again, or returns nil when ctx ends.
func (p *Postgres) reconnect(ctx context.Context) *pgx.Conn {
	backoff := minBackoff
	for {
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		conn, err := p.listen(ctx)
		if err == nil {
			return conn
		}
		if ctx.Err() != nil {
			return nil
		}
		p.log.Warn("events listener could not reconnect", "err", err, "retry_in", backoff)
		backoff = min(2*backoff, maxBackoff)
	}
}

// wait delivers notifications until the connection fails or ctx ends.
func (p *Postgres) wait(ctx context.Context, conn *pgx.Conn) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, quietCheck)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			p.deliver(n.Payload)
		case ctx.Err() != nil:
			return ctx.Err()
		case pgconn.Timeout(err):
			// A connection that died without a word (a lost route, a
			// failover behind a proxy) would stay silent forever.
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("ping: %w", err)
			}
		default:
			return err
		}
	}
}

func (p *Postgres) deliver(payload string) {
	lines := strings.Split(payload, sep)
	if len(lines) < 2 || lines[0] == p.origin {
		return
	}
	p.local.Publish(lines[1:]...)
}

func (p *Postgres) sendLoop() {
	for {
		select {
		case <-p.kick:
			p.flush()
		case <-p.quit:
			// What was published just before Close (jobs handed back at
			// shutdown) still reaches the other nodes.
			p.flush()
			return
		}
	}
}

// flush sends the pending topics; a NOTIFY that fails is logged and
// dropped.
func (p *Postgres) flush() {
	p.mu.Lock()
	topics := make([]string, 0, len(p.pending))
	for t := range p.pending {
		topics = append(topics, t)
	}
	clear(p.pending)
	p.mu.Unlock()
	payloads, dropped := payloads(p.origin, topics)
	if len(dropped) > 0 {
		p.log.Error("events topics that cannot be sent", "topics", dropped)
	}
	for _, payload := range payloads {
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
		_, err := p.pool.Exec(ctx, "SELECT pg_notify($1, $2)", p.channel, payload)
		cancel()
		if err != nil {
			p.log.Warn("publish events to other nodes", "err", err, "bytes", len(payload))
		}
	}
}

// payloads packs topics into as few payloads as fit, each starting with
// origin. Topics that hold sep or could never fit are returned as dropped.
func payloads(origin string, topics []string) (out, dropped []string) {
	var b strings.Builder
	for _, t := range topics {
		if t == "" || strings.Contains(t, sep) || len(origin)+len(sep)+len(t) > maxPayload {
			dropped = append(dropped, t)
			continue
		}
		if b.Len() > 0 && b.Len()+len(sep)+len(t) > maxPayload {
			out = append(out, b.String())
			b.Reset()
		}
		if b.Len() == 0 {
			b.WriteString(origin)
		}
		b.WriteString(sep)
		b.WriteString(t)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out, dropped
}
