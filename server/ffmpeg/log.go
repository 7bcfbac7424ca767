package ffmpeg

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
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
	// dir is the run's working folder, which the log names as "".
	dir string
}

func newStderrSink(log io.Writer, onLine func(string), dir string) *stderrSink {
	return &stderrSink{log: log, onLine: onLine, logLeft: LogKeep, errs: &tailBuffer{max: stderrKeep}, dir: dir}
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

//nolint:gochecknoglobals // read-only table: the log tags of errors
var errorTags = []string{"[error] ", "[fatal] ", "[panic] "}

func (s *stderrSink) line(raw string) {
	if s.onLine != nil {
		s.onLine(strings.TrimSuffix(raw, "\n"))
	}
	tag, at := levelTag(raw)
	if at >= 0 {
		s.isErr = slices.Contains(errorTags, tag)
	}
	l, keep := s.clean(raw)
	if !keep {
		return
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
	if s.isErr {
		if at >= 0 {
			l, _ = s.clean(raw[:at] + raw[at+len(tag):])
		}
		_, _ = s.errs.Write([]byte(l))
	}
}

// The log and the errors of a run are the client's to read (a media job's
// logsRef, a failure's message): they say what happened to the client's
// files, not what the server is. So the lines that describe the server are
// dropped (ffmpeg's and its libraries' builds, the CPU's features), memory
// addresses are removed, and paths lose their folders: the run's working
// folder is written as nothing ("file:input-source"), any other folder
// (a font's) is dropped, keeping the file's name.
var (
	serverLines = regexp.MustCompile(`(?i)cpu capabilities|\b264 - core \d|configuration:|built with |ffmpeg version |build info|\] \[info\] v?\d+\.\d+(\.\d+)?\s*$`)
	addresses   = regexp.MustCompile(` @ 0x[0-9a-f]+\]`)
	folders     = regexp.MustCompile(`(^|[\s'"=:(\[])/(?:[^\s'"/]+/)+`)
)

// clean is line as the client may read it; keep is false for a line that
// describes only the server. The line's level tag stays where levelTag
// finds it.
func (s *stderrSink) clean(line string) (l string, keep bool) {
	if serverLines.MatchString(line) {
		return "", false
	}
	l = addresses.ReplaceAllString(line, "]")
	if s.dir != "" {
		l = strings.ReplaceAll(l, strings.TrimSuffix(s.dir, "/")+"/", "")
	}
	return folders.ReplaceAllString(l, "$1"), true
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
