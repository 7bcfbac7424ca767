package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestHash(t *testing.T) {
	t.Parallel()
	m, err := structpb.NewStruct(map[string]any{"b": 1, "a": []any{"x", 2}})
	require.NoError(t, err)
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	require.NoError(t, err)
	sum := sha256.Sum256(b)

	plain, err := Hash("", m)
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(sum[:]), plain, "renders' hashes stay those stored before ops")
	job, _ := Hash("jobs.create", m)
	run, _ := Hash("pipelines.run", m)
	assert.NotEqual(t, job, run, "one body, two kinds of submit")
	again, _ := Hash("jobs.create", m)
	assert.Equal(t, job, again)
}
