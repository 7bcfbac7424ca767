package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestSharedSecret: every call reads the one secret; a second node's
// insert that conflicts is no error, and an insert that fails for any
// other reason is reported as what it is.
func TestSharedSecret(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.URL)
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		first, err := st.SharedSecret(ctx, "a")
		require.NoError(t, err)
		again, err := st.SharedSecret(ctx, "a")
		require.NoError(t, err)
		assert.Equal(t, first, again)

		// NOT VALID: the rows already there (secret a) are not checked,
		// every insert after is.
		_, err = st.DB().ExecContext(ctx, "ALTER TABLE settings ADD CONSTRAINT value_short CHECK (length(value) < 8) NOT VALID")
		if err != nil {
			// SQLite cannot add a constraint: a trigger refuses instead.
			_, err = st.DB().ExecContext(ctx, "CREATE TRIGGER refuse BEFORE INSERT ON settings BEGIN SELECT RAISE(ABORT, 'value_short'); END")
		}
		require.NoError(t, err)
		_, err = st.SharedSecret(ctx, "b")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "store secret b")
		assert.Contains(t, err.Error(), "value_short", "the insert's own failure is reported")
	})
}
