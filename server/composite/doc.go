// Package composite draws a Photoshop layer tree the way Photoshop does,
// and warps a design into a smart object's place, in pure Go. It knows
// nothing of the PSD format: server/mockup turns a decoded file into
// Layers and Mappings.
//
// # Colour
//
// Everything is 8-bit sRGB, not premultiplied (image.NRGBA), blended on
// the encoded values as Photoshop blends an 8-bit RGB document: no
// linearisation, no colour management. Each step rounds to 8 bits, as
// Photoshop's does.
//
// # Blend modes
//
// The separable modes are the W3C Compositing and Blending formulas
// (Adobe's own, from the PDF reference), made into a 256×256 table per
// mode the first time it is drawn. Three points where Photoshop is not
// the textbook, all pinned by psd-tools against Photoshop's renders:
//
//   - Soft light is the W3C formula, D(b) bending at b = ¼ (a cubic below,
//     √b above). Not the "pegtop" formula or 2bs + b²(1 − 2s) often quoted
//     as Photoshop's: they differ by up to a tenth on dark backdrops.
//   - Vivid light lets the source's extremes win (s = 0 gives 0, s = 1
//     gives 1, whatever the backdrop), where colour burn and dodge keep
//     the backdrop's (b = 1 burns to 1, b = 0 dodges to 0).
//   - Hard mix gives 1 where b + s > 1, and where b + s = 1 exactly only
//     if b > ½.
//
// Hue, saturation, colour and luminosity are the W3C non-separable modes
// (Lum with 0.3, 0.59, 0.11, SetLum, SetSat, ClipColor); darker and
// lighter colour take the whole pixel with the lower or higher Lum.
// Dissolve shows each pixel whole or not at all, with the probability of
// its alpha, from a fixed noise (the same picture every time).
//
// Compositing is the W3C source-over with blending:
//
//	αo = αs + αb·(1 − αs)
//	Co = (αs·(1 − αb)·Cs + αs·αb·B(Cb, Cs) + (1 − αs)·αb·Cb) / αo
//
// where αs is the layer's pixel alpha × Opacity × FillOpacity × mask.
// Opacity and fill opacity differ in Photoshop only for layer effects,
// which this package does not draw.
//
// # Layer tree
//
// Flatten draws a list bottom to top. Hidden layers are skipped. A mask
// is canvas-positioned, its default value outside its rectangle. A fill
// covers the canvas.
//
// A group with any mode but pass through is isolated: its children are
// composited onto a transparent picture, which is then blended onto the
// backdrop with the group's mode, opacity and mask (so a multiply child
// of a normal group multiplies only its siblings). A pass-through group's
// children are drawn straight onto the backdrop; with an opacity under 1
// or a mask, they are drawn onto a copy of the backdrop and the result is
// backdrop + (copy − backdrop) × opacity × mask, in premultiplied colour.
//
// Clipping follows Photoshop with "blend clipped layers as group" (its
// default) and psd-tools: a base (a layer not clipped) and the clipped
// layers right above it form a unit. The clipped layers blend, each with
// its own mode, opacity and mask, onto the base's own pixels, in
// isolation from what lies below the base, and never change the base's
// alpha: they show only where the base is, as much as it is. The unit
// then blends onto the backdrop with the base's mode, opacity, fill
// opacity and mask. A hidden base hides its clipped layers. A
// pass-through group as a base is drawn as psd-tools draws it (the PDF's
// non-isolated group): its children onto the backdrop, the backdrop then
// taken out again under the alpha the children cover, so that the unit
// drawn normally over the backdrop is the pass-through drawing wherever
// no clipped layer paints. A clipped layer that can paint nothing
// (transparent, empty) is no clipped layer at all.
//
// # Warps
//
// A Mapping takes the design's unit square to the canvas: Perspective (a
// homography by the four corners), Mesh (Photoshop's warp envelope:
// bicubic Bézier patches of 4×4 control points, shared at the borders)
// and Then to chain them, as a smart object is drawn: canvas =
// Perspective(corners)(Mesh(point in the content's unit square)).
//
// Warp maps every canvas pixel centre back to the design. A perspective
// is inverted exactly (Then folds two perspectives into one). Anything
// else is tessellated (64 cells a side for one patch, 8 a patch for many,
// at most 512 a side unless the patches alone are more, and no finer
// than 2 canvas pixels a cell), the triangles'
// vertices mapped exactly and their insides affinely, and a final
// perspective still inverted exactly per pixel. A mesh folded over itself
// many times (only a hostile file's) is drawn in part: the triangles'
// boxes may cover the picture's pixels 16 times in all, and those past
// that are left out, as an honest warp's cover them about twice.
// The design is sampled bilinearly where it grows or shrinks by less than
// √2; where it shrinks more, trilinearly from its mip levels (2×2 box
// averages, made only when needed), the level chosen by the longer side
// of the pixel's footprint, from the mapping's Jacobian.
// Under a perspective alone, a design more than 1.5 times larger than its
// place everywhere is first resampled to that place's size by
// Catmull-Rom (its kernel widened by the shrink), as Photoshop's bicubic
// transform does: the box-averaged levels alone are softer than
// Photoshop's picture (26 dB against 33 on a Photoshop-written file). A
// mesh keeps the mip levels alone: Photoshop's warps resample softer, and
// match them better so (36 dB against 31 on its quilt warps).
// Filtering works on premultiplied colour, so transparent pixels bleed no
// colour. The outline is antialiased by the coverage of each pixel
// (0.5 + its distance to the outline, the outline's corners multiplying
// two such factors); outside it the picture is transparent.
//
// Unmap gives, by the same tessellation, the point of the design each
// pixel Warp draws samples: the inverse of a mapping, for a renderer that
// resamples frames itself (the mockup layer's maps for ffmpeg's remap).
//
// # Memory
//
// What a drawing holds depends on the canvas and the pictures given, not
// on a mapping's numbers. A Texture holds the design premultiplied (4
// bytes a pixel), its mip levels when a warp needs them (a third more)
// or one copy shrunk to its place; shrinking by Catmull-Rom keeps one
// row of weights a core along the long side rather than a kernel (16
// bytes a source pixel). Warp returns a picture of the part of the canvas
// the design meets, and a mesh's tessellation holds about 200 bytes a
// triangle, 2 × 512² at most (about 110 MB). Flatten holds the canvas,
// and for each level of isolated groups being drawn (or pass-through
// groups with an opacity under 1 or a mask) a picture of the group's part
// of the canvas; a group that is a clipping base takes its
// clipped layers in that same picture, any other base in a copy.
package composite
