package engine

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/kinohq/kino/server/ffmpeg"
)

// Media is what Plan needs to know of a downloaded source.
type Media struct {
	// Path is the absolute path of the downloaded file.
	Path string
	// Format is the demuxer that opens it, from kino's probe; ffmpeg is
	// never left to guess.
	Format string
	// HasVideo and HasAudio say which streams the file has.
	HasVideo, HasAudio bool
	// Still is a single picture (PNG, JPEG, WebP, a one-frame GIF…),
	// repeated for its whole layer.
	Still bool
	// Font is a TrueType, OpenType or WOFF font file.
	Font bool
	// Template is a PSD template (Source.Template), read by Plan.
	Template bool
	// Duration in seconds, 0 for a picture.
	Duration float64
	// Width and Height of the picture as decoded: a video whose container
	// asks for a quarter turn (a phone held upright) is decoded turned, so
	// its sides are swapped here.
	Width, Height int
}

// MediaFromInfo describes a probed file.
func MediaFromInfo(path string, info *ffmpeg.Info) Media {
	m := Media{Path: path, Duration: info.Duration}
	m.Format, _ = info.Demuxer()
	if v := info.Video(); v != nil {
		m.HasVideo, m.Width, m.Height = true, v.Width, v.Height
		if v.Rotation%180 != 0 {
			m.Width, m.Height = v.Height, v.Width
		}
		// Picture demuxers are image2 (chosen by extension) or *_pipe
		// (chosen by content, as for kino's downloads, which have no
		// extension); a GIF of one frame is a picture too.
		m.Still = info.FormatName == "image2" || strings.HasSuffix(info.FormatName, "_pipe") ||
			v.NbFrames == 1 || (v.NbFrames == 0 && info.Duration == 0)
	}
	m.HasAudio = info.Audio() != nil
	return m
}

// fontMagic are the first bytes of the font formats freetype reads.
//
//nolint:gochecknoglobals // read-only table: the magic numbers of font files
var fontMagic = [][]byte{
	{0x00, 0x01, 0x00, 0x00}, []byte("OTTO"), []byte("true"), []byte("ttcf"), []byte("wOFF"), []byte("wOF2"),
}

// FontFromFile describes a downloaded font: Font is set when the file
// starts with the signature of a font format. Only an unreadable file is an
// error; a file that is not a font is reported by Plan, as a *MediaError
// naming the layer's font field.
func FontFromFile(path string) (Media, error) {
	f, err := os.Open(path)
	if err != nil {
		return Media{}, err
	}
	defer f.Close()
	head := make([]byte, 4)
	if _, err := io.ReadFull(f, head); err != nil {
		return Media{Path: path}, nil
	}
	for _, m := range fontMagic {
		if bytes.Equal(head, m) {
			return Media{Path: path, Font: true}, nil
		}
	}
	return Media{Path: path}, nil
}
