package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// FontFamily is what caption.burn takes as a font name: libass reads it
// from a force_style list that ',' splits, inside a filter graph where ',',
// ';', ':' and quotes have meanings of their own.
var FontFamily = regexp.MustCompile(`^[A-Za-z0-9 ]{1,100}$`)

//nolint:gochecknoglobals // read-only table: the documented positions
var positions = []string{"top-left", "top-right", "bottom-left", "bottom-right", "center"}

//nolint:gochecknoglobals // a constructor of the catalogue's tables, never reassigned
var source = func(media ...string) Field {
	return Field{Name: "source", Media: media, Required: true, Description: "the media to work on: a URL or an asset id"}
}

//nolint:gochecknoglobals // a constructor of the catalogue's tables, never reassigned
var outputURL = func(media ...string) Field {
	return Field{Name: "outputUrl", Media: media, Description: "the result"}
}

// watermarkCheck requires what each kind of watermark draws.
func watermarkCheck(v map[string]any) [][2]string {
	var out [][2]string
	switch v["type"] {
	case "image":
		_, hasURL := v["url"]
		_, hasAsset := v["assetId"]
		if hasURL == hasAsset {
			out = append(out, [2]string{"url", "an image watermark needs exactly one of url and assetId"})
		}
		if _, ok := v["text"]; ok {
			out = append(out, [2]string{"text", "is for text watermarks"})
		}
	case "text":
		if _, ok := v["text"]; !ok {
			out = append(out, [2]string{"text", "is required for a text watermark"})
		}
		for _, k := range []string{"url", "assetId"} {
			if _, ok := v[k]; ok {
				out = append(out, [2]string{k, "is for image watermarks"})
			}
		}
	}
	return out
}

// MaxMockups bounds the designs of one mockup.render job (a batch) and
// the smart objects one call fills: each is a canvas-sized picture held
// while it is drawn and encoded.
const MaxMockups = 50

// designRef is a design named in params: a URL or an asset id.
//
//nolint:gochecknoglobals // read-only: a parameter shared by the catalogue's types
var designRef = Param{Kind: "string", MaxLength: 2048, Description: "an image: an http(s) URL or an asset id"}

// layerPath is a layer of a template: its name, or group/name.
//
//nolint:gochecknoglobals // read-only: a parameter shared by the catalogue's types
var layerPath = Param{Kind: "string", MaxLength: 1000}

// colorHex is a colour as #rrggbb.
//
//nolint:gochecknoglobals // read-only: a parameter shared by the catalogue's types
var colorHex = Param{Kind: "string", Pattern: regexp.MustCompile(`^#[0-9a-fA-F]{6}$`), PatternHint: "must be a colour as #rrggbb"}

// ffmpegCommand is the declaration of raw.ffmpeg and of ffmpeg, its newer
// name: the same job.
func ffmpegCommand(name, summary string) *Type {
	return &Type{
		Name: name, Tag: "ffmpeg", Pattern: "transform", Command: true,
		Summary:    summary,
		ProviderID: "ffmpeg", Resource: "ffmpeg, sandboxed (allowlisted options, no network, confined to the job's folder)",
		Outputs: []Field{
			{Name: "outputUrl", Media: []string{Video, Audio, Image, Subtitles}, Description: "the command's first output file; outputUrl2, outputUrl3, … are the others, in the command's order"},
		},
		Params: []Param{
			{Name: "command", Kind: "string", Required: true, MaxLength: MaxCommandBytes,
				Description: "an ffmpeg command line (the leading ffmpeg is optional): -i takes an http(s) URL, an asset id or a named input; outputs are bare file names"},
			{Name: "outputFormat", Kind: "string", Enum: OutputFormats,
				Description: "the container of the first output; default from its file name's extension"},
			{Name: "timeout", Kind: "integer", Min: bound(1), Max: bound(MaxCommandTimeout), Default: DefaultCommandTimeout,
				Description: fmt.Sprintf("the longest ffmpeg may run, in seconds (downloads excluded); default %d", DefaultCommandTimeout)},
		},
		AcceptsMedia: []string{Video, Audio, Image}, PricePerSecond: 0.001, MinPrice: 0.001,
		Args: Command{},
	}
}

// Limits of the command types, shared by validation and the executor.
const (
	// MaxCommandBytes bounds params.command.
	MaxCommandBytes = 16 << 10
	// MaxCommandTimeout bounds params.timeout, in seconds.
	MaxCommandTimeout = 900
	// DefaultCommandTimeout is params.timeout when it is not given.
	DefaultCommandTimeout = 120
)

// OutputFormats are the values of the command types' outputFormat.
//
//nolint:gochecknoglobals // read-only table: the documented output formats
var OutputFormats = []string{"mp4", "mkv", "webm", "mov", "avi", "ts", "gif", "png", "jpg", "mp3", "wav", "flac", "ogg", "aac", "opus", "m4a", "srt", "vtt"}

//nolint:gochecknoglobals // read-only table: the catalogue itself
var types = []*Type{
	ffmpegCommand("ffmpeg", "Run your own ffmpeg command on your inputs: named inputs staged in the job's folder by name, and http(s) URLs or asset ids in -i positions."),
	ffmpegCommand("raw.ffmpeg", "Run your own ffmpeg command (the first name of the ffmpeg type): inputs are http(s) URLs or asset ids in -i positions."),
	{
		Name: "mockup.render", Tag: "image", Pattern: "transform",
		Summary:    "Place designs into the smart objects of a PSD template, in its perspective and warps and under its shading, and draw the product picture.",
		ProviderID: "kino", Resource: "psd reader, compositor",
		Inputs: []Field{
			{Name: "template", Media: []string{Image}, Required: true, Unprobed: true, Description: "a PSD template: a psd_template asset id or a URL"},
			{Name: "design", Media: []string{Image}, Unprobed: true, Description: "the picture placed into smartObject: a URL or an asset id (PNG, JPEG or WebP); with no design at all (nor designs, nor smartObjects) the template is drawn as it is"},
		},
		Outputs: []Field{outputURL(Image)},
		Params: []Param{
			{Name: "smartObject", Kind: "string", MaxLength: 1000, Description: "the smart object the design goes into: its layer path (name, or group/name); default the template's only smart object"},
			{Name: "designs", Kind: "array", MaxItems: MaxMockups, Items: &designRef,
				Description: "a batch: more designs, each placed into smartObject on its own mockup (outputUrl2, outputUrl3, …, after the design input's outputUrl)"},
			{Name: "smartObjects", Kind: "object", MaxItems: 20, MaxLength: 1000, Values: &designRef,
				Description: "more smart objects filled on every mockup: layer path -> design (URL or asset id), as a back beside the front"},
			{Name: "fit", Kind: "string", Enum: []string{"cover", "contain", "fill"}, Default: "cover", Description: "how a design fills the smart object's content box; default cover (crops)"},
			{Name: "hide", Kind: "array", MaxItems: 200, Items: &layerPath, Description: "layer paths to hide"},
			{Name: "show", Kind: "array", MaxItems: 200, Items: &layerPath, Description: "hidden layer paths to show"},
			{Name: "colors", Kind: "object", MaxItems: 50, MaxLength: 1000, Values: &colorHex, Description: "solid-colour fill layer path -> #rrggbb: the product's colour"},
			{Name: "format", Kind: "string", Enum: []string{"png", "jpg", "jpeg", "webp"}, Default: "png", Description: "default png"},
			{Name: "width", Kind: "integer", Min: bound(16), Max: bound(8192), Description: "the output's width, keeping the template's aspect; default the template's"},
			{Name: "quality", Kind: "integer", Min: bound(1), Max: bound(100), Default: 90, Description: "jpg and webp quality; default 90"},
		},
		AcceptsMedia: []string{Image}, PricePerMegapixel: 0.0004, MinPrice: 0.002,
		Args: MockupRender{},
	},
	{
		Name: "watermark.apply", Tag: "watermark", Pattern: "transform",
		Summary:    "Draw image and text watermarks on a video or an image.",
		ProviderID: "ffmpeg", Resource: "overlay,drawtext",
		Inputs:  []Field{source(Video, Image)},
		Outputs: []Field{outputURL(Video, Image)},
		Params: []Param{{
			Name: "watermarks", Kind: "array", Required: true, MaxItems: 10,
			Description: "the watermarks, drawn in order",
			Check:       watermarkCheck,
			Fields: []Param{
				{Name: "type", Kind: "string", Required: true, Enum: []string{"image", "text"}},
				{Name: "url", Kind: "string", Format: "uri", Description: "image watermark: where to fetch it"},
				{Name: "assetId", Kind: "string", MaxLength: 64, Description: "image watermark: an image asset"},
				{Name: "text", Kind: "string", MaxLength: 500, Description: "text watermark: what to write"},
				{Name: "position", Kind: "string", Enum: positions, Default: "bottom-right", Description: "default bottom-right"},
				{Name: "opacity", Kind: "number", Min: bound(0), Max: bound(1), Default: 1, Description: "default 1"},
				{Name: "scale", Kind: "number", Min: bound(0.01), Max: bound(1), Default: 0.2, Description: "image width as a share of the frame width; default 0.2"},
				{Name: "margin", Kind: "integer", Min: bound(0), Max: bound(2000), Default: 16, Description: "pixels from the edges; default 16"},
				{Name: "fontSize", Kind: "integer", Min: bound(4), Max: bound(500), Default: 32, Description: "text watermark; default 32"},
				{Name: "color", Kind: "string", MaxLength: 9, Default: "#FFFFFF", DefaultText: "white", Description: "text watermark, #RRGGBB; default white"},
			},
		}},
		AcceptsMedia: []string{Video, Image}, PricePerSecond: 0.002, PricePerMegapixel: 0.0002, MinPrice: 0.001,
		Args: WatermarkApply{},
	},
	{
		Name: "caption.extract", Tag: "captions", Pattern: "analyze",
		Summary:    "Extract captions: the subtitle stream when there is one, otherwise an offline transcription.",
		ProviderID: "ffmpeg", Resource: "asr (pocketsphinx en-us)",
		Inputs: []Field{source(Video, Audio)},
		Outputs: []Field{
			{Name: "captionsUrl", Media: []string{Subtitles}, Description: "WebVTT (or SRT) captions"},
			{Name: "outputUrl", Media: []string{Video, Audio}, Description: "the source, passed through for chaining"},
			{Name: "transcript", Media: []string{Text}, Description: "the text of the captions"},
		},
		Params: []Param{
			{Name: "language", Kind: "string", Enum: []string{"en"}, Default: "en", Description: "default en"},
			{Name: "format", Kind: "string", Enum: []string{"vtt", "srt"}, Default: "vtt", Description: "default vtt"},
			{Name: "maxCueSeconds", Kind: "number", Min: bound(1), Max: bound(30), Default: 6, Description: "longest cue; default 6"},
		},
		AcceptsMedia: []string{Video, Audio}, PricePerSecond: 0.004, MinPrice: 0.0005,
		Args: CaptionExtract{},
	},
	{
		Name: "caption.burn", Tag: "captions", Pattern: "transform",
		Summary: "Burn subtitles into a video with libass: an ASS or SSA file exactly as written, SRT or WebVTT in the style the params ask for; " +
			"without subtitles, the sound is transcribed first.",
		ProviderID: "ffmpeg", Resource: "subtitles (libass)",
		Inputs: []Field{source(Video),
			{Name: "subtitles", Media: []string{Subtitles}, Description: "SRT, WebVTT, ASS or SSA: a URL or a captions asset id. An ASS or SSA file is burned as written " +
				"(its styles, positions and PlayResX/Y); the styling params apply to SRT and WebVTT. Omitted: the sound of source is transcribed (params.language)"},
			{Name: "font", Media: []string{Font}, Unprobed: true, Description: "a TTF, OTF, WOFF or WOFF2 font file (a URL or a font asset id) that libass may use: " +
				"for the families an ASS file names, or for SRT and WebVTT text (its own name, unless fontFamily names another)"}},
		Outputs:      []Field{outputURL(Video)},
		Params:       captionBurnParams,
		Check:        captionBurnCheck,
		Aliases:      CaptionAliases,
		Args:         CaptionBurn{},
		AcceptsMedia: []string{Video}, PricePerSecond: 0.002, MinPrice: 0.0005,
	},
	{
		Name: "video.transcode", Tag: "video", Pattern: "transform",
		Summary:    "Transcode a video to mp4, webm or HLS, optionally resized.",
		ProviderID: "ffmpeg", Resource: "libx264, libvpx-vp9, hls",
		Inputs:  []Field{source(Video)},
		Outputs: []Field{outputURL(Video)},
		Params: []Param{
			{Name: "preset", Kind: "string", Required: true, Enum: []string{"mp4", "webm", "hls"}},
			{Name: "width", Kind: "integer", Min: bound(16), Max: bound(3840)},
			{Name: "height", Kind: "integer", Min: bound(16), Max: bound(2160)},
			{Name: "videoBitrateKbps", Kind: "integer", Min: bound(100), Max: bound(50000)},
		},
		AcceptsMedia: []string{Video}, PricePerSecond: 0.003, MinPrice: 0.0005,
		Args: VideoTranscode{},
	},
	{
		Name: "video.thumbnail", Tag: "video", Pattern: "analyze",
		Summary:    "Take a frame of a video, or a sprite sheet of frames.",
		ProviderID: "ffmpeg", Resource: "select, tile",
		Inputs:  []Field{source(Video)},
		Outputs: []Field{outputURL(Image)},
		Params: []Param{
			{Name: "mode", Kind: "string", Enum: []string{"frame", "sprite"}, Default: "frame", Description: "default frame"},
			{Name: "at", Kind: "number", Min: bound(0), Max: bound(86400), Default: 0, Description: "frame mode: seconds into the video; default 0"},
			{Name: "width", Kind: "integer", Min: bound(16), Max: bound(3840)},
			{Name: "columns", Kind: "integer", Min: bound(1), Max: bound(20), Default: 5, Description: "sprite mode; default 5"},
			{Name: "rows", Kind: "integer", Min: bound(1), Max: bound(20), Default: 5, Description: "sprite mode; default 5"},
		},
		AcceptsMedia: []string{Video}, PricePerSecond: 0.0005, MinPrice: 0.0005,
		Args: VideoThumbnail{},
	},
	{
		Name: "video.trim", Tag: "video", Pattern: "transform",
		Summary:    "Cut a part of a video or audio file.",
		ProviderID: "ffmpeg", Resource: "trim",
		Inputs:  []Field{source(Video, Audio)},
		Outputs: []Field{outputURL(Video, Audio)},
		Params: []Param{
			{Name: "start", Kind: "number", Required: true, Min: bound(0), Max: bound(86400)},
			{Name: "duration", Kind: "number", Required: true, Min: bound(0.04), Max: bound(86400)},
		},
		AcceptsMedia: []string{Video, Audio}, PricePerSecond: 0.001, MinPrice: 0.0005,
		Args: VideoTrim{},
	},
	{
		Name: "audio.extract", Tag: "audio", Pattern: "transform",
		Summary:    "Extract the sound of a video as mp3, aac or wav.",
		ProviderID: "ffmpeg", Resource: "audio encoders",
		Inputs:  []Field{source(Video, Audio)},
		Outputs: []Field{outputURL(Audio)},
		Params: []Param{
			{Name: "format", Kind: "string", Enum: []string{"mp3", "aac", "wav"}, Default: "mp3", Description: "default mp3"},
		},
		AcceptsMedia: []string{Video, Audio}, PricePerSecond: 0.0005, MinPrice: 0.0005,
		Args: AudioExtract{},
	},
	{
		Name: "image.resize", Tag: "image", Pattern: "transform",
		Summary:    "Resize an image and convert it to png, jpeg or webp.",
		ProviderID: "ffmpeg", Resource: "scale",
		Inputs:  []Field{source(Image)},
		Outputs: []Field{outputURL(Image)},
		Params: []Param{
			{Name: "width", Kind: "integer", Min: bound(1), Max: bound(8192)},
			{Name: "height", Kind: "integer", Min: bound(1), Max: bound(8192)},
			{Name: "fit", Kind: "string", Enum: []string{"contain", "cover", "fill"}, Default: "contain", Description: "default contain"},
			{Name: "format", Kind: "string", Enum: []string{"png", "jpeg", "webp"}, Default: "png", Description: "default png"},
		},
		AcceptsMedia: []string{Image}, PricePerMegapixel: 0.0001, MinPrice: 0.0005,
		Args: ImageResize{},
	},
}

// CostModel describes, for people, how a type's price is computed.
func (t *Type) CostModel() string {
	var parts []string
	if t.PricePerSecond > 0 {
		parts = append(parts, fmt.Sprintf("%g USD per second of input media", t.PricePerSecond))
	}
	if t.PricePerMegapixel > 0 {
		parts = append(parts, fmt.Sprintf("%g USD per megapixel of each picture written", t.PricePerMegapixel))
	}
	return fmt.Sprintf("price = %s; at least %g USD a job", strings.Join(parts, " + "), t.MinPrice)
}

// Price is what a job of the type costs that read seconds of timed input
// media and wrote pictures of megapixels in all.
func (t *Type) Price(seconds, megapixels float64) float64 {
	return max(t.MinPrice, t.PricePerSecond*seconds+t.PricePerMegapixel*megapixels)
}

// Estimate is the price of a job of the type, as far as its params tell
// before its inputs are downloaded: the length video.trim cuts, the size
// image.resize writes when both sides are given; otherwise the least a
// job costs.
func (t *Type) Estimate(params map[string]any) float64 {
	num := func(k string) float64 {
		v, _ := params[k].(float64)
		return v
	}
	switch {
	case t.Name == "video.trim":
		return t.Price(num("duration"), 0)
	case t.PricePerMegapixel > 0 && num("width") > 0 && num("height") > 0:
		return t.Price(0, num("width")*num("height")/1e6)
	}
	return t.MinPrice
}
