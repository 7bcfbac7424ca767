package renderrun

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPartShare: a part may write twice its share of --max-output-size,
// never more than the whole limit; without a limit, none.
func TestPartShare(t *testing.T) {
	t.Parallel()
	assert.EqualValues(t, 200, partShare(1000, 10, 100))
	assert.EqualValues(t, 1000, partShare(1000, 90, 100))
	assert.EqualValues(t, 0, partShare(0, 10, 100))
}
