// Package source decides where a job or render reads an input named by
// URL from: a file kino itself stores for the same organisation (an output
// of one of its jobs or renders, or one of its uploads) is read from
// storage in kino's own process, with no request and so no address guard
// in the way; every other URL is downloaded by the guarded client.
package source

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// Own reads the files an organisation owns in storage.
type Own struct {
	Store   *store.Store
	Storage *storage.Storage
	// Now is the clock uploads expire by (time.Now when nil).
	Now func() time.Time
}

// ErrExpired is an upload URL whose upload has expired.
var ErrExpired = errors.New("the upload has expired: upload the file again")

// Key is the storage key of the file rawURL names when it is org's own
// and kino may read it in-process, ok false otherwise (the URL is then an
// ordinary download). An upload is org's while its signed URL is valid:
// an expired or forged one is an error, not a download. Another
// organisation's files are never read this way.
func (o *Own) Key(ctx context.Context, org, rawURL string) (key string, ok bool, err error) {
	if o == nil || o.Storage == nil {
		return "", false, nil
	}
	key, ok = o.Storage.KeyOf(rawURL)
	if !ok {
		return "", false, nil
	}
	switch {
	case strings.HasPrefix(key, "jobs/"+org+"/"):
		return key, true, nil
	case strings.HasPrefix(key, storage.UploadsPrefix+org+"/"):
		return key, true, o.checkUpload(key, rawURL)
	case strings.HasPrefix(key, "renders/"):
		owned, err := o.renderOf(ctx, org, key)
		return key, owned, err
	}
	return "", false, nil
}

// checkUpload checks an upload URL's signature and expiry, as the gateway
// would if the URL were fetched.
func (o *Own) checkUpload(key, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("not a valid URL")
	}
	s := o.Storage.Signer()
	if s == nil {
		return fmt.Errorf("upload URLs cannot be checked: no URL secret is configured")
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	err = s.Check(key, u.Query(), now())
	if errors.Is(err, storage.ErrExpired) {
		return ErrExpired
	}
	return err
}

// renderOf reports whether the render whose output key is (renders/ID.ext
// or renders/ID.NAME.ext) belongs to org.
func (o *Own) renderOf(ctx context.Context, org, key string) (bool, error) {
	id, _, _ := strings.Cut(strings.TrimPrefix(key, "renders/"), ".")
	if id == "" || o.Store == nil {
		return false, nil
	}
	n, err := o.Store.Job.Query().Where(job.ID(id), job.OrgID(org)).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("read render %s: %w", id, err)
	}
	return n > 0, nil
}

// Download puts at path the file rawURL names when it is org's own and
// reports true; false when it is not (download it instead).
func (o *Own) Download(ctx context.Context, org, rawURL, path string) (int64, bool, error) {
	// The URL is not repeated in an error: it may carry a signature.
	key, ok, err := o.Key(ctx, org, rawURL)
	if err != nil {
		return 0, true, err
	}
	if !ok {
		return 0, false, nil
	}
	n, err := o.Storage.Download(ctx, key, path)
	if err != nil {
		return 0, true, fmt.Errorf("stored file %s could not be read", key)
	}
	return n, true, nil
}
