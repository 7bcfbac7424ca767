// Package psd reads Adobe Photoshop documents (PSD, and PSB, the large
// document format) far enough to re-render a mockup template: the canvas,
// the layer tree with blend modes, opacity, masks and clipping, placed
// (smart object) layers with their transform and warp, solid-colour fills,
// text layers' text and the merged image. It is pure Go and treats every
// file as hostile.
//
// # Memory
//
// Decode reads the header, the alpha identifiers among the image
// resources and the layer records, and keeps only those records (names,
// rectangles, channel offsets, the geometry of placed layers: a warp mesh
// is at most 193x193 points) plus the embedded files of smart objects,
// at most Limits.MaxEmbeddedBytes in all, and a CMYK file's ICC profile
// table (at most 17^4 nodes, 1.5 MB; more is not read). What it keeps grows with the
// records' bytes in the file, never with the pixels they declare. While a
// block is read, its descriptor tree is held: at most 262,144 items
// (about 20 MB), nested at most Limits.MaxDescriptorDepth deep.
//
// Pixels stay in the io.ReaderAt. Layer.Image, Mask.Image and
// File.Composite each decode one picture when called and hold, besides
// the picture they return (4 bytes a pixel, 1 for a mask, width*height at
// most Limits.MaxPixels): one channel's compressed bytes for RLE (at most
// its raw size and 1/128 more, so 2 bytes a pixel at 16 bits), or a
// 32 KiB inflate window for ZIP, and a row. The merged image's RLE row
// counts (4 bytes a row a channel) are held too. So decoding the largest
// allowed layer costs about 6 bytes a pixel at 8 bits, 8 at 16, 10 at 32;
// a CMYK picture holds its black channel apart, one byte a pixel more.
//
// Every declared size is checked against Limits.MaxPixels, and every
// length against the file and the section holding it, before anything is
// allocated for it; a channel too short for its declared size (less than
// its raw size, 2 bytes per 128 of a row for RLE, a 1032th for deflate) is
// refused before the picture is allocated. zlib streams are read no
// further than the channel's size and one byte, so a ZIP bomb costs no
// more than an honest channel, and is refused by that byte. All layers,
// masks and filter masks (each decoded once, however many smart objects
// name it) together may declare at most 8 times Limits.MaxPixels (a render
// holds them all), a fill counting the canvas (it is blended over all of
// it) and a smart object the canvas its quad's box covers (a design drawn
// into it is that large), and groups nest at most 16 deep; the layers'
// paths, each repeating its groups' names, take at most 16 MiB in all. A
// placed layer's geometry (quad corners, content size, warp points, bounds
// and slices) must be finite numbers within ±1e7 pixels, or the layer is
// refused by name.
//
// # Placed layers
//
// Photoshop maps a smart object's content to the canvas in two steps.
// The warp (Placed.Warp) first moves each content point: the content
// rectangle Warp.Bounds (content pixels) is split into Rows x Cols patches
// (at SlicesX/SlicesY for a quilt, evenly otherwise), and each patch is a
// bicubic Bezier patch whose 4x4 control points are in Warp.Points, in
// content pixels, and may lie outside Bounds. Then the bounding box of the
// warped mesh's control points (Placed.Extent) is mapped onto the quad
// Placed.NonAffine (canvas pixels; top-left, top-right, bottom-right,
// bottom-left) by the perspective transform taking that box's corners to
// the quad's. Without a warp the box is the content rectangle
// (0,0)-(Width,Height), so the content maps straight onto the quad:
//
//	canvas = Perspective(Extent -> NonAffine)(Warp(content point))
//
// That the quad frames the warped mesh, not the content, is measured on
// the six quilt-warped layers of testdata/photoshop/ag-werps.psd: in each,
// the quad's width and height are the control points' extent times one
// same scale (0.2185365 both ways, to 7 digits), so a mesh bulging
// 167.6 px above the content's top still has its top on the quad's.
// Placed.Transform (Trnf) is the affine part alone: draw with NonAffine.
package psd

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Limits bound what a hostile file can cost; Decode refuses anything over
// them before allocating.
type Limits struct {
	// MaxPixels bounds the canvas and every layer, mask and channel:
	// width*height (kino's --max-image-pixels).
	MaxPixels int64
	// MaxLayers bounds the number of layer records, group dividers included.
	MaxLayers int
	// MaxDescriptorDepth bounds the nesting of action descriptors (and
	// lists) in placed-layer, text and other records.
	MaxDescriptorDepth int
	// MaxEmbeddedBytes bounds the embedded files of linked smart objects,
	// in all.
	MaxEmbeddedBytes int64
}

// DefaultLimits are the bounds used when a Limits field is zero.
//
//nolint:gochecknoglobals // read-only: the documented default bounds, copied by Decode where a field is zero
var DefaultLimits = Limits{
	MaxPixels:          100_000_000,
	MaxLayers:          2000,
	MaxDescriptorDepth: 32,
	MaxEmbeddedBytes:   256 << 20,
}

// maxDescriptorItems bounds the items of one descriptor tree (all its
// structures and lists together), so that a block of millions of tiny
// items, each a few bytes of the file and some 80 bytes parsed, costs at
// most about 20 MB while it is read. Photoshop's largest (smart filters,
// quilt warps) hold a few thousand.
const maxDescriptorItems = 1 << 18

// ColorMode is the document's colour mode, as the header stores it.
type ColorMode int

// The colour modes of the header. RGB, Grayscale, CMYK, Lab, Indexed and
// Bitmap are decoded (converted to RGB: cmykProfile, labPixelToRGB, the
// palette, black and white); the others are refused.
const (
	Bitmap       ColorMode = 0
	Grayscale    ColorMode = 1
	Indexed      ColorMode = 2
	RGB          ColorMode = 3
	CMYK         ColorMode = 4
	Multichannel ColorMode = 7
	Duotone      ColorMode = 8
	Lab          ColorMode = 9
)

// String names the mode as Photoshop's menu does.
func (m ColorMode) String() string {
	switch m {
	case Bitmap:
		return "bitmap"
	case Grayscale:
		return "greyscale"
	case Indexed:
		return "indexed"
	case RGB:
		return "RGB"
	case CMYK:
		return "CMYK"
	case Multichannel:
		return "multichannel"
	case Duotone:
		return "duotone"
	case Lab:
		return "Lab"
	}
	return fmt.Sprintf("colour mode %d", int(m))
}

// UnsupportedError says that a file uses a feature this package does not
// decode, by name: "CMYK colour mode", "32-bit depth".
type UnsupportedError struct{ Feature string }

func (e *UnsupportedError) Error() string { return "psd: unsupported: " + e.Feature }

// FormatError says that a file is malformed or exceeds a Limit, and where.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return "psd: " + e.Msg }

// errorf makes a FormatError; a FormatError among args is quoted without
// its "psd: " prefix, so nested contexts read as one sentence.
func errorf(format string, args ...any) error {
	for i, a := range args {
		if fe, ok := a.(*FormatError); ok {
			args[i] = fe.Msg
		}
	}
	return &FormatError{Msg: fmt.Sprintf(format, args...)}
}

// File is a decoded document: its records; pixels are read on demand from
// the io.ReaderAt given to Decode, which must stay readable. Nothing in a
// File changes after Decode, so its layers' pictures may be decoded from
// several goroutines at once (io.ReaderAt allows parallel reads).
type File struct {
	Width, Height int
	// Depth is the file's bits per channel, 1 (Bitmap), 8, 16 or 32 (floats in linear
	// light); pictures are always returned at 8 bits, 32-bit colour
	// through the sRGB curve (see toneMap).
	Depth int
	// Mode is RGB, Grayscale, CMYK, Lab, Indexed or Bitmap; others are
	// refused by name. Pictures are returned in RGB whatever the mode.
	Mode ColorMode
	// PSB is true for the large document format (version 2).
	PSB bool
	// Layers are the top-level layers, bottom to top (the order Photoshop
	// stores).
	Layers []*Layer
	// Linked holds the files embedded for smart objects, by unique id
	// (lnk2, lnk3, lnkD, lnkE); a Placed.ID names one.
	Linked map[string]*LinkedFile

	r        readerAt
	lim      Limits
	channels int   // channels of the merged image
	merged   int64 // offset of the merged image section
	alphaIDs []uint32
	// mergedTransparency is set by an Mtrn block: the merged image's
	// first extra channel is its transparency.
	mergedTransparency bool
	pixels             int64 // see Pixels
	// palette is an indexed file's colours: 256 reds, greens, blues.
	palette []byte
	// transparentIndex is an indexed file's transparent colour, -1 for
	// none (image resource 1047).
	transparentIndex int
	// profile converts a CMYK file's pixels to RGB, nil when the file
	// has no ICC profile kino reads.
	profile *cmykProfile
	// globalAngle is the document's light for effects that use it
	// (image resource 1037), in degrees; 120 when absent.
	globalAngle float64
	// patterns are the patterns the file embeds (Patt, Pat2, Pat3), by
	// ID.
	patterns map[string]*Pattern
}

// Pixels is what drawing every layer would hold: the pixels that the
// layer and mask records declare, a fill counting the canvas, a smart
// object the canvas its quad's box covers besides its own, and the
// smart objects' filter masks (decoded with the file, once each). Decode
// refuses more than 8 times Limits.MaxPixels.
func (f *File) Pixels() int64 { return f.pixels }

// Kind says what a layer is.
type Kind int

// The kinds of layer.
const (
	KindPixel Kind = iota
	KindGroup
	KindSmartObject
	KindFill
	KindText
	KindAdjustment
	KindShape
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindPixel:
		return "pixel"
	case KindGroup:
		return "group"
	case KindSmartObject:
		return "smart object"
	case KindFill:
		return "fill"
	case KindText:
		return "text"
	case KindAdjustment:
		return "adjustment"
	case KindShape:
		return "shape"
	}
	return fmt.Sprintf("kind %d", int(k))
}

// BlendMode is a Photoshop blend mode by name: "normal", "dissolve",
// "darken", "multiply", "color burn", "linear burn", "darker color",
// "lighten", "screen", "color dodge", "linear dodge", "lighter color",
// "overlay", "soft light", "hard light", "vivid light", "linear light",
// "pin light", "hard mix", "difference", "exclusion", "subtract",
// "divide", "hue", "saturation", "color", "luminosity", "pass through".
// An unknown key is kept as "key:XXXX".
type BlendMode string

// Layer is one layer record (or a group, built from its section dividers).
type Layer struct {
	// Name is the Unicode name (luni) when present, else the Pascal name.
	Name string
	// Path joins the names of the enclosing groups and the layer's with
	// '/' (a '/' inside a name is kept as it is).
	Path string
	Kind Kind
	// Rect is the canvas rectangle of its pixels (empty for a group).
	Rect image.Rectangle
	// Visible is the layer's own eye in the layers panel: a hidden group
	// hides its children whatever theirs say.
	Visible bool
	Opacity uint8
	// FillOpacity is iOpa: it scales the pixels but not the effects; 255
	// when absent.
	FillOpacity uint8
	Blend       BlendMode
	// Clipped is true when the layer is clipped to the nearest non-clipped
	// layer below it.
	Clipped bool
	// Mask is the user mask, nil when none.
	Mask *Mask
	// Children are a group's layers, bottom to top.
	Children []*Layer
	// Placed describes a smart object, nil for other kinds.
	Placed *Placed
	// FillColor is a solid-colour fill's colour (SoCo).
	FillColor *color.NRGBA
	// FillPattern is a pattern fill's pattern and tiling (PtFl), nil
	// for other layers and for a pattern fill whose pattern the file
	// does not hold (Unsupported names it).
	FillPattern *PatternFill
	// FillGradient is a gradient fill's settings (GdFl), nil for other
	// layers and for a gradient kino does not draw (Unsupported names
	// it). A gradient fill with pixels is drawn from them, one without
	// from these.
	FillGradient *GradientFill
	// Reference is the layer's reference point (fxrp): where a pattern
	// linked with the layer starts.
	Reference Point
	// Text holds a text layer's text (TySh).
	Text *Text
	// Adjustment is an adjustment layer kino draws; nil for other
	// layers and for adjustments it does not (Unsupported names them).
	Adjustment *Adjustment
	// Vector is its vector mask (a shape's outline), nil when none.
	Vector *VectorMask
	// PathMask says that Vector must be drawn as a mask over the layer's
	// pixels: the file holds no rendering of it as the layer's mask
	// (a layer with both a user mask and a vector mask keeps only the
	// user mask in Mask). A layer whose only mask is its vector mask's
	// rendering has it in Mask, and PathMask false.
	PathMask bool
	// Stroke is a shape's vector stroke (vstk), nil when none.
	Stroke *VectorStroke
	// OffChannels has bit i set when channel i (0 red, 1 green, 2 blue)
	// is left out of the layer's blending: there the backdrop stays as
	// it is (Advanced Blending's channel boxes).
	OffChannels uint8
	// Effects are its layer effects switched on (lfx2), nil when none.
	Effects *Effects
	// Unsupported names features present but not drawn by a re-render:
	// "layer effects", "smart filter: Liquify", "adjustment: curves", ...
	Unsupported []string

	// Index is the layer's position among all records, bottom first, as
	// error messages count them.
	Index int

	f        *File
	channels []channelInfo
	divider  int // lsct type: 0 none, 1 open group, 2 closed group, 3 end
	blendIf  bool
	effects  int
	multiFX  bool // effects read from lmfx, which lfx2 does not replace
	// vectorFillOther: the shape's fill (vscg) is a gradient or pattern.
	vectorFillOther bool
}

// Mask is a layer's user mask.
type Mask struct {
	// Rect is the canvas rectangle of its pixels.
	Rect image.Rectangle
	// DefaultColor is the mask's value outside Rect.
	DefaultColor uint8
	// Disabled is true when the mask is switched off.
	Disabled bool
	// Relative is true when the mask's position is relative to the layer
	// (it moves with it); Rect is in canvas coordinates either way.
	Relative bool

	l    *Layer
	ch   int      // index in l.channels
	real bool     // the real user mask (channel -3)
	raw  [4]int32 // top, left, bottom, right as read, checked later
	// userDensity and vectorDensity are the masks panel's densities
	// (255 full); density is the one Image applies.
	userDensity, vectorDensity, density uint8
	feather                             bool
}

// Point is a position in pixels.
type Point struct{ X, Y float64 }

// Placed is a placed (smart object) layer's geometry.
type Placed struct {
	// ID is the unique id of its LinkedFile in File.Linked.
	ID string
	// Transform is Trnf: canvas corners top-left, top-right,
	// bottom-right, bottom-left of the affine part of the transform. Once
	// a perspective or distortion is applied it no longer bounds the layer
	// (in testdata/photoshop/ag-placed-transform.psd it reaches y=1283 on
	// a layer that ends at 986): draw with NonAffine.
	Transform [4]Point
	// NonAffine is the quad the content is drawn into
	// (nonAffineTransform), same corner order; it equals Transform when
	// the transform is affine or when the file has no nonAffineTransform.
	NonAffine [4]Point
	// Width and Height are the content's size (Sz).
	Width, Height float64
	// Crop is the content's crop when the file records one. The files
	// seen so far record only a page-crop mode (the number Crop, for PDF
	// content), no rectangle, so it is nil.
	Crop *image.Rectangle
	// Warp is nil when the layer has no warp (warpNone, or an identity
	// custom warp).
	Warp *Warp
	// Filters are the smart filters kino draws, in the order Photoshop
	// applies them, over the content once it is placed on the canvas.
	// The layer's own pixels already hold them (Photoshop's rendering):
	// they apply to a design put in its place. Filters kino does not
	// draw are named in the layer's Unsupported instead.
	Filters []SmartFilter
	// FilterMask is the smart filters' mask when it is switched on and
	// painted, nil otherwise: the filters mixed over the unfiltered
	// design by it.
	FilterMask *FilterMask

	instance         string // the placed-layer descriptor's "placed" id
	maskOn           bool   // filterMaskEnable
	maskOutsideWhite bool   // filterMaskExtendWithWhite
}

// SmartFilter is one smart filter of a smart object (filterFX).
type SmartFilter struct {
	// Name is the filter's name in Photoshop's panel ("Gaussian Blur").
	Name string
	// ID is the filter's four-character id: "GsnB" for Gaussian blur.
	ID string
	// Radius is a Gaussian blur's radius, in canvas pixels (0 to 1000).
	Radius float64
	// Opacity is the filter's blending opacity, 0 to 1: the filtered
	// picture mixed over the unfiltered one.
	Opacity float64
	// Blend is its blending mode; kino draws "normal" only.
	Blend BlendMode
}

// Warp is a smart object's warp: a grid of bicubic Bezier patches over
// Bounds, in content pixels.
type Warp struct {
	// Style is the warp style: "warpCustom", "warpArc", ...; for a quilt
	// warp (Quilt true) it is the style of the quilt descriptor.
	Style string
	// Quilt is true for a quilt warp (a grid of several patches).
	Quilt bool
	// Bounds is the warped area: top, left, bottom, right in content
	// pixels.
	Bounds [4]float64
	// Rows and Cols count the patches; a plain custom warp is 1x1.
	Rows, Cols int
	// Points are the (3*Rows+1)*(3*Cols+1) Bezier control points, row
	// major, in content pixels. Empty for a preset style (warpArc,
	// warpCylinder, ...) whose mesh Photoshop does not store; the layer's
	// Unsupported then names "warp preset: <style>".
	Points []Point
	// SlicesX and SlicesY are a quilt's slice positions (content pixels).
	SlicesX, SlicesY []float64
}

// LinkedFile is a file embedded for a smart object.
type LinkedFile struct {
	ID   string
	Name string
	// Type is the file type Photoshop records, trailing spaces trimmed
	// ("png", "JPEG", "8BPS", ...); empty when the writer left it blank.
	Type string
	// Data is the embedded file; nil for a file linked outside the PSD.
	Data []byte
}

// Text is a text layer's content.
type Text struct {
	Value string
	// Substituted is the text data's substitutesUsed: the layer's fonts
	// were missing where it was last saved, so its pixels are an older
	// rendering Photoshop could not redo.
	Substituted bool
}

// Extent is the box of content space that NonAffine frames: the
// bounding box of the warp's control points, or (0,0)-(Width,Height)
// without a warp (or with a preset warp whose mesh is not stored: then
// Warp.Bounds).
func (p *Placed) Extent() (min, max Point) {
	if w := p.Warp; w != nil {
		if len(w.Points) == 0 {
			return Point{w.Bounds[1], w.Bounds[0]}, Point{w.Bounds[3], w.Bounds[2]}
		}
		min, max = w.Points[0], w.Points[0]
		for _, q := range w.Points[1:] {
			min.X, min.Y = math.Min(min.X, q.X), math.Min(min.Y, q.Y)
			max.X, max.Y = math.Max(max.X, q.X), math.Max(max.Y, q.Y)
		}
		return min, max
	}
	return Point{}, Point{p.Width, p.Height}
}

// Walk calls fn for every layer, depth first, bottom to top, a group
// before its children. It stops at the first error.
func (f *File) Walk(fn func(*Layer) error) error { return walk(f.Layers, fn) }

func walk(ls []*Layer, fn func(*Layer) error) error {
	for _, l := range ls {
		if err := fn(l); err != nil {
			return err
		}
		if err := walk(l.Children, fn); err != nil {
			return err
		}
	}
	return nil
}

// Find returns the layer with this path ("name", or "group/name" inside
// groups), or nil. When paths repeat, the topmost layer wins, as Photoshop's
// layer panel shows it first.
func (f *File) Find(path string) *Layer {
	var found *Layer
	f.Walk(func(l *Layer) error {
		if l.Path == path {
			found = l
		}
		return nil
	})
	return found
}
