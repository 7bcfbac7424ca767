package ffmpeg

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// LogKeep is how much of one run's log a RunOptions.Log receives; the
// rest is dropped with a note, so a decoder that complains about every
// frame cannot fill the disk.
const LogKeep = 1 << 20

// maxLine bounds one line of ffmpeg's log, newline included: a longer one
// is cut to its head. ffmpeg prints a file's metadata at level info, and a
// title of short pieces split by backspaces makes one line as long as the
// file.
const maxLine = 64 << 10

// stderrSink reads ffmpeg's stderr, where -loglevel level+info tags each
// message with its level ("[info] …", "[h264 @ 0x…] [error] …"; lines that
// continue a message carry no tag). It copies every line to log and keeps
// the error-level ones, tags removed, for an Error: what -loglevel error
// alone would have printed.
type stderrSink struct {
	log     io.Writer
	logLeft int
	onLine  func(string)
	errs    *tailBuffer
	partial []byte
	isErr   bool
}

func newStderrSink(log io.Writer, onLine func(string)) *stderrSink {
	return &stderrSink{log: log, onLine: onLine, logLeft: LogKeep, errs: &tailBuffer{max: stderrKeep}}
}

// Write reads each byte once, however long the line it belongs to, and
// keeps at most maxLine bytes of it.
func (s *stderrSink) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		text := p
		if i >= 0 {
			text = p[:i]
		}
		if room := maxLine - 1 - len(s.partial); room > 0 {
			s.partial = append(s.partial, text[:min(len(text), room)]...)
		}
		if i < 0 {
			break
		}
		s.line(string(append(s.partial, '\n')))
		s.partial = s.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

// flush handles a last line that ended without a newline.
func (s *stderrSink) flush() {
	if len(s.partial) > 0 {
		s.line(string(s.partial) + "\n")
		s.partial = nil
	}
}

var errorTags = []string{"[error] ", "[fatal] ", "[panic] "}

func (s *stderrSink) line(l string) {
	if s.onLine != nil {
		s.onLine(strings.TrimSuffix(l, "\n"))
	}
	if s.log != nil && s.logLeft > 0 {
		if len(l) > s.logLeft {
			fmt.Fprintf(s.log, "[kino] the log is cut here: it passed %d bytes\n", LogKeep)
			s.logLeft = 0
		} else {
			_, _ = io.WriteString(s.log, l)
			s.logLeft -= len(l)
		}
	}
	if tag, at := levelTag(l); at >= 0 {
		s.isErr = false
		for _, e := range errorTags {
			if tag == e {
				s.isErr = true
				l = l[:at] + l[at+len(tag):]
			}
		}
	}
	if s.isErr {
		_, _ = s.errs.Write([]byte(l))
	}
}

// levelTag finds the level tag of a line: at its start, or after one
// "[context @ 0x…] " prefix.
func levelTag(l string) (string, int) {
	at := 0
	if strings.HasPrefix(l, "[") && strings.Contains(l, " @ 0x") {
		end := strings.Index(l, "] ")
		if end < 0 {
			return "", -1
		}
		at = end + 2
	}
	rest := l[at:]
	if !strings.HasPrefix(rest, "[") {
		return "", -1
	}
	end := strings.Index(rest, "] ")
	if end < 0 {
		return "", -1
	}
	switch tag := rest[:end+2]; tag {
	case "[quiet] ", "[panic] ", "[fatal] ", "[error] ", "[warning] ", "[info] ", "[verbose] ", "[debug] ", "[trace] ":
		return tag, at
	}
	return "", -1
}
