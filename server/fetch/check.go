package fetch

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// CheckHost refuses, before any request, a URL whose host is a literal
// address kino would refuse to connect to, or a localhost name, unless
// private networks are allowed. It catches at submit what would otherwise
// fail only at delivery (a webhook to 127.0.0.1); names that resolve to
// such addresses are still refused by the dialer when a request is made,
// since a name may resolve differently by then.
func (c *Client) CheckHost(rawURL string) error {
	if c.opts.AllowPrivate {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return &Error{Kind: BadURL, Err: err}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return &Error{Kind: Blocked, Err: fmt.Errorf(
			"%s is the local machine; kino refuses private, loopback and link-local addresses unless --allow-private-networks is set", host)}
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return nil // a name: judged when it is resolved
	}
	if r := refusal(addr); r != "" {
		return blockedError(addr, r)
	}
	return nil
}
