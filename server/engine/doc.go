// Package engine turns a composition into ffmpeg commands. Compile parses
// and validates a composition in one of the supported formats into a Scene,
// the one internal model; Plan turns a Scene and what the worker gathered
// for it (Inputs) into ffmpeg arguments. Both are pure: nothing here starts
// a process, so every rule is testable without ffmpeg, and a composition
// that compiles renders.
//
// What needs ffmpeg or ffprobe is the worker's, done before it plans and
// handed to Plan as data: it downloads and probes the sources (Inputs.Media),
// runs the loudness pass that PlanLoudness plans and keeps its measure
// (Loudness.Measured), probes where the videos a part cuts seek to
// (Scene.Seeks, Scene.Seeked), and decodes the PSD templates of mockup
// layers with package mockup (Inputs.Templates). Plan reads only the fonts
// of text it lays out (package typeset) and the pictures of mockup layers,
// and draws shapes, text boxes and mockups as pictures in memory (packages
// paint and mockup).
//
// Safety of the filter graph rests on one rule: no user string is written
// into it. Text goes to files that drawtext reads; everything else in the
// graph is a number, a colour normalised to hex digits, or a path kino
// chose, escaped for both levels of ffmpeg's parser (see escape.go).
package engine
