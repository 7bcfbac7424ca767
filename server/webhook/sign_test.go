package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/webhook"
)

// The example of the Standard Webhooks specification and its reference
// libraries.
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specTimestamp = 1614265330
	specBody      = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignMatchesTheStandardWebhooksExample(t *testing.T) {
	t.Parallel()
	sig, err := webhook.Sign(specSecret, specID, specTimestamp, []byte(specBody))
	require.NoError(t, err)
	assert.Equal(t, specSignature, sig)
}

func TestSignWithARawSecretUsesItsBytes(t *testing.T) {
	t.Parallel()
	mac := hmac.New(sha256.New, []byte("not-a-whsec-secret"))
	mac.Write([]byte(specID + ".1614265330." + specBody))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	sig, err := webhook.Sign("not-a-whsec-secret", specID, specTimestamp, []byte(specBody))
	require.NoError(t, err)
	assert.Equal(t, want, sig)
}

func TestSignRefusesABadWhsecSecret(t *testing.T) {
	t.Parallel()
	for _, secret := range []string{"whsec_not base64!", "whsec_"} {
		_, err := webhook.Sign(secret, specID, specTimestamp, []byte(specBody))
		require.Error(t, err, secret)
		assert.NotContains(t, err.Error(), "not base64!", "the error does not quote the secret")
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	at := time.Unix(specTimestamp, 0)
	headers := func(id, ts, sig string) http.Header {
		h := http.Header{}
		for k, v := range map[string]string{"webhook-id": id, "webhook-timestamp": ts, "webhook-signature": sig} {
			if v != "" {
				h.Set(k, v)
			}
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		secret string
		h      http.Header
		body   string
		now    time.Time
		ok     bool
	}{
		{"the example", specSecret, headers(specID, "1614265330", specSignature), specBody, at, true},
		{"one of several signatures", specSecret, headers(specID, "1614265330", "v1,bm9ub3NlbnNl "+specSignature+" v2,other"), specBody, at, true},
		{"within the tolerance, late", specSecret, headers(specID, "1614265330", specSignature), specBody, at.Add(time.Minute), true},
		{"within the tolerance, early", specSecret, headers(specID, "1614265330", specSignature), specBody, at.Add(-time.Minute), true},
		{"tampered body", specSecret, headers(specID, "1614265330", specSignature), `{"test": 2432232315}`, at, false},
		{"another id", specSecret, headers("msg_other", "1614265330", specSignature), specBody, at, false},
		{"another timestamp", specSecret, headers(specID, "1614265331", specSignature), specBody, at, false},
		{"another secret", "whsec_" + base64.StdEncoding.EncodeToString([]byte("another key")), headers(specID, "1614265330", specSignature), specBody, at, false},
		{"replayed later", specSecret, headers(specID, "1614265330", specSignature), specBody, at.Add(6 * time.Minute), false},
		{"from the future", specSecret, headers(specID, "1614265330", specSignature), specBody, at.Add(-6 * time.Minute), false},
		{"timestamp not a number", specSecret, headers(specID, "soon", specSignature), specBody, at, false},
		{"no signature", specSecret, headers(specID, "1614265330", ""), specBody, at, false},
		{"no id", specSecret, headers("", "1614265330", specSignature), specBody, at, false},
		{"signature without version", specSecret, headers(specID, "1614265330", specSignature[3:]), specBody, at, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// tolerance 0 means DefaultTolerance, 5 minutes.
			err := webhook.Verify(tc.secret, tc.h, []byte(tc.body), tc.now, 0)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}
