package engine

// Limits bound what a composition may ask for.
type Limits struct {
	// MaxWidth and MaxHeight bound the output size in pixels; a layer may
	// be at most twice as large, for zooms and slides.
	MaxWidth, MaxHeight int
	MaxFPS              int
	// MaxDuration is in seconds; no layer may end later either.
	MaxDuration float64
	// MaxLayers bounds the layers (provider_a) or clips (unified).
	MaxLayers int
	// MaxAssets bounds the distinct files a render downloads, and the
	// entries of assetUrls.
	MaxAssets int
	// MaxTextLength bounds one text layer, in characters.
	MaxTextLength int
}

// DefaultLimits are the limits of a kino started without flags.
func DefaultLimits() Limits {
	return Limits{MaxWidth: 3840, MaxHeight: 2160, MaxFPS: 60, MaxDuration: 600, MaxLayers: 100, MaxAssets: 50, MaxTextLength: 5000}
}
