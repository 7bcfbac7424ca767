package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"

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

// MaxHeaders bounds the extra headers of one job's webhook.
const MaxHeaders = 10

// maxHeaderValue bounds one extra header's value.
const maxHeaderValue = 4096

// reserved are the headers kino sets on every delivery, which a job's
// extra headers may not set.
//
//nolint:gochecknoglobals // read-only table: the headers a webhook may not set
var reserved = []string{"content-type", "content-length", "content-encoding", "host", "user-agent", "connection",
	"transfer-encoding", "traceparent", "tracestate", "expect", "te", "trailer", "upgrade"}

// CheckHeaders refuses, as a VALIDATION_ERROR naming field, extra request
// headers a job asked for that kino will not send: too many, a name that
// is not an HTTP token or is one of kino's own (webhook-*, content-type…),
// a value with a line break or too long.
func CheckHeaders(field string, h map[string]string) error {
	if len(h) > MaxHeaders {
		return apierr.New(apierr.Validation, "%s: at most %d headers", field, MaxHeaders)
	}
	for name, v := range h {
		lower := strings.ToLower(name)
		switch {
		case name == "" || strings.IndexFunc(name, func(r rune) bool { return !isTokenRune(r) }) >= 0:
			return apierr.New(apierr.Validation, "%s: %q is not a header name", field, name)
		case strings.HasPrefix(lower, "webhook-") || slices.Contains(reserved, lower):
			return apierr.New(apierr.Validation, "%s.%s: kino sets this header itself; name yours otherwise", field, name)
		case len(v) > maxHeaderValue:
			return apierr.New(apierr.Validation, "%s.%s: at most %d characters", field, name, maxHeaderValue)
		case strings.ContainsAny(v, "\r\n\x00"):
			return apierr.New(apierr.Validation, "%s.%s: a header value cannot hold a line break", field, name)
		}
	}
	return nil
}

// isTokenRune reports whether r may appear in an HTTP header name.
func isTokenRune(r rune) bool {
	return r < 0x7f && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
}
