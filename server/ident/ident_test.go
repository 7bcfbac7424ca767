package ident

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNewIsRecognised(t *testing.T) {
	t.Parallel()
	id := New(Asset)
	assert.True(t, strings.HasPrefix(id, "ast_"), id)
	assert.Len(t, id, len("ast_")+32)
	assert.True(t, IsAsset(id), id)
	assert.False(t, IsAsset(New(Job)), "a job id is no asset id")
	assert.Less(t, New(Job), New(Job), "ids of one kind sort by creation")
}

func TestIsAsset(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"ast_0123abcd":                   true,
		"ast_0":                          true,
		"ast_":                           false,
		"ast_XYZ":                        false,
		"ast_0123ABCD":                   false,
		"ast_missing":                    false,
		"ast_" + strings.Repeat("a", 64): true,
		"ast_" + strings.Repeat("a", 65): false,
		"https://x.test/ast_00":          false,
		"upl_0123":                       false,
		"":                               false,
	} {
		assert.Equal(t, want, IsAsset(s), "%q", s)
	}
}
