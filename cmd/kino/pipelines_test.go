package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

// TestDefinitionIgnoresEmptyParams: a node's "params": {} in a file and
// the params a stored pipeline reads back without are one definition; any
// other difference is another.
func TestDefinitionIgnoresEmptyParams(t *testing.T) {
	t.Parallel()
	read := func(s string) *mediav1.CreatePipelineRequest {
		req := &mediav1.CreatePipelineRequest{}
		assert.NoError(t, protojson.Unmarshal([]byte(s), req))
		return req
	}
	file := read(`{"name":"p","nodes":[{"id":"a","jobType":"audio.extract","params":{}}]}`)
	stored := read(`{"name":"p","nodes":[{"id":"a","jobType":"audio.extract"}]}`)
	assert.False(t, proto.Equal(file, stored))
	assert.True(t, proto.Equal(definition(file), definition(stored)))
	assert.NotNil(t, file.GetNodes()[0].GetParams(), "the request itself is left as it is")
	other := read(`{"name":"p","nodes":[{"id":"a","jobType":"audio.extract","params":{"format":"mp3"}}]}`)
	assert.False(t, proto.Equal(definition(file), definition(other)))
}
