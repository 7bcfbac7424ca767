package fetch

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// CheckHost refuses, before any request, a URL whose host is a literal
// address kino would refuse to connect to (in any of the forms a C
// library reads: 127.1, 0x7f000001, 2130706433, 0177.0.0.1, [::ffff:127.0.0.1]),
// or a localhost name, unless private networks are allowed. It catches at
// submit what would otherwise fail only at delivery (a webhook to
// 127.0.0.1); names that resolve to such addresses are still refused by
// the dialer when a request is made, since a name may resolve differently
// by then.
func (c *Client) CheckHost(rawURL string) error {
	if c.opts.AllowPrivate {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return &Error{Kind: BadURL, Err: err}
	}
	addr, ok := literal(u.Hostname())
	if !ok {
		return nil // a name: judged when it is resolved
	}
	if r := refusal(addr); r != "" {
		return blockedError(addr, r)
	}
	return nil
}

// literal reads a host that names an address without DNS: an IP literal,
// one of the older IPv4 forms inet_aton reads (which a resolver would
// otherwise be asked about, fail, and look like a passing network fault),
// or a localhost name (RFC 6761: always the loopback address). A trailing
// dot is ignored.
func literal(host string) (netip.Addr, bool) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return netip.AddrFrom4([4]byte{127, 0, 0, 1}), true
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return addr, true
	}
	return inetAton(host)
}

// inetAton reads an IPv4 address as inet_aton does: one to four parts,
// each decimal, octal (a leading 0) or hexadecimal (0x); the last part
// fills the bytes the others leave (127.1 is 127.0.0.1, 2130706433 is
// 127.0.0.1).
func inetAton(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			base, p = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		if p == "" && base != 8 {
			return netip.Addr{}, false
		}
		n := uint64(0)
		if p != "" {
			var err error
			if n, err = strconv.ParseUint(p, base, 32); err != nil {
				return netip.Addr{}, false
			}
		}
		last := i == len(parts)-1
		if !last {
			if n > 255 {
				return netip.Addr{}, false
			}
			v = v<<8 | n
			continue
		}
		width := uint(8 * (4 - i))
		if n >= 1<<width {
			return netip.Addr{}, false
		}
		v = v<<width | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// literalGuard runs the dialer's check on a host that names an address
// without DNS, before any connection or lookup: the dialer's guard sees
// only what a resolver returned, and a resolver asked about 127.1 or
// localhost. fails, which reads as a network fault worth retrying rather
// than the refusal it is. Redirects pass through it too.
type literalGuard struct {
	next  http.RoundTripper
	check func(netip.AddrPort) error
}

func (g *literalGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if addr, ok := literal(req.URL.Hostname()); ok {
		port, err := strconv.ParseUint(req.URL.Port(), 10, 16)
		if err != nil {
			port = 80
			if req.URL.Scheme == "https" {
				port = 443
			}
		}
		if err := g.check(netip.AddrPortFrom(addr, uint16(port))); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
	}
	return g.next.RoundTrip(req)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transport through the wrapper.
func (g *literalGuard) CloseIdleConnections() {
	if c, ok := g.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
