package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSizeFlagsReadUnits: size flags take the units people write, in
// either system, and kino starts with them.
func TestSizeFlagsReadUnits(t *testing.T) {
	t.Parallel()
	p := serveKino(t, t.TempDir(), "", "--max-output-size", "50MB", "--source-cache-size", "500M",
		"--max-body-bytes", "2MB", "--max-upload-bytes", "1.5GiB", "--max-asset-bytes", "4GiB", "--min-free-disk", "1GB")
	resp, err := http.Get(p.base + "/api/health")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
