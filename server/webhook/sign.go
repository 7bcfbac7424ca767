package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is how far a webhook-timestamp may be from the
// receiver's clock, as the Standard Webhooks libraries do; Verify uses it
// when given no tolerance.
const DefaultTolerance = 5 * time.Minute

// secretKey is the HMAC key of a secret: a Standard Webhooks secret
// ("whsec_" and base64) gives its decoded bytes, any other string its own
// bytes.
func secretKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		// The error would quote the secret's bytes; say where instead.
		return nil, errors.New("webhook secret: the part after whsec_ is not standard base64")
	}
	if len(key) == 0 {
		return nil, errors.New("webhook secret: nothing follows whsec_")
	}
	return key, nil
}

// sign is Sign with the key already decoded.
func sign(key []byte, msgID string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Sign returns the webhook-signature header of the Standard Webhooks scheme
// for one message: "v1," and the base64 HMAC-SHA256 of
// msgID + "." + timestamp + "." + body, keyed by the secret (see Config.Secret).
// It fails only when a whsec_ secret is not base64.
func Sign(secret, msgID string, timestamp int64, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	return sign(key, msgID, timestamp, body), nil
}

// Verify checks a delivery as a receiver should, given its headers and its
// raw body: webhook-id, webhook-timestamp and webhook-signature are present,
// the timestamp is within tolerance of now (so a captured delivery cannot be
// replayed later; DefaultTolerance when tolerance is 0), and one of the
// space-separated signatures matches, compared in constant time. Several
// signatures appear while a secret is being rotated.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("verify webhook: the webhook-id, webhook-timestamp and webhook-signature headers are required")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("verify webhook: webhook-timestamp %q is not a number of seconds", ts)
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("verify webhook: webhook-timestamp %s is more than %s from now", ts, tolerance)
	}
	key, err := secretKey(secret)
	if err != nil {
		return fmt.Errorf("verify webhook: %w", err)
	}
	want := []byte(sign(key, id, sec, body))
	for _, sig := range strings.Fields(sigs) {
		if hmac.Equal([]byte(sig), want) {
			return nil
		}
	}
	return errors.New("verify webhook: no signature matches")
}
