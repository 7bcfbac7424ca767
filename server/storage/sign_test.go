package storage

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSignerChecks(t *testing.T) {
	t.Parallel()
	s := NewSigner([]byte("a secret of the test"))
	now := time.Unix(1_700_000_000, 0)
	q, err := url.ParseQuery(s.Query("renders/a.mp4", now.Add(time.Hour)))
	require.NoError(t, err)

	assert.NoError(t, s.Check("renders/a.mp4", q, now))
	assert.NoError(t, s.Check("renders/a.mp4", q, now.Add(time.Hour)), "valid up to its expiry")
	assert.ErrorIs(t, s.Check("renders/a.mp4", q, now.Add(time.Hour+time.Second)), ErrExpired)
	assert.ErrorIs(t, s.Check("renders/b.mp4", q, now), ErrBadSig, "a signature is for one key")
	assert.ErrorIs(t, s.Check("renders/a.mp4", url.Values{}, now), ErrUnsigned)

	longer := url.Values{ExpiresParam: {"1800000000"}, SignatureParam: q[SignatureParam]}
	assert.ErrorIs(t, s.Check("renders/a.mp4", longer, now), ErrBadSig, "the expiry is signed too")
	other := NewSigner([]byte("another node's secret"))
	assert.ErrorIs(t, other.Check("renders/a.mp4", q, now), ErrBadSig)
	assert.Nil(t, NewSigner(nil))
}
