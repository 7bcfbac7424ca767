// Package ffmpeg runs the ffmpeg and ffprobe binaries: renders with progress
// and prompt cancellation, probes of media files, the seeks of a split
// render's videos (FirstFrameAfter) and the loudness pass of a render
// (MeasureLoudness). Within a trace, each run is a span "ffmpeg" and each
// probe a span "probe".
//
// It is the only package of kino that starts ffmpeg or ffprobe, so that
// every process holds to the same rules: inputs opened with the demuxer
// kino probed (InputArgs), the node's Limits (an address space set with
// prlimit, a pixel bound), a process group killed with its context, a log
// cleaned of what describes the server, and for a client's own command a
// sandbox. Packages that plan commands (the engine, the executors) build
// arguments; they run nothing. The few other programs kino starts are
// started by the package that owns what they answer (package typeset asks
// fontconfig for the default font).
//
// The package keeps no state between calls: the limits, and the sandbox's
// walls, are values its callers hold, derived once from the node's
// configuration.
package ffmpeg
