package engine

// ValidationError names a field of the request, by its JSON path from the
// request root, and what is wrong with it:
//
//	composition.layers[2].src: no such asset key "logo" in assetUrls, and not an http or https URL
//
// Also holds the request's other problems, found in the same reading; Error
// names only the first, All every one.
type ValidationError struct {
	Field   string
	Message string
	Also    []ValidationError
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Message }

// All is every problem found, the first first.
func (e *ValidationError) All() []ValidationError {
	return append([]ValidationError{{Field: e.Field, Message: e.Message}}, e.Also...)
}

// MediaError is a downloaded source that does not fit the layer using it:
// an audio layer given a file without sound, an image layer given a file
// without a picture, a font that is not a font. Field is the JSON path of
// the reference (src or font).
type MediaError struct {
	Field   string
	Message string
}

func (e *MediaError) Error() string { return e.Field + ": " + e.Message }
