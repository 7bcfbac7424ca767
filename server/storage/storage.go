// Package storage keeps files in blob storage through gocloud.dev: the
// outputs of renders and media jobs, and uploaded assets; a local folder by
// default, S3 (or any S3-compatible store) when configured. It also makes
// the URLs they are served by. Rows are in the database, package store.
package storage

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob" // registers s3:// URLs

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/tracing"
)

// FilesPath is where the gateway serves objects of a local bucket.
const FilesPath = "/files/"

// Storage is an open bucket and the way its objects are reached by URL.
type Storage struct {
	bucket    *blob.Bucket
	publicURL string
	// local buckets are served by the gateway; others hand out signed URLs.
	local bool
	// metrics counts the bytes stored; nil counts nothing.
	metrics *metrics.Metrics
	// lifetime is how long a URL handed out stays valid: S3 presigned
	// URLs, and kino's own signed /files/ URLs.
	lifetime time.Duration
	// signer signs /files/ URLs; signLocal makes those of a local bucket
	// carry a signature (with API keys on: outputs are not public).
	signer    *Signer
	signLocal bool
}

// DefaultURLLifetime is how long a URL kino hands out stays valid unless
// configured otherwise.
const DefaultURLLifetime = 24 * time.Hour

// Open opens the bucket named by storageURL, or a folder under dataDir when
// it is empty. publicURL is the base of the URLs of a local bucket's objects.
func Open(ctx context.Context, storageURL, dataDir, publicURL string) (*Storage, error) {
	s := &Storage{publicURL: strings.TrimRight(publicURL, "/"), lifetime: DefaultURLLifetime}
	if storageURL == "" {
		dir := filepath.Join(dataDir, "outputs")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create storage folder: %w", err)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("resolve storage folder: %w", err)
		}
		// no_tmp_dir writes temporary files beside their final name, so the
		// rename that publishes an upload never crosses file systems.
		b, err := fileblob.OpenBucket(abs, &fileblob.Options{NoTempDir: true})
		if err != nil {
			return nil, fmt.Errorf("open storage folder %s: %w", abs, err)
		}
		s.bucket, s.local = b, true
		return s, nil
	}
	b, err := blob.OpenBucket(ctx, storageURL)
	if err != nil {
		return nil, fmt.Errorf("open storage %s: %w", redact(storageURL), err)
	}
	s.bucket = b
	s.local = strings.HasPrefix(storageURL, "file://")
	return s, nil
}

// CountBytes has every byte stored from now on counted in m.
func (s *Storage) CountBytes(m *metrics.Metrics) { s.metrics = m }

// SignURLs sets how URLs are signed: each is valid for lifetime (the
// default when 0); secret signs the URLs that kino itself serves under
// /files/ (the objects of a local bucket, and HLS playlists of any
// bucket); signLocal makes a local bucket's URLs carry a signature, which
// the gateway then requires.
func (s *Storage) SignURLs(secret []byte, lifetime time.Duration, signLocal bool) {
	if lifetime > 0 {
		s.lifetime = lifetime
	}
	s.signer = NewSigner(secret)
	s.signLocal = signLocal && len(secret) > 0
}

// URLLifetime is how long a URL handed out stays valid.
func (s *Storage) URLLifetime() time.Duration { return s.lifetime }

// Signer signs and checks /files/ URLs; nil when no secret was set.
func (s *Storage) Signer() *Signer { return s.signer }

// SignRequired reports whether the gateway refuses a /files/ request for
// key without a valid signature: on a local bucket with signing on, and
// for a playlist of a private (S3) bucket, which kino serves itself.
func (s *Storage) SignRequired(key string) bool {
	if IsUpload(key) {
		return true
	}
	if s.local {
		return s.signLocal
	}
	return true
}

// ServedByKino reports whether the object at key is served under /files/
// by kino: every object of a local bucket, and the HLS playlists of other
// buckets, whose segment URIs kino signs one by one as it serves them.
func (s *Storage) ServedByKino(key string) bool {
	return s.local || IsPlaylist(key) || IsUpload(key)
}

// Local reports whether the gateway serves this bucket's objects.
func (s *Storage) Local() bool { return s.local }

// Upload copies the file at path to key; within a trace, as a span "upload".
func (s *Storage) Upload(ctx context.Context, key, path, contentType string) (err error) {
	ctx, span := tracing.Start(ctx, "upload", trace.WithAttributes(attribute.String("kino.storage.key", key)))
	defer func() { tracing.End(span, err) }()
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("upload %s: %w", key, err)
	}
	defer f.Close()
	w, err := s.bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType})
	if err != nil {
		return fmt.Errorf("upload %s: %w", key, err)
	}
	n, err := io.Copy(w, f)
	if err != nil {
		w.Close()
		return fmt.Errorf("upload %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("upload %s: %w", key, err)
	}
	span.SetAttributes(attribute.Int64("kino.storage.bytes", n))
	s.metrics.Stored(n)
	return nil
}

// Write stores data at key.
func (s *Storage) Write(ctx context.Context, key string, data []byte, contentType string) error {
	if err := s.bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: contentType}); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	s.metrics.Stored(int64(len(data)))
	return nil
}

// URL is where a client downloads the object at key.
// Playlists are served by kino on every bucket: a player resolves their
// segment URIs against the playlist's URL, which on a private bucket
// would carry no signature of the segment's own.
func (s *Storage) URL(ctx context.Context, key string) (string, error) {
	if s.ServedByKino(key) {
		u := s.publicURL + FilesPath + escapeKey(key)
		if s.SignRequired(key) {
			if s.signer == nil {
				return "", fmt.Errorf("sign URL of %s: no URL secret configured", key)
			}
			u += "?" + s.signer.Query(key, time.Now().Add(s.lifetime))
		}
		return u, nil
	}
	return s.bucketURL(ctx, key)
}

func (s *Storage) bucketURL(ctx context.Context, key string) (string, error) {
	u, err := s.bucket.SignedURL(ctx, key, &blob.SignedURLOptions{Expiry: s.lifetime})
	if err != nil {
		return "", fmt.Errorf("sign URL of %s: %w", key, err)
	}
	return u, nil
}

// NewReader opens the object at key for reading.
func (s *Storage) NewReader(ctx context.Context, key string) (*blob.Reader, error) {
	return s.bucket.NewReader(ctx, key, nil)
}

// Download copies the object at key to a new file at path, and returns its
// size.
func (s *Storage) Download(ctx context.Context, key, path string) (int64, error) {
	rd, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return 0, fmt.Errorf("download %s: %w", key, err)
	}
	defer rd.Close()
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("download %s: %w", key, err)
	}
	n, err := io.Copy(f, rd)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("download %s: %w", key, err)
	}
	return n, nil
}

// Delete removes the object at key; a missing object is not an error.
func (s *Storage) Delete(ctx context.Context, key string) error {
	if err := s.bucket.Delete(ctx, key); err != nil && !IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}

// Exists reports whether an object is stored at key.
func (s *Storage) Exists(ctx context.Context, key string) (bool, error) {
	return s.bucket.Exists(ctx, key)
}

// Close releases the bucket.
func (s *Storage) Close() error { return s.bucket.Close() }

func escapeKey(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// redact hides credentials that a storage URL may carry in its query.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.RawQuery, u.User = "", nil
	return u.String()
}

// KeyOf returns the object key of a URL that URL handed out for a local
// bucket, so kino reads its own outputs from storage instead of fetching
// them over the network (where the address guard would rightly refuse a
// loopback public URL).
func (s *Storage) KeyOf(rawURL string) (string, bool) {
	rest, ok := strings.CutPrefix(rawURL, s.publicURL+FilesPath)
	// A signed URL's query is its signature, not part of the key.
	rest, _, _ = strings.Cut(rest, "?")
	if !ok || rest == "" {
		return "", false
	}
	key, err := url.PathUnescape(rest)
	if err != nil || strings.Contains(key, "..") {
		return "", false
	}
	// Uploads are served by kino on every bucket; other objects only on
	// a local one.
	if !s.local && !IsUpload(key) {
		return "", false
	}
	return key, true
}

// UploadsPrefix is where uploads (POST /uploads) are kept, each under its
// organisation's own prefix: uploads/ORG/ID/NAME.
const UploadsPrefix = "uploads/"

// IsUpload reports whether key is an upload's. Uploads are served by kino
// under /files/ on every bucket, always by a signed URL that expires with
// the upload.
func IsUpload(key string) bool { return strings.HasPrefix(key, UploadsPrefix) }

// SignedURL is kino's own URL of the object at key, signed until expires
// whatever the bucket (the URL of an upload).
func (s *Storage) SignedURL(key string, expires time.Time) (string, error) {
	if s.signer == nil {
		return "", fmt.Errorf("sign URL of %s: no URL secret configured", key)
	}
	return s.publicURL + FilesPath + escapeKey(key) + "?" + s.signer.Query(key, expires), nil
}

// Put streams r to key, without holding it whole, and returns the bytes
// written. A failed Put leaves nothing at key.
func (s *Storage) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	// Cancelling the writer's context before Close aborts the write.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: contentType})
	if err != nil {
		return 0, fmt.Errorf("store %s: %w", key, err)
	}
	n, err := io.Copy(w, r)
	if err != nil {
		cancel()
		_ = w.Close()
		return n, fmt.Errorf("store %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return n, fmt.Errorf("store %s: %w", key, err)
	}
	s.metrics.Stored(n)
	return n, nil
}
