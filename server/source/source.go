// Package source gets the files renders, previews and media jobs read, by
// one rule for all three. A source is named by the request as an asset id,
// as a URL, or (an input a pipeline's edge fed) by the storage key of an
// output of one of the organisation's jobs:
//
//   - an asset the organisation may use is copied from storage;
//   - a stored key of the organisation's jobs is read from storage;
//   - a URL of a file kino itself stores for the same organisation (an
//     output of one of its jobs or renders, or one of its uploads) is read
//     from storage in kino's own process, with no request and so no
//     address guard in the way;
//   - every other URL is downloaded by the guarded client, through the
//     node's cache (package sourcecache) when the caller gives a scope, so
//     that the parts of a split render on one node, or an organisation's
//     previews, share one download of each file.
package source

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/asset"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/sourcecache"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// Config is what a Resolver reads sources with.
type Config struct {
	// Store holds the assets and the jobs whose files are read.
	Store   *store.Store
	Storage *storage.Storage
	// Fetch downloads every URL that is not a file of kino's.
	Fetch *fetch.Client
	// Cache, when set, downloads URLs of a Ref with a scope; nil downloads
	// each time.
	Cache *sourcecache.Cache
	// Now is the clock uploads expire by (time.Now when nil).
	Now func() time.Time
}

// Resolver gets sources into local files. It is safe for concurrent use.
type Resolver struct{ cfg Config }

// New returns a resolver.
func New(cfg Config) *Resolver {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Resolver{cfg: cfg}
}

// Ref is one source as a request named it.
type Ref struct {
	// Org is the organisation whose render or job reads the source: only
	// its own files and assets (and the system's assets) are read from
	// storage.
	Org string
	// URL is the asset id or URL the request gave.
	URL string
	// Key, when set, is the storage key of an output of one of Org's
	// jobs, which fed the input (a pipeline's edge); it is read instead
	// of URL.
	Key string
	// Scope, when set, downloads URL through the node's cache, sharing
	// one download with every request of the same scope (a render's id,
	// read by all its parts); empty downloads afresh.
	Scope string
}

// ErrExpired is an upload URL whose upload has expired.
var ErrExpired = errors.New("the upload has expired: upload the file again")

// Get puts at path the file ref names, and returns its size. Its errors
// name neither the URL (it may carry a signature) nor the path: the
// caller says which source failed.
func (r *Resolver) Get(ctx context.Context, ref Ref, path string) (int64, error) {
	switch {
	case ident.IsAsset(ref.URL):
		return asset.Copy(ctx, r.cfg.Store, r.cfg.Storage, ref.Org, ref.URL, path)
	case strings.HasPrefix(ref.Key, "jobs/"+ref.Org+"/"):
		return r.stored(ctx, ref.Key, path)
	}
	key, own, err := r.own(ctx, ref.Org, ref.URL)
	switch {
	case err != nil:
		return 0, err
	case own:
		return r.stored(ctx, key, path)
	case ref.Scope != "" && r.cfg.Cache != nil:
		return r.cfg.Cache.Download(ctx, ref.Scope, ref.URL, path)
	}
	return r.cfg.Fetch.Download(ctx, ref.URL, path)
}

// stored reads a file of kino's storage.
func (r *Resolver) stored(ctx context.Context, key, path string) (int64, error) {
	n, err := r.cfg.Storage.Download(ctx, key, path)
	if err != nil {
		return 0, fmt.Errorf("stored file %s could not be read", key)
	}
	return n, nil
}

// own is the storage key of the file rawURL names when it is org's own
// and kino may read it in-process, ok false otherwise (the URL is then an
// ordinary download). An upload is org's while its signed URL is valid:
// an expired or forged one is an error, not a download. Another
// organisation's files are never read this way.
func (r *Resolver) own(ctx context.Context, org, rawURL string) (key string, ok bool, err error) {
	if r.cfg.Storage == nil {
		return "", false, nil
	}
	key, ok = r.cfg.Storage.KeyOf(rawURL)
	if !ok {
		return "", false, nil
	}
	switch {
	case strings.HasPrefix(key, "jobs/"+org+"/"):
		return key, true, nil
	case strings.HasPrefix(key, storage.UploadsPrefix+org+"/"):
		return key, true, r.checkUpload(key, rawURL)
	case strings.HasPrefix(key, "renders/"):
		owned, err := r.renderOf(ctx, org, key)
		return key, owned, err
	}
	return "", false, nil
}

// checkUpload checks an upload URL's signature and expiry, as the gateway
// would if the URL were fetched.
func (r *Resolver) checkUpload(key, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("not a valid URL")
	}
	s := r.cfg.Storage.Signer()
	if s == nil {
		return fmt.Errorf("upload URLs cannot be checked: no URL secret is configured")
	}
	err = s.Check(key, u.Query(), r.cfg.Now())
	if errors.Is(err, storage.ErrExpired) {
		return ErrExpired
	}
	return err
}

// renderOf reports whether the render whose output key is (renders/ID.ext
// or renders/ID.NAME.ext) belongs to org.
func (r *Resolver) renderOf(ctx context.Context, org, key string) (bool, error) {
	id, _, _ := strings.Cut(strings.TrimPrefix(key, "renders/"), ".")
	if id == "" || r.cfg.Store == nil {
		return false, nil
	}
	n, err := r.cfg.Store.Job.Query().Where(job.ID(id), job.OrgID(org)).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("read render %s: %w", id, err)
	}
	return n > 0, nil
}
