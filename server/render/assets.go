package render

import (
	"context"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/asset"
	"github.com/kinohq/kino/server/apierr"
	kinoasset "github.com/kinohq/kino/server/asset"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/mockup"
	"github.com/kinohq/kino/server/store"
)

// checkAssets refuses sources that name an uploaded asset the caller cannot
// use: another organisation's, one still processing, or one of the wrong
// kind (a font where a picture goes, a picture where captions go). The engine reads no store, so this is
// the render service's part of validation.
func checkAssets(ctx context.Context, st *store.Store, org string, scene *engine.Scene) error {
	for _, src := range scene.Sources() {
		if !ident.IsAsset(src.URL) {
			continue
		}
		a, err := kinoasset.Visible(ctx, st, org, src.URL)
		if ent.IsNotFound(err) {
			return apierr.New(apierr.Validation, "%s: no asset has the id %q", src.Field, src.URL)
		}
		if err != nil {
			return apierr.Wrap(err, apierr.Internal, "the assets could not be read; try again")
		}
		switch {
		case a.Status != asset.StatusReady:
			return apierr.New(apierr.Validation, "%s: asset %s is %s, not ready", src.Field, a.ID, a.Status)
		case src.Font && a.Type != asset.TypeFont:
			return apierr.New(apierr.Validation, "%s: asset %s is %s, not a font", src.Field, a.ID, kindOf(a.Type))
		case src.Captions && a.Type != asset.TypeCaptions:
			return apierr.New(apierr.Validation, "%s: asset %s is %s; a captions layer takes a captions asset (SRT or WebVTT)", src.Field, a.ID, kindOf(a.Type))
		case src.Template && a.Type != asset.TypePsdTemplate:
			return apierr.New(apierr.Validation, "%s: asset %s is %s; a mockup layer's template is a psd_template asset", src.Field, a.ID, kindOf(a.Type))
		case src.Template:
			if err := checkTemplate(scene, src, a.Metadata); err != nil {
				return err
			}
		case !src.Font && !src.Captions && a.Type != asset.TypeImage:
			return apierr.New(apierr.Validation, "%s: asset %s is %s; a layer takes an image asset", src.Field, a.ID, kindOf(a.Type))
		}
	}
	return nil
}

// checkTemplate refuses, at submit, a template asset that a mockup layer
// using it cannot draw, from the manifest stored with the asset. A
// template given by URL is checked when the render reads it.
func checkTemplate(scene *engine.Scene, src engine.Source, metadata string) error {
	m, ok := mockup.StoredManifest(metadata)
	if !ok {
		return nil // stored before kino read templates: checked when the render runs
	}
	for _, l := range scene.Layers {
		if l.Mockup == nil || l.Mockup.Template != src.Key {
			continue
		}
		if err := l.Mockup.Check(m); err != nil {
			return apierr.New(apierr.Validation, "%s", err.Error())
		}
	}
	return nil
}

func kindOf(t asset.Type) string {
	switch t {
	case asset.TypeImage:
		return "an image"
	case asset.TypePsdTemplate:
		return "a PSD template"
	case asset.TypeCaptions:
		return "captions"
	}
	return "a font"
}
