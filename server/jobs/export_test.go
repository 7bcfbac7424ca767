package jobs

import "github.com/kinohq/kino/server/store"

// StoreOf is the store c keeps its jobs in, for tests that check rows the
// read API does not show (leases, say).
func StoreOf(c *Client) *store.Store { return c.st }
