package executor

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/typeset"
)

// MaxBurnFontBytes bounds caption.burn's font input: libass reads every
// file of its fonts folder into memory.
const MaxBurnFontBytes = 64 << 20

// burnFontFile is a caption.burn job's font input, ready for libass.
type burnFontFile struct {
	// dir holds the font and nothing else: libass loads every file of the
	// folder it is given, so it is never the job's own folder.
	dir string
	// name selects the font for SRT and WebVTT text: its full name, which
	// libass matches exactly, where a family name could pick a system
	// font's regular face over the bold one given. "" for WOFF2.
	name string
	// names are every name libass knows the font by.
	names []string
}

// fontFormats are the signatures of the font files FreeType reads, and
// the name each is stored under. WOFF and WOFF2 are passed as they are:
// FreeType unpacks them itself (WOFF2 with Brotli), as libass's fontsdir
// loads them.
//
//nolint:gochecknoglobals // read-only table: font formats by magic number
var fontFormats = map[string]string{"\x00\x01\x00\x00": ".ttf", "true": ".ttf", "OTTO": ".otf", "ttcf": ".ttc", "wOFF": ".woff", "wOF2": ".woff2"}

// burnFont checks the font input, when there is one, and puts it in a
// folder of its own.
func burnFont(t Attempt) (burnFontFile, error) {
	in, ok := t.Inputs["font"]
	if !ok {
		return burnFontFile{}, nil
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return burnFontFile{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return burnFontFile{}, err
	}
	if fi.Size() > MaxBurnFontBytes {
		return burnFontFile{}, permanent(jobs.CodeInputInvalid, "inputs.font: the font is %s, larger than the limit of %s",
			ffmpeg.FormatBytes(fi.Size()), ffmpeg.FormatBytes(MaxBurnFontBytes))
	}
	head := make([]byte, 4)
	_, _ = io.ReadFull(f, head)
	ext, ok := fontFormats[string(head)]
	if !ok {
		return burnFontFile{}, permanent(jobs.CodeInputInvalid, "inputs.font: the file is not a TTF, OTF, WOFF or WOFF2 font")
	}
	out := burnFontFile{dir: filepath.Join(t.Dir, "fonts")}
	if err := os.MkdirAll(out.dir, 0o755); err != nil {
		return burnFontFile{}, err
	}
	if err := os.Link(in.Path, filepath.Join(out.dir, "font"+ext)); err != nil {
		return burnFontFile{}, err
	}
	if ext == ".woff2" {
		return out, nil
	}
	data, err := os.ReadFile(in.Path)
	if err != nil {
		return burnFontFile{}, err
	}
	font, err := typeset.Parse(data)
	if err != nil {
		return burnFontFile{}, permanent(jobs.CodeInputInvalid, "inputs.font: the font cannot be read: %v", err)
	}
	out.names = font.Names()
	// The name goes into a style line, whose fields commas split.
	for _, n := range append([]string{font.FullName()}, out.names...) {
		if n != "" && !strings.ContainsAny(n, ",\r\n") {
			out.name = n
			break
		}
	}
	return out, nil
}
