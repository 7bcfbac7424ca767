package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// secretKey is the HMAC key of a secret: a Standard Webhooks secret
// ("whsec_" and base64) gives its decoded bytes, any other string its own bytes.
func secretKey(secret string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		key, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return nil, fmt.Errorf("webhook secret: the part after whsec_ is not base64: %w", err)
		}
		return key, nil
	}
	return []byte(secret), nil
}

// Sign computes the webhook-signature header of the Standard Webhooks
// scheme: "v1," and the base64 HMAC-SHA256 of "msgID.timestamp.body".
func Sign(secret, msgID string, timestamp int64, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", msgID, timestamp)
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Verify checks a delivery as a receiver should: the timestamp is within
// tolerance of now (against replays), and one of the space-separated
// signatures matches, compared in constant time.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("webhook-id, webhook-timestamp and webhook-signature are required")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook-timestamp %q is not a number", ts)
	}
	if math.Abs(now.Sub(time.Unix(sec, 0)).Seconds()) > tolerance.Seconds() {
		return fmt.Errorf("webhook-timestamp %s is more than %s from now", ts, tolerance)
	}
	want, err := Sign(secret, id, sec, body)
	if err != nil {
		return err
	}
	for _, sig := range strings.Fields(sigs) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no signature matches")
}
