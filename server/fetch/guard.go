package fetch

import (
	"fmt"
	"net/netip"
	"syscall"
)

// addrRange is a block of addresses a default kino never connects to, with
// the word a user reads in the refusal.
type addrRange struct {
	prefix netip.Prefix
	reason string
}

// refused lists the ranges that are not public unicast: a URL in a request
// must not become a way into the network kino runs in (cloud metadata at
// 169.254.169.254, an admin port on localhost, a database on 10.x). The more
// specific ranges come first, so that :: reads "unspecified" rather than
// "IPv4-compatible".
//
//nolint:gochecknoglobals // read-only table: the address ranges a fetch refuses
var refused = []addrRange{
	{netip.MustParsePrefix("0.0.0.0/32"), "unspecified"},
	{netip.MustParsePrefix("0.0.0.0/8"), `reserved ("this network")`},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT (shared address space)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved (IETF protocol assignments)"},
	{netip.MustParsePrefix("192.0.2.0/24"), "reserved (documentation)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved (benchmarking)"},
	{netip.MustParsePrefix("198.51.100.0/24"), "reserved (documentation)"},
	{netip.MustParsePrefix("203.0.113.0/24"), "reserved (documentation)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (class E and broadcast)"},

	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	// Deprecated IPv4-compatible addresses (::a.b.c.d): nothing public
	// lives there, and some stacks route them to the embedded IPv4 address.
	{netip.MustParsePrefix("::/96"), "reserved (IPv4-compatible)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "private (local-use NAT64)"},
	{netip.MustParsePrefix("100::/64"), "reserved (discard-only)"},
	{netip.MustParsePrefix("2001:db8::/32"), "reserved (documentation)"},
	{netip.MustParsePrefix("fc00::/7"), "private (unique local)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "private (site-local)"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Prefixes of IPv6 forms that carry an IPv4 address inside; such an
// address is judged by the IPv4 address it reaches.
//
//nolint:gochecknoglobals // read-only: the prefixes of the tunnelled-IPv4 forms (netip.Prefix has no constant form)
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052: the last 32 bits
	sixTo4 = netip.MustParsePrefix("2002::/16")    // RFC 3056: bits 16 to 47
	teredo = netip.MustParsePrefix("2001::/32")    // RFC 4380: the last 32 bits, inverted
)

// refusal says why kino refuses to connect to addr ("private", "loopback",
// …), or returns "" when addr is a public unicast address. IPv4 addresses
// in IPv6 clothing (mapped, NAT64, 6to4, Teredo) are judged as the IPv4
// address they reach.
func refusal(addr netip.Addr) string {
	// A zone (fe80::1%eth0) makes Prefix.Contains always false; it must not
	// smuggle a link-local address past the list.
	addr = addr.WithZone("")
	if addr.Is4In6() {
		return refusal(addr.Unmap())
	}
	if v4, via, ok := embeddedIPv4(addr); ok {
		if r := refusal(v4); r != "" {
			return fmt.Sprintf("%s (%s of %s)", r, via, v4)
		}
		return ""
	}
	for _, r := range refused {
		if r.prefix.Contains(addr) {
			return r.reason
		}
	}
	return ""
}

// embeddedIPv4 returns the IPv4 address that a NAT64, 6to4 or Teredo
// address reaches, and which of the three it is.
func embeddedIPv4(addr netip.Addr) (netip.Addr, string, bool) {
	b := addr.As16()
	switch {
	case nat64.Contains(addr):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "NAT64", true
	case sixTo4.Contains(addr):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4", true
	case teredo.Contains(addr):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), "Teredo", true
	}
	return netip.Addr{}, "", false
}

// guard returns the net.Dialer Control function that refuses addresses per
// refusal. It runs on the resolved address of every connection attempt,
// redirects included, so a name that resolves (or re-resolves, as in DNS
// rebinding) to a private address is refused all the same.
func guard(check func(netip.AddrPort) error) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			// The dialer passes a resolved literal; anything else is a bug
			// and is refused rather than let through.
			return &Error{Kind: Blocked, Err: fmt.Errorf("unexpected dial address %q", address)}
		}
		return check(ap)
	}
}

// checkPublic refuses any address that is not public unicast.
func checkPublic(ap netip.AddrPort) error {
	if r := refusal(ap.Addr()); r != "" {
		return blockedError(ap.Addr(), r)
	}
	return nil
}

// blockedError is the refusal of addr, telling the user how to allow it.
func blockedError(addr netip.Addr, reason string) *Error {
	return &Error{Kind: Blocked, Err: fmt.Errorf(
		"address %s is %s; kino refuses private, loopback and link-local addresses unless --allow-private-networks is set",
		addr, reason)}
}
