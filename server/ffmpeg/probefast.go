package ffmpeg

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	_ "image/jpeg" // registers JPEG for image.DecodeConfig
	_ "image/png"  // registers PNG for image.DecodeConfig
	"io"
	"math"
	"os"
)

// ProbeFast answers as Probe does, but reads the containers that media
// jobs meet most (MP4/MOV that is not fragmented, PNG, JPEG, MP3 with a
// Xing or Info frame, PCM WAV) itself: each
// ffprobe run costs about 50 ms before it reads a byte, loading some 200
// shared libraries, which is most of a short job's overhead. Anything it
// does not fully understand (another container, a fragmented or encrypted
// file, an unknown codec) goes to ffprobe. It fills what the executors use:
// FormatName, Duration and, per stream, CodecType, CodecName, Width,
// Height, NbFrames, FPS, Duration, SampleRate and Channels; not PixFmt.
// l bounds what it opens and ffprobe's memory, as Probe's.
func ProbeFast(ctx context.Context, l Limits, path string) (*Info, error) {
	ctx, span := startProbe(ctx, readerKino)
	if info, ok := readContainer(path); ok {
		return endProbe(span, info, info.check(l))
	}
	span.SetAttributes(readerAttr(readerFFprobe))
	info, err := probe(ctx, l, path, false)
	return endProbe(span, info, err)
}

// readContainer reads the file's own headers; ok is false when ffprobe
// should answer instead.
func readContainer(path string) (*Info, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var head [12]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, false
	}
	switch {
	case bytes.HasPrefix(head[:], []byte("\x89PNG\r\n\x1a\n")):
		return readPicture(f, "png_pipe", "png")
	case bytes.HasPrefix(head[:], []byte{0xff, 0xd8, 0xff}):
		return readPicture(f, "jpeg_pipe", "mjpeg")
	case string(head[4:8]) == "ftyp":
		return readMP4(f)
	case string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE":
		return readWAV(f)
	case string(head[:3]) == "ID3" || head[0] == 0xff && head[1]&0xe0 == 0xe0:
		return readMP3(f)
	}
	return nil, false
}

// mp3Rates are the sample rates of MPEG audio by version (2.5, -, 2, 1)
// and rate index.
//
//nolint:gochecknoglobals // read-only table: MPEG audio sample rates
var mp3Rates = [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}

// readMP3 reads an MP3 whose first frame is a Xing or Info frame with a
// frame count, as LAME (and so ffmpeg) writes: the duration is the count
// of frames times their samples, exactly as ffprobe reckons it. Without
// one, only reading every frame tells the duration: ffprobe's work.
func readMP3(f *os.File) (*Info, bool) {
	var b [128]byte
	n, _ := f.ReadAt(b[:10], 0)
	var off int64
	if n == 10 && string(b[:3]) == "ID3" {
		// The tag's size is four bytes of seven bits.
		off = 10 + (int64(b[6]&0x7f)<<21 | int64(b[7]&0x7f)<<14 | int64(b[8]&0x7f)<<7 | int64(b[9]&0x7f))
		if b[5]&0x10 != 0 { // a footer follows the tag
			off += 10
		}
	}
	if n, _ := f.ReadAt(b[:], off); n < 64 {
		return nil, false
	}
	h := binary.BigEndian.Uint32(b[:4])
	version, layer, rate, mode := (h>>19)&3, (h>>17)&3, (h>>10)&3, (h>>6)&3
	if h>>21 != 0x7ff || version == 1 || layer != 1 || rate == 3 {
		return nil, false // not an MPEG audio Layer III frame
	}
	sampleRate := mp3Rates[version][rate]
	channels, side, samples := 2, 32, 1152
	if mode == 3 {
		channels, side = 1, 17
	}
	if version != 3 { // MPEG 2 and 2.5: half the samples, shorter side info
		samples, side = 576, map[int]int{32: 17, 17: 9}[side]
	}
	tag := b[4+side:]
	if string(tag[:4]) != "Xing" && string(tag[:4]) != "Info" || binary.BigEndian.Uint32(tag[4:8])&1 == 0 {
		return nil, false
	}
	frames := binary.BigEndian.Uint32(tag[8:12])
	if frames == 0 {
		return nil, false
	}
	d := float64(frames) * float64(samples) / float64(sampleRate)
	return &Info{FormatName: "mp3", Duration: d, Streams: []Stream{{
		CodecType: "audio", CodecName: "mp3", SampleRate: sampleRate, Channels: channels, Duration: d}}}, true
}

// wavCodecs name plain PCM by its format tag (1 integer, 3 float) and
// bits per sample.
//
//nolint:gochecknoglobals // read-only table: WAV format tags to codecs
var wavCodecs = map[[2]int]string{
	{1, 8}: "pcm_u8", {1, 16}: "pcm_s16le", {1, 24}: "pcm_s24le", {1, 32}: "pcm_s32le", {3, 32}: "pcm_f32le", {3, 64}: "pcm_f64le",
}

// pcmSubFormat is the tail of the sub-format GUID of WAVE_FORMAT_EXTENSIBLE
// PCM, after its two-byte format tag.
//
//nolint:gochecknoglobals // read-only: the GUID tail of PCM in WAVE_FORMAT_EXTENSIBLE
var pcmSubFormat = []byte("\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71")

// readWAV reads a PCM WAV's fmt and data chunks, plain or
// WAVE_FORMAT_EXTENSIBLE (as ffmpeg writes past 16 bits or 2 channels);
// other encodings go to ffprobe.
func readWAV(f *os.File) (*Info, bool) {
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	var codec string
	var channels, sampleRate, byteRate int
	for off := int64(12); off+8 <= st.Size(); {
		var h [8]byte
		if _, err := f.ReadAt(h[:], off); err != nil {
			return nil, false
		}
		size := int64(binary.LittleEndian.Uint32(h[4:]))
		switch string(h[:4]) {
		case "fmt ":
			var fm [40]byte
			if size < 16 {
				return nil, false
			}
			if _, err := f.ReadAt(fm[:min(size, 40)], off+8); err != nil {
				return nil, false
			}
			tag, bits := int(binary.LittleEndian.Uint16(fm[:])), int(binary.LittleEndian.Uint16(fm[14:]))
			if tag == 0xfffe {
				// cbSize 22, valid bits, channel mask, then the sub-format.
				valid := int(binary.LittleEndian.Uint16(fm[18:]))
				if size < 40 || valid != bits || !bytes.Equal(fm[26:40], pcmSubFormat) {
					return nil, false
				}
				tag = int(binary.LittleEndian.Uint16(fm[24:]))
			}
			codec = wavCodecs[[2]int{tag, bits}]
			channels = int(binary.LittleEndian.Uint16(fm[2:]))
			sampleRate = int(binary.LittleEndian.Uint32(fm[4:]))
			byteRate = int(binary.LittleEndian.Uint32(fm[8:]))
		case "data":
			// A size past the end (a stream's placeholder) is ffprobe's to judge.
			if codec == "" || channels == 0 || byteRate == 0 || off+8+size > st.Size() {
				return nil, false
			}
			d := float64(size) / float64(byteRate)
			return &Info{FormatName: "wav", Duration: d, Streams: []Stream{{
				CodecType: "audio", CodecName: codec, SampleRate: sampleRate, Channels: channels, Duration: d}}}, true
		}
		off += 8 + size + size&1 // chunks are padded to an even size
	}
	return nil, false
}

func readPicture(f *os.File, format, codec string) (*Info, bool) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	cfg, _, err := image.DecodeConfig(f)
	if err != nil {
		return nil, false
	}
	return &Info{FormatName: format, Streams: []Stream{{CodecType: "video", CodecName: codec, Width: cfg.Width, Height: cfg.Height}}}, true
}

// movFormat is ffprobe's name for the whole ISO base media family.
const movFormat = "mov,mp4,m4a,3gp,3g2,mj2"

// errUnsupported sends a file to ffprobe.
var errUnsupported = errors.New("not read natively")

// box is one ISO BMFF box: its type and its payload.
type box struct {
	typ     string
	payload *io.SectionReader
}

// maxBoxes bounds the boxes one level of a file may hold for boxes to list
// them. Real files have a handful at every level the reader looks into (a
// track per stream, and ffmpeg opens at most 1000 streams); a hostile one
// could hold an 8-byte box for every 8 bytes of an upload, each listed in
// kino's own memory. More go to ffprobe, which runs under its memory limit.
const maxBoxes = 1024

// boxes lists the boxes in r, in order.
func boxes(r *io.SectionReader) ([]box, error) {
	var out []box
	var off int64
	for off < r.Size() {
		if len(out) == maxBoxes {
			return nil, errUnsupported
		}
		var h [8]byte
		if _, err := r.ReadAt(h[:], off); err != nil {
			return nil, err
		}
		size, hdr := int64(binary.BigEndian.Uint32(h[:4])), int64(8)
		switch size {
		case 0: // to the end of the enclosing space
			size = r.Size() - off
		case 1: // a 64-bit size follows
			var l [8]byte
			if _, err := r.ReadAt(l[:], off+8); err != nil {
				return nil, err
			}
			size, hdr = int64(binary.BigEndian.Uint64(l[:])), 16
		}
		if size < hdr || off+size > r.Size() {
			return nil, errUnsupported
		}
		out = append(out, box{typ: string(h[4:8]), payload: io.NewSectionReader(r, off+hdr, size-hdr)})
		off += size
	}
	return out, nil
}

func child(bs []box, typ string) *io.SectionReader {
	for _, b := range bs {
		if b.typ == typ {
			return b.payload
		}
	}
	return nil
}

// children lists the boxes inside the box typ of bs.
func children(bs []box, typ string) ([]box, error) {
	r := child(bs, typ)
	if r == nil {
		return nil, errUnsupported
	}
	return boxes(r)
}

// read reads n bytes at off of a box's payload.
func read(r *io.SectionReader, off int64, n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := r.ReadAt(b, off); err != nil {
		return nil, errUnsupported
	}
	return b, nil
}

// timing reads the timescale and duration of an mvhd or mdhd box.
func timing(r *io.SectionReader) (scale uint32, duration uint64, err error) {
	if r == nil {
		return 0, 0, errUnsupported
	}
	v, err := read(r, 0, 1)
	if err != nil {
		return 0, 0, err
	}
	if v[0] == 1 {
		b, err := read(r, 20, 12)
		if err != nil {
			return 0, 0, err
		}
		return binary.BigEndian.Uint32(b), binary.BigEndian.Uint64(b[4:]), nil
	}
	b, err := read(r, 12, 8)
	if err != nil {
		return 0, 0, err
	}
	return binary.BigEndian.Uint32(b), uint64(binary.BigEndian.Uint32(b[4:])), nil
}

//nolint:gochecknoglobals // read-only table: MP4 handler types to stream kinds
var handlers = map[string]string{"vide": "video", "soun": "audio", "sbtl": "subtitle", "subt": "subtitle", "text": "subtitle"}

// sampleCodecs names the codecs of picture and subtitle sample entries as
// ffprobe does; mp4v is named by its esds. Sound is read per codec below,
// since only the codec's own config tells the channel count.
//
//nolint:gochecknoglobals // read-only table: MP4 sample entries to codecs
var sampleCodecs = map[string]string{
	"avc1": "h264", "avc3": "h264", "hvc1": "hevc", "hev1": "hevc", "av01": "av1", "vp09": "vp9", "vp08": "vp8",
	"tx3g": "mov_text", "wvtt": "webvtt", "jpeg": "mjpeg",
	"apch": "prores", "apcn": "prores", "apcs": "prores", "apco": "prores", "ap4h": "prores",
}

func readMP4(f *os.File) (*Info, bool) {
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	top, err := boxes(io.NewSectionReader(f, 0, st.Size()))
	if err != nil {
		return nil, false
	}
	info, err := readMoov(top)
	if err != nil {
		return nil, false
	}
	return info, true
}

func readMoov(top []box) (*Info, error) {
	if child(top, "moof") != nil {
		return nil, errUnsupported
	}
	moov, err := children(top, "moov")
	if err != nil {
		return nil, err
	}
	if child(moov, "mvex") != nil {
		return nil, errUnsupported // fragmented: the samples are not in moov
	}
	scale, dur, err := timing(child(moov, "mvhd"))
	if err != nil || scale == 0 {
		return nil, errUnsupported
	}
	info := &Info{FormatName: movFormat, Duration: float64(dur) / float64(scale)}
	for _, b := range moov {
		if b.typ != "trak" {
			continue
		}
		s, err := readTrak(b.payload)
		if err != nil {
			return nil, err
		}
		s.Index = len(info.Streams)
		info.Streams = append(info.Streams, s)
	}
	return info, nil
}

func readTrak(r *io.SectionReader) (Stream, error) {
	var s Stream
	trak, err := boxes(r)
	if err != nil {
		return s, err
	}
	mdia, err := children(trak, "mdia")
	if err != nil {
		return s, err
	}
	hdlr := child(mdia, "hdlr")
	if hdlr == nil {
		return s, errUnsupported
	}
	h, err := read(hdlr, 8, 4)
	if err != nil {
		return s, err
	}
	if s.CodecType = handlers[string(h)]; s.CodecType == "" {
		return s, errUnsupported
	}
	scale, dur, err := timing(child(mdia, "mdhd"))
	if err != nil || scale == 0 {
		return s, errUnsupported
	}
	s.Duration = float64(dur) / float64(scale)
	minf, err := children(mdia, "minf")
	if err != nil {
		return s, err
	}
	stbl, err := children(minf, "stbl")
	if err != nil {
		return s, err
	}
	if stsz := child(stbl, "stsz"); stsz != nil {
		b, err := read(stsz, 8, 4)
		if err != nil {
			return s, err
		}
		s.NbFrames = int(binary.BigEndian.Uint32(b))
	}
	stsd := child(stbl, "stsd")
	if stsd == nil {
		return s, errUnsupported
	}
	entries, err := boxes(io.NewSectionReader(stsd, 8, stsd.Size()-8))
	if err != nil || len(entries) != 1 {
		return s, errUnsupported
	}
	entry := entries[0]
	s.CodecName = sampleCodecs[entry.typ]
	switch s.CodecType {
	case "video":
		b, err := read(entry.payload, 24, 4)
		if err != nil {
			return s, err
		}
		s.Width, s.Height = int(binary.BigEndian.Uint16(b)), int(binary.BigEndian.Uint16(b[2:]))
		if s.Rotation, err = rotation(child(trak, "tkhd")); err != nil {
			return s, err
		}
		if s.Duration > 0 {
			s.FPS = float64(s.NbFrames) / s.Duration
		}
		if entry.typ == "mp4v" {
			var dc []byte
			if dc, err = decoderConfig(entry.payload, 78); err == nil && dc[0] == 0x20 {
				s.CodecName = "mpeg4"
			}
		}
	case "audio":
		b, err := read(entry.payload, 8, 10)
		if err != nil {
			return s, err
		}
		if binary.BigEndian.Uint16(b) != 0 {
			return s, errUnsupported // QuickTime sound descriptions v1 and v2 lay out otherwise
		}
		// The entry's own channel count is a template (2) in mp4 files.
		s.SampleRate = int(scale)
		switch entry.typ {
		case "mp4a":
			s.CodecName, s.Channels, err = aacConfig(entry.payload)
		case "Opus":
			s.CodecName, s.Channels, err = opusConfig(entry.payload)
		}
		if err != nil { // this case's err, not the function's
			return s, errUnsupported
		}
	}
	if err != nil || s.CodecName == "" {
		return s, errUnsupported
	}
	return s, nil
}

// rotation reads the turn of a track's display matrix (tkhd) in degrees,
// as ffmpeg's av_display_rotation_get reckons it and ffprobe prints it.
func rotation(tkhd *io.SectionReader) (int, error) {
	if tkhd == nil {
		return 0, errUnsupported
	}
	v, err := read(tkhd, 0, 1)
	if err != nil {
		return 0, err
	}
	// The matrix follows the times, ids and duration (wider in version 1),
	// 8 reserved bytes, the layer, group, volume and 2 reserved bytes.
	off := int64(40)
	if v[0] == 1 {
		off = 52
	}
	b, err := read(tkhd, off, 36)
	if err != nil {
		return 0, err
	}
	m := func(i int) float64 { return float64(int32(binary.BigEndian.Uint32(b[4*i:]))) / 65536 }
	a, bb, c, d := m(0), m(1), m(3), m(4)
	sx, sy := math.Hypot(a, c), math.Hypot(bb, d)
	if sx == 0 || sy == 0 {
		return 0, nil
	}
	// ffprobe truncates the angle to an integer; so does this.
	r := -math.Atan2(bb/sy, a/sx) * 180 / math.Pi
	return int(r), nil
}

// innerBox finds the box typ among those that follow a sample entry's
// fixed fields at off.
func innerBox(entry *io.SectionReader, off int64, typ string) ([]byte, error) {
	if entry.Size() <= off {
		return nil, errUnsupported
	}
	inner, err := boxes(io.NewSectionReader(entry, off, entry.Size()-off))
	if err != nil {
		return nil, errUnsupported
	}
	b := child(inner, typ)
	if b == nil || b.Size() > 1<<16 {
		return nil, errUnsupported
	}
	return read(b, 0, int(b.Size()))
}

// decoderConfig returns the DecoderConfigDescriptor in the esds box of an
// mp4a or mp4v sample entry: the objectTypeIndication, 12 bytes of stream
// type, buffer size and bitrates, then the decoder specific info.
func decoderConfig(entry *io.SectionReader, off int64) ([]byte, error) {
	b, err := innerBox(entry, off, "esds")
	if err != nil {
		return nil, err
	}
	es, err := descriptor(b, 4, 3) // after the box's version and flags
	if err != nil || len(es) < 3 {
		return nil, errUnsupported
	}
	i, flags := 3, es[2]
	if flags&0x80 != 0 { // streamDependenceFlag
		i += 2
	}
	if flags&0x40 != 0 { // URL_Flag
		if i >= len(es) {
			return nil, errUnsupported
		}
		i += 1 + int(es[i])
	}
	if flags&0x20 != 0 { // OCRstreamFlag
		i += 2
	}
	dc, err := descriptor(es, i, 4)
	if err != nil || len(dc) < 13 {
		return nil, errUnsupported
	}
	return dc, nil
}

// descriptor returns the body of the MPEG-4 descriptor at b[i], which must
// have the tag; its length takes one to four bytes of seven bits.
func descriptor(b []byte, i int, tag byte) ([]byte, error) {
	if i >= len(b) || b[i] != tag {
		return nil, errUnsupported
	}
	i++
	n := 0
	for k := 0; k < 4; k++ {
		if i >= len(b) {
			return nil, errUnsupported
		}
		n = n<<7 | int(b[i]&0x7f)
		i++
		if b[i-1]&0x80 == 0 {
			break
		}
	}
	if i+n > len(b) {
		return nil, errUnsupported
	}
	return b[i : i+n], nil
}

// aacConfig reads an mp4a entry: AAC, with the channel count of its
// AudioSpecificConfig. MP3 in mp4 and other objects go to ffprobe.
func aacConfig(entry *io.SectionReader) (string, int, error) {
	dc, err := decoderConfig(entry, 28)
	if err != nil {
		return "", 0, err
	}
	switch dc[0] {
	case 0x40, 0x66, 0x67, 0x68:
	default:
		return "", 0, errUnsupported
	}
	// The DecoderSpecificInfo (tag 5) holds the AudioSpecificConfig.
	asc, err := descriptor(dc, 13, 5)
	if err != nil || len(asc) < 2 {
		return "", 0, errUnsupported
	}
	bits := uint32(asc[0])<<8 | uint32(asc[1])
	objectType, freqIndex := bits>>11, (bits>>7)&0xf
	if objectType == 31 || freqIndex == 15 {
		return "", 0, errUnsupported // escaped fields: rare, leave them to ffprobe
	}
	channels := int((bits >> 3) & 0xf)
	switch {
	case channels >= 1 && channels <= 6:
		return "aac", channels, nil
	case channels == 7:
		return "aac", 8, nil
	}
	return "", 0, errUnsupported
}

// opusConfig reads an Opus entry's dOps box for its channel count.
func opusConfig(entry *io.SectionReader) (string, int, error) {
	b, err := innerBox(entry, 28, "dOps")
	if err != nil || len(b) < 2 || b[1] == 0 {
		return "", 0, errUnsupported
	}
	return "opus", int(b[1]), nil
}
