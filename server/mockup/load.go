package mockup

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"strings"

	"golang.org/x/image/webp"

	"github.com/kinohq/kino/server/psd"
)

// Limits are the reader's bounds for templates: the pixel limit is kino's
// (--max-image-pixels), the others the reader's defaults.
func Limits(maxPixels int64) psd.Limits {
	l := psd.DefaultLimits
	l.MaxPixels = maxPixels
	return l
}

// Load decodes the template at path and opens it. The file stays open
// while the template is used (pixels are read when first drawn); close it
// when done. A file kino will not draw is an error saying why, to show the
// user as it is.
//
// maxPixels is the node's one pixel bound (--max-image-pixels), the same
// for uploads, mockup.render and renders' mockup layers; there is no
// fallback to the reader's own, larger default, so a caller that forgot
// it reads nothing.
func Load(path string, maxPixels int64) (*Template, io.Closer, error) {
	if maxPixels <= 0 {
		return nil, nil, errors.New("mockup: no pixel bound to read the template under")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	file, err := psd.Decode(f, st.Size(), Limits(maxPixels))
	if err != nil {
		f.Close()
		return nil, nil, Reason(err)
	}
	t, err := Open(file)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return t, f, nil
}

// Reason turns a reader's error into the sentence a user reads.
func Reason(err error) error {
	var ue *psd.UnsupportedError
	var fe *psd.FormatError
	switch {
	case errors.As(err, &ue):
		if strings.HasSuffix(ue.Feature, "colour mode") || strings.HasSuffix(ue.Feature, "depth") {
			return fmt.Errorf("%w: the PSD uses %s, which kino does not read (it reads RGB and greyscale at 8, 16 or 32 bits, CMYK and Lab at 8 or 16, indexed and bitmap)", ErrRefused, ue.Feature)
		}
		return fmt.Errorf("%w: the PSD uses %s, which kino does not read", ErrRefused, ue.Feature)
	case errors.As(err, &fe):
		return fmt.Errorf("%w: the PSD is damaged or exceeds a limit: %s", ErrRefused, fe.Msg)
	}
	return err
}

// DesignSize reads a design's size from its header, without decoding it.
func DesignSize(path string) (w, h int, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	c, _, err := image.DecodeConfig(bufio.NewReader(f))
	if err != nil {
		return 0, 0, false
	}
	return c.Width, c.Height, true
}

// DecodeDesign reads a PNG, JPEG or WebP picture, refusing one larger than
// maxPixels from its header before decoding it.
func DecodeDesign(path string, maxPixels int64) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(12)
	var decode func(io.Reader) (image.Image, error)
	var config func(io.Reader) (image.Config, error)
	switch {
	case len(head) >= 8 && string(head[:8]) == "\x89PNG\r\n\x1a\n":
		decode, config = png.Decode, png.DecodeConfig
	case len(head) >= 3 && string(head[:3]) == "\xff\xd8\xff":
		decode, config = jpeg.Decode, jpeg.DecodeConfig
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		decode, config = webp.Decode, webp.DecodeConfig
	default:
		return nil, errors.New("the design is not a PNG, JPEG or WebP picture")
	}
	c, err := config(br)
	if err != nil {
		return nil, fmt.Errorf("the design could not be decoded: %v", err)
	}
	if int64(c.Width)*int64(c.Height) > maxPixels || c.Width <= 0 || c.Height <= 0 {
		return nil, fmt.Errorf("the design is %dx%d pixels, more than the limit of %d pixels", c.Width, c.Height, maxPixels)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, err := decode(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("the design could not be decoded: %v", err)
	}
	return img, nil
}
