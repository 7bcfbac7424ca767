// Package engine turns a composition into an ffmpeg command. Compile parses
// and validates a composition in one of the supported formats into a Scene,
// the one internal model; Plan turns a Scene and the probed media into
// ffmpeg arguments. Both are pure: nothing here runs a process, so every
// rule is testable without ffmpeg, and a composition that compiles renders.
// Plan reads only the fonts of text it lays out (package typeset), and
// draws shapes and text boxes as pictures in memory (package paint).
//
// Safety of the filter graph rests on one rule: no user string is written
// into it. Text goes to files that drawtext reads; everything else in the
// graph is a number, a colour normalised to hex digits, or a path kino
// chose, escaped for both levels of ffmpeg's parser (see escape.go).
package engine
