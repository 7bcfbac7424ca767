package redact

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"no URL here", "no URL here"},
		{"fetch https://cdn.example/a.png?token=s3cr3t: the server answered 404 Not Found",
			"fetch https://cdn.example/a.png?token=REDACTED: the server answered 404 Not Found"},
		{"see http://u:s3cr3t@host/p#s3cr3t.", "see http://host/p."},
		{`"https://a/b?X-Amz-Signature=s3cr3t&X-Amz-Date=1"`, `"https://a/b?X-Amz-Date=REDACTED&X-Amz-Signature=REDACTED"`},
		{"two: http://a/?k=s3cr3t and HTTPS://b/c?d=s3cr3t)", "two: http://a/?k=REDACTED and https://b/c?d=REDACTED)"},
		{"bad %zz: http://a/%zz?k=s3cr3t", "bad %zz: http://a/%zz"},
		{"s3://bucket/key?secret=s3cr3t", "s3://bucket/key?secret=REDACTED"},
	} {
		got := Text(c.in)
		assert.Equal(t, c.want, got, c.in)
		assert.NotContains(t, got, "s3cr3t")
	}
}

func TestURL(t *testing.T) {
	t.Parallel()
	u, err := url.Parse("https://user:s3cr3t@cdn.example/hooks/s3cr3t?token=s3cr3t#s3cr3t")
	require.NoError(t, err)
	assert.Equal(t, "https://cdn.example/hooks/s3cr3t?token=REDACTED", URL(u))
	assert.Equal(t, "https://cdn.example/REDACTED", Origin(u))
	assert.Equal(t, "(not a valid URL)", RawURL("http://a/%zz?token=s3cr3t"))
}

func TestError(t *testing.T) {
	t.Parallel()
	base := errors.New("fetch http://a/b?token=s3cr3t: 404")
	err := Error(fmt.Errorf("logo: %w", base))
	assert.Equal(t, "logo: fetch http://a/b?token=REDACTED: 404", err.Error())
	assert.ErrorIs(t, err, base)
	assert.NoError(t, Error(nil))
	plain := errors.New("plain")
	assert.Same(t, plain, Error(plain), "nothing to redact: the same error")
}

type stringer struct{}

func (stringer) String() string { return "http://a/?k=s3cr3t" }

func TestHandler(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewTextHandler(&buf, nil)))
	log = log.With("job", "http://a/?with=s3cr3t").WithGroup("g")
	log.Warn("failed http://a/?msg=s3cr3t",
		"err", errors.New("fetch http://a/?err=s3cr3t: 404"),
		"url", "http://a/?str=s3cr3t",
		"s", stringer{},
		"list", []string{"http://a/?list=s3cr3t"},
		slog.Group("inner", "u", "http://a/?inner=s3cr3t"),
		"n", 3)
	out := buf.String()
	assert.NotContains(t, out, "s3cr3t")
	for _, k := range []string{"with", "msg", "err", "str", "k", "list", "inner"} {
		assert.Contains(t, out, k+"=REDACTED", out)
	}
	assert.Contains(t, out, "g.n=3")
}
