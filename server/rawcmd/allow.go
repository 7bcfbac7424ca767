package rawcmd

import "strings"

// arity is what an option takes: nothing, a value, or a value kino reads.
type arity int

const (
	flag    arity = iota // no value
	value                // one value ffmpeg reads as a number, name or text, never a path
	graphV               // a filter graph (-vf, -af, -filter, -filter_complex)
	formatV              // a format (-f)
	codecV               // a codec name (-c)
	sizeV                // a picture size (-s); a colour such as 0x102030 is not one
	inputV               // -i
)

// options are the allowed options, by name without the dash and without
// a stream specifier. Anything else is refused: an unknown option may
// open a file (-report, -vstats_file, -passlogfile, -dump_attachment,
// -attach, -filter_script, -x264-params stats=…), a device or a socket.
// spec says a stream specifier may follow (-c:v:0, -filter:a).
//
//nolint:gochecknoglobals // read-only table: the options a command may use
var options = map[string]struct {
	arity arity
	spec  bool
}{
	"i": {inputV, false},
	// global
	"y": {flag, false}, "n": {flag, false}, "hide_banner": {flag, false}, "nostdin": {flag, false},
	"stats": {flag, false}, "nostats": {flag, false}, "loglevel": {value, false}, "v": {value, false},
	"threads": {value, true}, "filter_threads": {value, false}, "filter_complex_threads": {value, false},
	"filter_complex": {graphV, false}, "lavfi": {graphV, false}, "copyts": {flag, false},
	"start_at_zero": {flag, false}, "benchmark": {flag, false},
	// per file
	"f": {formatV, false}, "ss": {value, false}, "t": {value, false}, "to": {value, false},
	"sseof": {value, false}, "itsoffset": {value, false}, "stream_loop": {value, false},
	"loop": {value, false}, "framerate": {value, false}, "accurate_seek": {flag, false},
	"noaccurate_seek": {flag, false}, "thread_queue_size": {value, false}, "guess_layout_max": {value, false},
	"re": {flag, false}, "shortest": {flag, false}, "fs": {value, false}, "fflags": {value, false},
	"avoid_negative_ts": {value, false}, "max_muxing_queue_size": {value, true},
	"movflags": {value, false}, "strict": {value, true}, "map": {value, false},
	"map_metadata": {value, true}, "map_chapters": {value, false}, "metadata": {value, true},
	"disposition": {value, true}, "start_number": {value, false}, "update": {value, false},
	"timecode": {value, false}, "max_interleave_delta": {value, false}, "final_delay": {value, false},
	"an": {flag, false}, "vn": {flag, false}, "sn": {flag, false}, "dn": {flag, false},
	"sws_flags": {value, false},
	// per stream
	"c": {codecV, true}, "codec": {codecV, true}, "vcodec": {codecV, false}, "acodec": {codecV, false},
	"scodec": {codecV, false}, "vf": {graphV, false}, "af": {graphV, false}, "filter": {graphV, true},
	"r": {value, true}, "s": {sizeV, true}, "aspect": {value, true}, "pix_fmt": {value, true},
	"b": {value, true}, "maxrate": {value, true}, "minrate": {value, true}, "bufsize": {value, true},
	"crf": {value, true}, "qp": {value, true}, "q": {value, true}, "qscale": {value, true},
	"preset": {value, true}, "tune": {value, true}, "profile": {value, true}, "level": {value, true},
	"g": {value, true}, "keyint_min": {value, true}, "bf": {value, true}, "sc_threshold": {value, true},
	"refs": {value, true}, "force_key_frames": {value, true},
	"ar": {value, true}, "ac": {value, true}, "sample_fmt": {value, true}, "frames": {value, true},
	"vframes": {value, false}, "aframes": {value, false}, "fps_mode": {value, true}, "vsync": {value, false},
	"tag": {value, true}, "row-mt": {value, true}, "tile-columns": {value, true}, "cpu-used": {value, true},
	"deadline": {value, true}, "speed": {value, true}, "lag-in-frames": {value, true},
	"auto-alt-ref": {value, true}, "compression_level": {value, true}, "lossless": {value, true},
	"quality": {value, true}, "cutoff": {value, true}, "vbr": {value, true}, "application": {value, true},
	"frame_size": {value, true}, "pred": {value, true}, "global_quality": {value, true},
	"coder": {value, true}, "trellis": {value, true},
}

// inputFormats are the formats a client may force on an input: lavfi
// only, whose "input" is a filter graph kino checks like any other.
// Every downloaded input is opened with the demuxer kino probed.
//
//nolint:gochecknoglobals // read-only table: the input formats a command may use
var inputFormats = map[string]bool{"lavfi": true}

// outputFormats are the muxers a client may force: each writes one file
// (or a numbered sequence of pictures) at the name it is given. Muxers
// that write other files or open sockets (hls, dash, segment, tee, rtp,
// …) are refused.
//
//nolint:gochecknoglobals // read-only table: the output formats a command may use
var outputFormats = map[string]bool{
	"mp4": true, "mov": true, "matroska": true, "webm": true, "mpegts": true, "avi": true,
	"gif": true, "apng": true, "webp": true, "image2": true, "mjpeg": true,
	"mp3": true, "wav": true, "flac": true, "ogg": true, "opus": true, "adts": true, "ipod": true,
	"srt": true, "webvtt": true, "ass": true,
}

// codecs are the encoders (and, before an input, decoders) a client may
// name: none opens a file or a device.
//
//nolint:gochecknoglobals // read-only table: the codecs a command may use
var codecs = map[string]bool{
	"copy": true, "libx264": true, "libx265": true, "h264": true, "hevc": true, "libvpx": true,
	"libvpx-vp9": true, "vp8": true, "vp9": true, "libaom-av1": true, "libsvtav1": true, "libdav1d": true,
	"mpeg4": true, "mpeg2video": true, "prores": true, "prores_ks": true, "mjpeg": true, "png": true,
	"gif": true, "libwebp": true, "rawvideo": true, "aac": true, "libmp3lame": true, "mp3": true,
	"libopus": true, "opus": true, "libvorbis": true, "vorbis": true, "flac": true, "alac": true,
	"ac3": true, "pcm_s16le": true, "pcm_s24le": true, "pcm_f32le": true, "mov_text": true,
	"srt": true, "subrip": true, "webvtt": true, "ass": true, "ssa": true,
}

// filters are the filters a graph may use. Filters that open files
// (movie, amovie, sendcmd, asendcmd, zmq, azmq, ladspa, lv2, frei0r,
// metadata, ametadata, psnr, ssim, vidstab*, libvmaf, removelogo,
// sofalizer, arnndn, showcqt, life, cellauto, …) are absent, as are
// hardware and OpenCL filters. drawtext, subtitles, ass, lut3d and curves
// are allowed with their file options checked (fileFilters).
//
//nolint:gochecknoglobals // read-only table: the filters a command may use, filled by init
var filters = map[string]bool{}

const filterList = `
trim atrim setpts asetpts scale scale2ref crop fade afade overlay concat volume amix amerge pad
format aformat fps split asplit hflip vflip transpose rotate boxblur gblur avgblur smartblur eq hue
colorchannelmixer colorbalance colorlevels colortemperature vibrance exposure monochrome setsar setdar
aresample pan loudnorm atempo asetrate areverse reverse null anull copy fifo afifo drawbox drawgrid
drawtext subtitles ass xfade acrossfade zoompan tpad apad adelay loop aloop select aselect tile
palettegen paletteuse unsharp vignette lut lutrgb lutyuv curves lut3d haldclut colorkey chromakey
despill alphamerge alphaextract premultiply unpremultiply maskedmerge geq blend tblend settb asettb
showwaves showwavespic showspectrum showspectrumpic showvolume avectorscope ahistogram
highpass lowpass bandpass bandreject equalizer bass treble compand acompressor alimiter dynaudnorm
speechnorm silenceremove silencedetect volumedetect astats ebur128 aecho chorus flanger vibrato
tremolo extrastereo stereotools earwax superequalizer acrusher channelsplit channelmap join aeval
sidechaincompress sidechaingate framerate minterpolate colorspace colormatrix negate edgedetect
fillborders hstack vstack xstack interleave ainterleave shuffleframes deflicker yadif bwdif noise
histogram vectorscope waveform amplify tmix atadenoise hqdn3d nlmeans removegrain deband dejudder
fieldorder interlace telecine setfield setrange setparams swaprect perspective lenscorrection
chromashift rgbashift convolution sobel prewitt roberts median erosion dilation scroll shear
mpdecimate decimate thumbnail framestep random super2xsai xbr hqx elbg showpalette blackdetect
freezedetect scdet showinfo ashowinfo idet cropdetect mix rubberband
color anullsrc sine testsrc testsrc2 smptebars smptehdbars nullsrc rgbtestsrc yuvtestsrc anoisesrc
gradients aevalsrc allrgb allyuv mandelbrot
`

func init() {
	for _, f := range strings.Fields(filterList) {
		filters[f] = true
	}
}
