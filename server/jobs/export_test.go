package jobs

import (
	"time"

	"github.com/kinohq/kino/server/store"
)

// StoreOf is the store c keeps its jobs in, for tests that check rows the
// read API does not show (leases, say).
func StoreOf(c *Client) *store.Store { return c.st }

// RenewEvery sets how often p renews the leases of its running jobs, for
// tests that must tell a change heard on the bus from one a renewal found.
func RenewEvery(p *Pool, d time.Duration) { p.renewEvery = d }
