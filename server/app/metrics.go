package app

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/store"
)

// metricsQueryTimeout caps the database reads of one scrape, well inside
// Prometheus' default scrape timeout of 10 s.
const metricsQueryTimeout = 5 * time.Second

// newMetrics returns the process's collectors, with the database's figures
// of every kind and type of job registered beside them.
func newMetrics(st *store.Store, log *slog.Logger) (*metrics.Metrics, error) {
	m := metrics.New()
	known := []jobs.KindType{{Kind: renderjob.Kind, Type: renderjob.Kind}}
	for _, t := range catalog.All() {
		known = append(known, jobs.KindType{Kind: mediajob.Kind, Type: t.Name})
	}
	for _, kt := range known {
		m.Declare(kt.Kind, kt.Type)
	}
	if err := m.Register(jobs.NewCollector(st, known, metricsQueryTimeout, log)); err != nil {
		return nil, fmt.Errorf("register job metrics: %w", err)
	}
	return m, nil
}

// countEnded counts each job this process ends, for jobs.Client.OnFinal.
func countEnded(m *metrics.Metrics) func(*jobs.Job) {
	return func(j *jobs.Job) { m.JobEnded(j.Kind, j.Type, string(j.State)) }
}

// namedOrgs says which organisations get a label of their own in the
// per-organisation metrics: those the operator named, in --orgs-file or
// --api-keys (and the single organisation of a kino without keys). Any
// other is "other", so a client cannot grow the labels by itself.
func namedOrgs(cfg Config) func(string) bool {
	keyed := map[string]bool{auth.DefaultOrg: len(cfg.APIKeys) == 0}
	for _, o := range cfg.APIKeys {
		keyed[o] = true
	}
	return func(o string) bool {
		return keyed[o] || (cfg.Orgs != nil && slices.Contains(cfg.Orgs.Listed(), o))
	}
}

// serveMetrics serves GET /metrics on its own listener: apart from the
// public gateway, so that it can stay on a private address.
func serveMetrics(lis net.Listener, m *metrics.Metrics, cfg Config) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler(cfg.Log))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: cfg.HTTPHeaderTimeout, IdleTimeout: cfg.HTTPIdleTimeout}
	go func() {
		if err := srv.Serve(lis); err != nil && err != http.ErrServerClosed {
			cfg.Log.Error("metrics server stopped", "err", err)
		}
	}()
	return srv
}
