package renderrun

import (
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/usage"
)

// priced is what a completed render records for its usage: the seconds of
// its output and its price (catalog.Render). A still is priced by its
// picture. The composition compiled at submit; nil if it no longer does.
func priced(args renderjob.Args, limits engine.Limits) map[string]any {
	scene, err := engine.Compile(args.Provider, args.Composition, args.AssetURLs, limits)
	if err != nil {
		return nil
	}
	seconds, megapixels := scene.Duration, 0.0
	if scene.Format == "png" || scene.Format == "jpg" {
		seconds, megapixels = 0, float64(scene.Width)*float64(scene.Height)/1e6
	}
	return map[string]any{usage.MetaMediaSeconds: seconds, usage.MetaPrice: catalog.Render.Price(seconds, megapixels)}
}
