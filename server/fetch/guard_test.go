package fetch

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRefusal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		want string // "" when the address is allowed
	}{
		// IPv4.
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", `reserved ("this network")`},
		{"10.0.0.1", "private"},
		{"10.255.255.255", "private"},
		{"100.64.0.1", "carrier-grade NAT (shared address space)"},
		{"100.127.255.255", "carrier-grade NAT (shared address space)"},
		{"127.0.0.1", "loopback"},
		{"127.8.9.10", "loopback"},
		{"169.254.169.254", "link-local"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.0.0.8", "reserved (IETF protocol assignments)"},
		{"192.168.1.1", "private"},
		{"198.18.0.1", "reserved (benchmarking)"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"255.255.255.255", "reserved (class E and broadcast)"},
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"9.255.255.255", ""},
		{"11.0.0.0", ""},
		{"100.63.255.255", ""},
		{"100.128.0.1", ""},
		{"172.15.255.255", ""},
		{"172.32.0.1", ""},
		{"192.169.0.1", ""},

		// IPv6.
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"::127.0.0.1", "reserved (IPv4-compatible)"},
		{"fc00::1", "private (unique local)"},
		{"fd12:3456::1", "private (unique local)"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"febf:ffff::1", "link-local"},
		{"fec0::1", "private (site-local)"},
		{"ff02::1", "multicast"},
		{"ff05::1:3", "multicast"},
		{"64:ff9b:1::a00:1", "private (local-use NAT64)"},
		{"100::1", "reserved (discard-only)"},
		{"2001:db8::1", "reserved (documentation)"},
		{"2606:4700:4700::1111", ""},
		{"2a00:1450:4001:80b::200e", ""},

		// IPv4 in IPv6 clothing is judged by the IPv4 address it reaches.
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"::ffff:169.254.169.254", "link-local"},
		{"::ffff:0.0.0.0", "unspecified"},
		{"::ffff:100.64.0.1", "carrier-grade NAT (shared address space)"},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::a00:1", "private (NAT64 of 10.0.0.1)"},
		{"64:ff9b::7f00:1", "loopback (NAT64 of 127.0.0.1)"},
		{"64:ff9b::808:808", ""},
		{"2002:a9fe:a9fe::1", "link-local (6to4 of 169.254.169.254)"},
		{"2002:c0a8:101::1", "private (6to4 of 192.168.1.1)"},
		{"2002:808:808::1", ""},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback (Teredo of 127.0.0.1)"},
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", ""}, // 8.8.8.8
	} {
		t.Run(tc.addr, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, refusal(netip.MustParseAddr(tc.addr)))
		})
	}
}

func TestBlockedErrorMessage(t *testing.T) {
	t.Parallel()
	err := checkPublic(netip.MustParseAddrPort("10.0.0.1:443"))
	e := &Error{Kind: Blocked, URL: "https://x/y.png", Err: err.(*Error).Err}
	assert.Equal(t, "fetch https://x/y.png: address 10.0.0.1 is private; kino refuses private, loopback and link-local addresses unless --allow-private-networks is set", e.Error())
	assert.NoError(t, checkPublic(netip.MustParseAddrPort("8.8.8.8:443")))
}
