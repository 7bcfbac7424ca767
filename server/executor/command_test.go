package executor

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kinohq/kino/server/catalog"
)

func TestEveryOutputFormatHasAMuxer(t *testing.T) {
	t.Parallel()
	assert.Len(t, commandFormats, len(catalog.OutputFormats))
	for _, f := range catalog.OutputFormats {
		assert.NotEmpty(t, commandFormats[f].muxer, f)
		assert.NotEmpty(t, commandFormats[f].contentType, f)
	}
}
