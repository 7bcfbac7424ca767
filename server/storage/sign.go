package storage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"strconv"
	"time"
)

// Query parameters of a signed /files/ URL.
const (
	ExpiresParam   = "expires"
	SignatureParam = "signature"
)

// Signer signs the URLs kino serves under /files/ with an HMAC-SHA256 over
// the object key and an expiry, so a URL grants that one object until then
// and nothing else. Every node must hold the same secret.
type Signer struct {
	secret []byte
}

// NewSigner returns a signer for secret, or nil when it is empty.
func NewSigner(secret []byte) *Signer {
	if len(secret) == 0 {
		return nil
	}
	return &Signer{secret: append([]byte(nil), secret...)}
}

func (s *Signer) mac(key string, expires int64) []byte {
	m := hmac.New(sha256.New, s.secret)
	// The expiry first and a NUL between: no key and expiry pair writes
	// the same bytes as another.
	m.Write([]byte(strconv.FormatInt(expires, 10)))
	m.Write([]byte{0})
	m.Write([]byte(key))
	return m.Sum(nil)
}

// Query is the query string that signs key until expires.
func (s *Signer) Query(key string, expires time.Time) string {
	exp := expires.Unix()
	v := url.Values{}
	v.Set(ExpiresParam, strconv.FormatInt(exp, 10))
	v.Set(SignatureParam, base64.RawURLEncoding.EncodeToString(s.mac(key, exp)))
	return v.Encode()
}

// Errors of Check; their text is what a refused client reads.
var (
	ErrUnsigned = errors.New("the URL carries no signature: use the URL kino handed out")
	ErrExpired  = errors.New("the URL has expired: read the job again for a fresh one")
	ErrBadSig   = errors.New("the URL's signature is not valid for this file")
)

// Check verifies the signature of key in q at now.
func (s *Signer) Check(key string, q url.Values, now time.Time) error {
	rawExp, rawSig := q.Get(ExpiresParam), q.Get(SignatureParam)
	if rawExp == "" || rawSig == "" {
		return ErrUnsigned
	}
	exp, err := strconv.ParseInt(rawExp, 10, 64)
	if err != nil {
		return ErrBadSig
	}
	sig, err := base64.RawURLEncoding.DecodeString(rawSig)
	if err != nil || !hmac.Equal(sig, s.mac(key, exp)) {
		return ErrBadSig
	}
	if now.Unix() > exp {
		return ErrExpired
	}
	return nil
}
