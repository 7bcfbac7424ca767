// Package asset holds the rules of uploaded assets that the render API,
// the media API and the workers that run their jobs share: which assets an
// organisation may use, and reading one's content into a job's folder.
// The asset API itself (uploads, listing, deletion) is package media's;
// an asset id is recognised by ident.IsAsset.
package asset

import (
	"context"
	"fmt"

	"github.com/kinohq/kino/ent"
	entasset "github.com/kinohq/kino/ent/asset"
	"github.com/kinohq/kino/ent/predicate"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// VisibleTo selects the assets an organisation may use: its own, and the
// system's. Reads, job inputs, render sources and the workers all ask
// this one question.
func VisibleTo(org string) predicate.Asset {
	return entasset.Or(entasset.OrgID(org), entasset.ScopeEQ(entasset.ScopeSystem))
}

// Visible reads the asset id names if org may use it; an asset that does
// not exist, or is another organisation's, is ent's not-found error.
func Visible(ctx context.Context, st *store.Store, org, id string) (*ent.Asset, error) {
	return st.Asset.Query().Where(entasset.ID(id), VisibleTo(org)).Only(ctx)
}

// Copy writes the content of an asset org may use to a new file at path,
// and returns its size: for a job or render, which runs after the request
// that named the asset, so the asset may have been deleted since.
func Copy(ctx context.Context, st *store.Store, bucket *storage.Storage, org, id, path string) (int64, error) {
	a, err := Visible(ctx, st, org, id)
	if ent.IsNotFound(err) {
		return 0, fmt.Errorf("asset %s no longer exists", id)
	}
	if err != nil {
		return 0, fmt.Errorf("asset %s could not be read", id)
	}
	n, err := bucket.Download(ctx, a.StorageKey, path)
	if err != nil {
		return 0, fmt.Errorf("asset %s could not be read from storage", id)
	}
	return n, nil
}
