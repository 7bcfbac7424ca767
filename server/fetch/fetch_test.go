package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// origin is a loopback HTTP server that counts the requests reaching it and
// remembers their User-Agent.
type origin struct {
	*httptest.Server
	hits atomic.Int32
	mu   sync.Mutex
	ua   []string
}

func newOrigin(t *testing.T) *origin {
	t.Helper()
	o := &origin{}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello")) })
	mux.HandleFunc("/size/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write([]byte(strings.Repeat("x", n)))
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, _ *http.Request) {
		// No Content-Length: the size shows only as the bytes arrive.
		for range 10 {
			w.Write([]byte(strings.Repeat("y", 20)))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/unframed", func(w http.ResponseWriter, _ *http.Request) {
		// An HTTP/1.0-style body: no length, no chunks, ended by closing.
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + strings.Repeat("z", 200))
		buf.Flush()
	})
	mux.HandleFunc("/truncated", func(w http.ResponseWriter, _ *http.Request) {
		// Promises 10 bytes, sends 2 and hangs up.
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab")
		buf.Flush()
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		w.WriteHeader(code)
	})
	mux.HandleFunc("/hops/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			w.Write([]byte("arrived"))
			return
		}
		http.Redirect(w, r, "/hops/"+strconv.Itoa(n-1), http.StatusFound)
	})
	mux.HandleFunc("/redirect-to-404", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/status/404", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/slow-headers", func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first bytes"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		o.mu.Lock()
		o.ua = append(o.ua, r.UserAgent())
		o.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *origin) userAgents() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.ua...)
}

// requireKind asserts that err is an *Error of the kind and returns it.
func requireKind(t *testing.T, err error, kind Kind) *Error {
	t.Helper()
	var fe *Error
	require.ErrorAs(t, err, &fe)
	require.Equal(t, kind, fe.Kind, "%v", err)
	return fe
}

func TestRefusedAddressesAreNeverContacted(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c := New(Options{})
	dst := filepath.Join(t.TempDir(), "out")

	t.Run("Download", func(t *testing.T) {
		_, err := c.Download(context.Background(), o.URL+"/ok", dst)
		requireKind(t, err, Blocked)
		assert.Equal(t, "fetch "+o.URL+"/ok: address 127.0.0.1 is loopback; kino refuses private, loopback and link-local addresses unless --allow-private-networks is set", err.Error())
		assert.False(t, err.(*Error).Temporary())
		assert.NoFileExists(t, dst)
	})
	t.Run("a name is judged by the address it resolves to", func(t *testing.T) {
		u, err := url.Parse(o.URL)
		require.NoError(t, err)
		_, err = c.Download(context.Background(), "http://localhost:"+u.Port()+"/ok", dst)
		requireKind(t, err, Blocked)
	})
	for name, hc := range map[string]*http.Client{"HTTPClient": c.HTTPClient(), "NoRedirectClient": c.NoRedirectClient()} {
		t.Run(name, func(t *testing.T) {
			resp, err := hc.Get(o.URL + "/ok")
			if err == nil {
				resp.Body.Close()
			}
			fe := requireKind(t, err, Blocked)
			assert.Contains(t, fe.Error(), "--allow-private-networks")
		})
	}
	assert.Zero(t, o.hits.Load(), "no request reached the server")
}

func TestDownload(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c := New(Options{AllowPrivate: true, MaxBytes: 64, MaxRedirects: 3, Timeout: 300 * time.Millisecond, UserAgent: "kino-test/1"})
	dir := t.TempDir()
	ctx := context.Background()

	t.Run("writes the body and returns its size", func(t *testing.T) {
		dst := filepath.Join(dir, "ok")
		n, err := c.Download(ctx, o.URL+"/ok", dst)
		require.NoError(t, err)
		assert.Equal(t, int64(5), n)
		b, err := os.ReadFile(dst)
		require.NoError(t, err)
		assert.Equal(t, "hello", string(b))
		assert.Contains(t, o.userAgents(), "kino-test/1")
	})
	t.Run("exactly MaxBytes is allowed", func(t *testing.T) {
		n, err := c.Download(ctx, o.URL+"/size/64", filepath.Join(dir, "64"))
		require.NoError(t, err)
		assert.Equal(t, int64(64), n)
	})
	t.Run("follows redirects up to the limit", func(t *testing.T) {
		n, err := c.Download(ctx, o.URL+"/hops/3", filepath.Join(dir, "hops"))
		require.NoError(t, err)
		assert.Equal(t, int64(len("arrived")), n)
	})

	for _, tc := range []struct {
		name      string
		path      string
		kind      Kind
		code      int
		temporary bool
		message   string
	}{
		{name: "too large by Content-Length", path: "/size/65", kind: TooLarge, message: "larger than the limit of 64 bytes"},
		{name: "too large while streaming chunks", path: "/chunked", kind: TooLarge},
		{name: "too large without any framing", path: "/unframed", kind: TooLarge},
		{name: "body cut short", path: "/truncated", kind: Network, temporary: true, message: "unexpected EOF"},
		{name: "not found", path: "/status/404", kind: Status, code: 404, message: "the server answered 404 Not Found"},
		{name: "gone", path: "/status/410", kind: Status, code: 410},
		{name: "too many requests", path: "/status/429", kind: Status, code: 429, temporary: true},
		{name: "server error", path: "/status/503", kind: Status, code: 503, temporary: true},
		{name: "too many redirects", path: "/hops/4", kind: Status, code: 302, message: "redirected to " + o.URL + "/hops/0: the server redirected more than 3 times"},
		{name: "redirect to another scheme", path: "/to-file", kind: BadURL, message: "redirected to file:///etc/passwd: the server redirected to a file URL"},
		{name: "no headers in time", path: "/slow-headers", kind: Timeout, temporary: true, message: "no complete answer within 300ms"},
		{name: "no complete body in time", path: "/slow-body", kind: Timeout, temporary: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dst := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			n, err := c.Download(ctx, o.URL+tc.path, dst)
			fe := requireKind(t, err, tc.kind)
			assert.Zero(t, n)
			assert.Equal(t, tc.code, fe.StatusCode)
			assert.Equal(t, tc.temporary, fe.Temporary())
			assert.Equal(t, o.URL+tc.path, fe.URL)
			assert.True(t, strings.HasPrefix(err.Error(), "fetch "+o.URL+tc.path+": "), err.Error())
			assert.Contains(t, err.Error(), tc.message)
			assert.NoFileExists(t, dst, "a failed download leaves no file behind")
		})
	}

	t.Run("bad URLs", func(t *testing.T) {
		t.Parallel()
		for _, raw := range []string{"file:///etc/passwd", "ftp://example.com/a", "/relative/path", "http://", "http://[::1", "gopher://x"} {
			_, err := c.Download(ctx, raw, filepath.Join(dir, "bad"))
			requireKind(t, err, BadURL)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		l.Close()
		_, err = c.Download(ctx, "http://"+addr+"/", filepath.Join(dir, "refused"))
		fe := requireKind(t, err, Network)
		assert.True(t, fe.Temporary())
	})
	t.Run("cancelled by the caller", func(t *testing.T) {
		t.Parallel()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := c.Download(cctx, o.URL+"/ok", filepath.Join(dir, "cancelled"))
		requireKind(t, err, Network)
		assert.ErrorIs(t, err, context.Canceled)
	})
	t.Run("the caller's deadline", func(t *testing.T) {
		t.Parallel()
		dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := c.Download(dctx, o.URL+"/slow-headers", filepath.Join(dir, "deadline"))
		requireKind(t, err, Timeout)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

// Go writes some URLs differently from how they were given (an upper-case
// scheme, a space, a password); that is no redirect, and the error must
// not say there was one.
func TestErrorsNameARedirectOnlyWhenThereWasOne(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c := New(Options{AllowPrivate: true, MaxBytes: 64, MaxRedirects: 3, Timeout: 300 * time.Millisecond})
	host := strings.TrimPrefix(o.URL, "http://")
	for _, tc := range []struct{ url, message string }{
		{"HTTP://" + host + "/status/404", "fetch HTTP://" + host + "/status/404: the server answered 404 Not Found"},
		{"http://user:secret@" + host + "/slow-headers", "fetch http://user:secret@" + host + "/slow-headers: no complete answer within 300ms: context deadline exceeded"},
		{o.URL + "/status/404 x", "fetch " + o.URL + "/status/404 x: the server closed the connection without answering"},
	} {
		_, err := c.Download(context.Background(), tc.url, filepath.Join(t.TempDir(), "out"))
		require.Error(t, err, tc.url)
		assert.True(t, strings.HasPrefix(err.Error(), tc.message), "%s: %v", tc.url, err)
		assert.NotContains(t, err.Error(), "redirected", tc.url)
	}

	// After a real redirect the error names where it led.
	_, err := c.Download(context.Background(), "HTTP://"+host+"/redirect-to-404", filepath.Join(t.TempDir(), "out"))
	assert.EqualError(t, err, "fetch HTTP://"+host+"/redirect-to-404: redirected to "+o.URL+"/status/404: the server answered 404 Not Found")
}

func TestRedirectToRefusedAddressIsRefused(t *testing.T) {
	t.Parallel()
	// Both servers are on loopback, so this client refuses by port: the
	// public one is allowed, the internal one is refused as the guard
	// refuses a private address.
	internal := newOrigin(t)
	var publicHits atomic.Int32
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		publicHits.Add(1)
		http.Redirect(w, r, internal.URL+"/ok", http.StatusFound)
	}))
	t.Cleanup(public.Close)
	internalPort := mustPort(t, internal.URL)
	c := newClient(Options{}, func(ap netip.AddrPort) error {
		if ap.Port() == internalPort {
			return blockedError(netip.MustParseAddr("10.0.0.1"), "private")
		}
		return nil
	})

	_, err := c.Download(context.Background(), public.URL+"/hop", filepath.Join(t.TempDir(), "out"))
	requireKind(t, err, Blocked)
	assert.Equal(t, "fetch "+public.URL+"/hop: redirected to "+internal.URL+"/ok: address 10.0.0.1 is private; kino refuses private, loopback and link-local addresses unless --allow-private-networks is set", err.Error())
	assert.Equal(t, int32(1), publicHits.Load())
	assert.Zero(t, internal.hits.Load(), "the redirect target was never contacted")
}

func TestNoRedirectClientReturnsTheRedirect(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c := New(Options{AllowPrivate: true})
	resp, err := c.NoRedirectClient().Get(o.URL + "/hops/1")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, "/hops/0", resp.Header.Get("Location"))
	assert.Equal(t, int32(1), o.hits.Load(), "the redirect was not followed")
	assert.Equal(t, []string{"kino/1"}, o.userAgents(), "the default User-Agent")
}

func TestTemporary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  *Error
		want bool
	}{
		{&Error{Kind: Network}, true},
		{&Error{Kind: Timeout}, true},
		{&Error{Kind: Status, StatusCode: 500}, true},
		{&Error{Kind: Status, StatusCode: 502}, true},
		{&Error{Kind: Status, StatusCode: 429}, true},
		{&Error{Kind: Status, StatusCode: 404}, false},
		{&Error{Kind: Status, StatusCode: 410}, false},
		{&Error{Kind: Status, StatusCode: 302}, false},
		{&Error{Kind: BadURL}, false},
		{&Error{Kind: Blocked}, false},
		{&Error{Kind: TooLarge}, false},
	} {
		assert.Equal(t, tc.want, tc.err.Temporary(), "%s %d", tc.err.Kind, tc.err.StatusCode)
	}
}

func TestErrorUnwraps(t *testing.T) {
	t.Parallel()
	inner := errors.New("inner")
	err := error(&Error{Kind: Network, URL: "https://x/", Err: inner})
	assert.ErrorIs(t, err, inner)
	assert.Equal(t, "fetch https://x/: inner", err.Error())
}

func mustPort(t *testing.T, raw string) uint16 {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	p, err := strconv.ParseUint(u.Port(), 10, 16)
	require.NoError(t, err)
	return uint16(p)
}

func TestCheckHost(t *testing.T) {
	t.Parallel()
	c := New(Options{})
	for raw, refused := range map[string]bool{
		"http://127.0.0.1:8080/hook":     true,
		"http://localhost/hook":          true,
		"http://api.localhost./hook":     true,
		"http://[::1]/hook":              true,
		"http://[::ffff:10.0.0.1]/hook":  true,
		"https://169.254.169.254/latest": true,
		"https://hooks.example.com/kino": false,
		"https://93.184.215.14/hook":     false,
		"https://[2606:4700::6810:1]/h":  false,
	} {
		err := c.CheckHost(raw)
		if refused {
			assert.Error(t, err, raw)
		} else {
			assert.NoError(t, err, raw)
		}
	}
	assert.NoError(t, New(Options{AllowPrivate: true}).CheckHost("http://127.0.0.1/hook"))
}

// TestSlowBodyIsCutAsTheSourcesFault: a server that sends its headers and
// a byte, then nothing, is cut once a window passes without the minimum
// rate's bytes; the failure names the URL and the rate, and is not one to
// retry. A body that comes at once passes under the same minimum.
func TestSlowBodyIsCutAsTheSourcesFault(t *testing.T) {
	t.Parallel()
	sent := make(chan struct{}, 10)
	trickle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("x"))
		w.(http.Flusher).Flush()
		sent <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(trickle.Close)
	o := newOrigin(t)
	c := newClient(Options{MinRate: 1000, RateWindow: 50 * time.Millisecond}, nil)
	dir := t.TempDir()

	_, err := c.Download(context.Background(), trickle.URL+"/slow.mp4", filepath.Join(dir, "slow"))
	var fe *Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, TooSlow, fe.Kind, "%v", err)
	assert.False(t, fe.Temporary())
	assert.Contains(t, err.Error(), trickle.URL+"/slow.mp4")
	assert.Contains(t, err.Error(), "the server sent 1 bytes in 50ms, slower than the minimum of 1000 bytes/s")
	assert.NoFileExists(t, filepath.Join(dir, "slow"))

	n, err := c.Download(context.Background(), o.URL+"/size/100000", filepath.Join(dir, "fast"))
	require.NoError(t, err)
	assert.Equal(t, int64(100000), n)

	// The caller's own cancel, mid-body, stays a cancel, not the
	// source's fault.
	<-sent
	ctx, cancel := context.WithCancel(context.Background())
	c = newClient(Options{MinRate: 1000, RateWindow: time.Hour}, nil)
	go func() {
		<-sent
		cancel()
	}()
	_, err = c.Download(ctx, trickle.URL+"/slow.mp4", filepath.Join(dir, "cancelled"))
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, Network, fe.Kind, "%v", err)
}

// TestNumericLoopbackFormsAreRefusedWithoutDNS: the older forms of an IPv4
// address and localhost names are read as the addresses they are and
// refused at once, as the URL's fault, before any lookup or connection.
func TestNumericLoopbackFormsAreRefusedWithoutDNS(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"127.1": "127.0.0.1", "0x7f000001": "127.0.0.1", "2130706433": "127.0.0.1", "0177.0.0.1": "127.0.0.1",
		"0x7f.1": "127.0.0.1", "10.1.2": "10.1.0.2", "0": "0.0.0.0", "192.168.0x1.01": "192.168.1.1",
		"localhost.": "127.0.0.1", "api.LOCALHOST": "127.0.0.1", "::ffff:127.0.0.1": "::ffff:127.0.0.1", "::1": "::1", "127.0.0.1.": "127.0.0.1",
	} {
		addr, ok := literal(host)
		require.True(t, ok, host)
		assert.Equal(t, want, addr.String(), host)
	}
	for _, host := range []string{"example.com", "123.example", "1.2.3.4.5", "0x", "08", "256.1", "4294967296", "1.2.3.256", "", "..", "1..2"} {
		_, ok := literal(host)
		assert.False(t, ok, host)
	}

	c := New(Options{})
	for _, raw := range []string{"http://127.1/a.png", "http://0x7f000001:8080/a.png", "http://2130706433/a.png",
		"http://0177.0.0.1/a.png", "http://localhost./a.png", "http://[::ffff:127.0.0.1]/a.png", "http://[::1]:9/a.png", "https://10.1/a.png"} {
		require.Error(t, c.CheckHost(raw), raw)
		_, err := c.Download(context.Background(), raw, filepath.Join(t.TempDir(), "a"))
		var fe *Error
		require.ErrorAs(t, err, &fe, raw)
		assert.Equal(t, Blocked, fe.Kind, "%s: %v", raw, err)
		assert.False(t, fe.Temporary(), raw)
		assert.NotContains(t, err.Error(), "no such host", raw)
	}
	// A webhook client refuses them too.
	_, err := c.NoRedirectClient().Post("http://127.1/hook", "application/json", strings.NewReader("{}"))
	var fe *Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, Blocked, fe.Kind)
}
