package app_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
)

// A start that fails after its listeners are open (here on a working
// folder that cannot be made: a file is in its way) closes them: the next
// start on the same addresses can listen.
func TestFailedStartClosesItsListeners(t *testing.T) {
	t.Parallel()
	httpAddr, grpcAddr, metricsAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	dataDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dataDir, "tmp"), nil, 0o644))
	_, err := app.Start(context.Background(), app.Config{
		HTTPAddr: httpAddr, GRPCAddr: grpcAddr, MetricsAddr: metricsAddr,
		DataDir: dataDir, Log: testLogger(t),
	})
	require.Error(t, err)
	for _, addr := range []string{httpAddr, grpcAddr, metricsAddr} {
		lis, err := net.Listen("tcp", addr)
		require.NoError(t, err, "%s is still held by the failed start", addr)
		lis.Close()
	}
}
