// Package redact takes credentials out of URLs before kino writes them where
// operators, not their owners, read: spans, log lines and metrics. A client's
// URL may be a credential: a signed URL carries it in its query, a webhook
// URL (Slack's, Discord's) in its path, any URL in its user info. The client
// itself is still told the URL as given; only what kino keeps for itself is
// redacted.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Mark replaces what was taken out.
const Mark = "REDACTED"

// URL is u without user info or fragment, and with every query value
// replaced by Mark.
func URL(u *url.URL) string {
	r := *u
	r.User = nil
	r.Fragment, r.RawFragment = "", ""
	if r.RawQuery != "" || r.ForceQuery {
		q, err := url.ParseQuery(r.RawQuery)
		if err != nil && len(q) == 0 {
			// A query that does not parse is dropped whole.
			q = url.Values{Mark: nil}
		}
		for k := range q {
			q[k] = []string{Mark}
		}
		r.RawQuery = q.Encode()
	}
	return r.String()
}

// Origin is u's scheme and host with the path replaced by Mark: for URLs
// that are credentials as a whole, such as webhook URLs.
func Origin(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/" + Mark}).String()
}

// RawURL is URL of rawURL; a string that does not parse as a URL is
// replaced whole.
func RawURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(not a valid URL)"
	}
	return URL(u)
}

// inText finds URLs in free text: a scheme, "://", and everything up to
// white space or a quote.
var inText = regexp.MustCompile("(?i)\\b[a-z][a-z0-9+.-]*://[^\\s\"'<>`]+")

// Text is s with every URL in it redacted as URL does: error messages and
// log lines quote the URLs they are about.
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return inText.ReplaceAllStringFunc(s, func(m string) string {
		// Punctuation that ends a sentence is not part of the URL: "fetch
		// https://a/b?t=x: the server answered 404".
		trimmed := strings.TrimRight(m, ".,;:!?)]}")
		rest := m[len(trimmed):]
		u, err := url.Parse(trimmed)
		if err != nil {
			// Keep what comes before the parts that may hold a credential.
			cut := trimmed
			if i := strings.IndexAny(cut, "?#"); i >= 0 {
				cut = cut[:i]
			}
			if i := strings.Index(cut, "@"); i >= 0 {
				cut = cut[:strings.Index(cut, "://")+3] + cut[i+1:]
			}
			return cut + rest
		}
		return URL(u) + rest
	})
}

// Error is err with Text of its message; errors.Is and errors.As still
// reach err. Nil stays nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := Text(msg); red != msg {
		return redacted{msg: red, err: err}
	}
	return err
}

type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }
