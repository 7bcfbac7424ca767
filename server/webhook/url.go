package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"net/url"

	"github.com/kinohq/kino/server/apierr"
)

// MaxURL bounds a webhook URL, as the render API does.
const MaxURL = 2048

// CheckURL refuses, as a VALIDATION_ERROR naming field, a webhook URL that
// is not an absolute http(s) URL or that kino could never call: check is
// fetch.Client.CheckHost (private, loopback and link-local hosts written
// out, unless private networks are allowed); nil checks no host.
func CheckURL(field, raw string, check func(string) error) error {
	if len(raw) > MaxURL {
		return apierr.New(apierr.Validation, "%s: must be at most %d characters", field, MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return apierr.New(apierr.Validation, "%s: must be an absolute http or https URL", field)
	}
	if check != nil {
		if err := check(raw); err != nil {
			return apierr.New(apierr.Validation, "%s: %v", field, err)
		}
	}
	return nil
}

// NewSecret is a new signing secret in the Standard Webhooks form:
// "whsec_" and the base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}
