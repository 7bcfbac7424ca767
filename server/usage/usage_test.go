package usage_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/usage"
)

func TestRange(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 17, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		from, to         string
		wantFrom, wantTo string
		bad              string
	}{
		{"", "", "2026-10-27", "2026-11-25", ""},
		{"2026-11-01", "", "2026-11-01", "2026-11-25", ""},
		{"", "2026-01-30", "2026-01-01", "2026-01-30", ""},
		{"2026-11-25", "2026-11-25", "2026-11-25", "2026-11-25", ""},
		{"2025-01-01", "2025-12-31", "2025-01-01", "2025-12-31", ""},
		{"2024-01-01", "2025-01-01", "", "", "from: the range"},
		{"2026-11-26", "2026-11-25", "", "", "from: 2026-11-26 is after to"},
		{"1732550400000", "", "", "", "from: \"1732550400000\" is not a day"},
		{"", "2026-13-01", "", "", "to: \"2026-13-01\" is not a day"},
	} {
		from, to, err := usage.Range(tc.from, tc.to, now)
		if tc.bad != "" {
			var e *apierr.Error
			require.ErrorAs(t, err, &e, "%q..%q", tc.from, tc.to)
			assert.Equal(t, apierr.Validation, e.Code)
			assert.Contains(t, e.Error(), tc.bad)
			continue
		}
		require.NoError(t, err, "%q..%q", tc.from, tc.to)
		assert.Equal(t, tc.wantFrom, from)
		assert.Equal(t, tc.wantTo, to)
	}
}
