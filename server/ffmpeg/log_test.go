package ffmpeg

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStderrSinkKeepsErrorLevelLines(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := newStderrSink(&log, nil, "")
	in := "[info] Input #0, mov, from 'a.mp4':\n" +
		"[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55a2] [warning] detected only with low score\n" +
		"[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55a2] [error] moov atom not found\n" +
		"[fatal] Stream map '0:s:0' matches no streams.\n" +
		"To ignore this, add a trailing '?' to the map.\n" +
		"[info] [in] not a tag\n" +
		"[error] last, with no newline"
	// Written in pieces that split lines, as a pipe delivers them.
	for i := 0; i < len(in); i += 7 {
		_, err := s.Write([]byte(in[i:min(i+7, len(in))]))
		require.NoError(t, err)
	}
	s.flush()
	assert.Equal(t, strings.ReplaceAll(in, " @ 0x55a2", "")+"\n", log.String(), "the log is every line, as ffmpeg wrote it, without addresses")
	assert.Equal(t, "[mov,mp4,m4a,3gp,3g2,mj2] moov atom not found\n"+
		"Stream map '0:s:0' matches no streams.\n"+
		"To ignore this, add a trailing '?' to the map.\n"+
		"last, with no newline\n", s.errs.String(), "errors are the error-level messages, tags removed")
}

func TestStderrSinkCapsTheLog(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := newStderrSink(&log, nil, "")
	line := "[warning] " + strings.Repeat("x", 1000) + "\n"
	for range 2 * LogKeep / len(line) {
		_, _ = s.Write([]byte(line))
	}
	assert.LessOrEqual(t, log.Len(), LogKeep+100)
	assert.Contains(t, log.String(), "[kino] the log is cut here")
	assert.Equal(t, 1, strings.Count(log.String(), "[kino]"))
}

func TestStderrSinkPassesEveryLinePastTheCap(t *testing.T) {
	t.Parallel()
	var lines []string
	s := newStderrSink(&bytes.Buffer{}, func(l string) { lines = append(lines, l) }, "")
	line := "[warning] " + strings.Repeat("x", 1000) + "\n"
	n := 2 * LogKeep / len(line)
	for range n {
		_, _ = s.Write([]byte(line))
	}
	_, _ = s.Write([]byte("[info] last"))
	s.flush()
	require.Len(t, lines, n+1, "OnLogLine is not capped like the log")
	assert.Equal(t, strings.TrimSuffix(line, "\n"), lines[0])
	assert.Equal(t, "[info] last", lines[n])
}

func TestRunWritesTheLogAndReportsTheError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.mp4"), []byte("not a video"), 0o644))
	var log bytes.Buffer
	err := Run(context.Background(), []string{"-i", "file:bad.mp4", "out.mp4"}, RunOptions{Dir: dir, Log: &log})
	var fe *Error
	require.ErrorAs(t, err, &fe)
	assert.Contains(t, fe.Stderr, "Invalid data found when processing input")
	assert.NotContains(t, fe.Stderr, "[error]")
	assert.NotContains(t, fe.Stderr, "low score", "warnings are not errors")
	assert.Contains(t, log.String(), "[warning]")
	assert.Contains(t, log.String(), "[error]")

	log.Reset()
	require.NoError(t, Run(context.Background(), []string{"-f", "lavfi", "-i", "testsrc2=size=64x36:rate=10", "-t", "0.5",
		"-c:v", "libx264", "-preset", "ultrafast", "ok.mp4"}, RunOptions{Dir: dir, Log: &log}))
	assert.Contains(t, log.String(), "[info] Output #0, mp4")
}

// TestStderrSinkBoundsALine: a file's metadata may make ffmpeg print one
// line of its whole size (a title of short pieces split by backspaces, 255
// characters each, joined without a newline); the sink keeps a bounded
// head of it, and reads each piece once, whatever the line's length. Not
// parallel: it counts the process's allocations.
func TestStderrSinkBoundsALine(t *testing.T) {
	var got []string
	var log bytes.Buffer
	s := newStderrSink(&log, func(l string) { got = append(got, l) }, "")
	piece := []byte(strings.Repeat("A", 32<<10))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _ = s.Write([]byte("[info]   title           : "))
	for range 2048 { // 64 MiB
		_, _ = s.Write(piece)
	}
	_, _ = s.Write([]byte("\n[info] next\n"))
	runtime.ReadMemStats(&after)
	require.Len(t, got, 2)
	assert.LessOrEqual(t, len(got[0]), maxLine, "the long line, cut")
	assert.True(t, strings.HasPrefix(got[0], "[info]   title           : AAAA"))
	assert.Equal(t, "[info] next", got[1])
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "bytes allocated for a 64 MiB line")
	assert.True(t, strings.HasSuffix(log.String(), "\n[info] next\n"), "the lines after it are whole")
}

// TestStderrSinkShowsNothingOfTheServer: the log and the errors are the
// client's to read; they name the client's files, not the server's
// folders, and hold no build, CPU or memory address of the server.
func TestStderrSinkShowsNothingOfTheServer(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	var raw []string
	s := newStderrSink(&log, func(l string) { raw = append(raw, l) }, "/srv/kino/data/tmp/proc-1/job-2/")
	in := "[info] Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'file:/srv/kino/data/tmp/proc-1/job-2/input-source':\n" +
		"[libx264 @ 0x560e4ca9eb00] [info] using cpu capabilities: MMX2 SSE2Fast AVX2\n" +
		"[libx264 @ 0x560e4ca9eb00] [info] 264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - options: cabac=1 ref=3\n" +
		"[libvpx-vp9 @ 0x55a59166ab80] [info] v1.12.0\n" +
		"ffmpeg version 5.1.8 Copyright (c) 2000-2025 the FFmpeg developers\n" +
		"  built with gcc 12 (Debian 12.2.0-14)\n" +
		"  configuration: --prefix=/usr --enable-gpl\n" +
		"[Parsed_subtitles_0 @ 0x55d1] [info] Loading font file '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'\n" +
		"[info] Output #0, mp3, to 'file:/srv/kino/data/tmp/proc-1/job-2/parts/output.mp3':\n" +
		"[info]   Stream #0:1 -> #0:0 (aac (native) -> mp3 (libmp3lame)), 72 kb/s\n" +
		"[error] file:/srv/kino/data/tmp/proc-1/job-2/input-source: Invalid data found when processing input\n"
	_, err := s.Write([]byte(in))
	require.NoError(t, err)
	s.flush()
	assert.Equal(t, "[info] Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'file:input-source':\n"+
		"[Parsed_subtitles_0] [info] Loading font file 'DejaVuSans.ttf'\n"+
		"[info] Output #0, mp3, to 'file:parts/output.mp3':\n"+
		"[info]   Stream #0:1 -> #0:0 (aac (native) -> mp3 (libmp3lame)), 72 kb/s\n"+
		"[error] file:input-source: Invalid data found when processing input\n", log.String())
	assert.Equal(t, "file:input-source: Invalid data found when processing input\n", s.errs.String())
	assert.Len(t, raw, 11, "OnLogLine still reads every line as ffmpeg wrote it")
	assert.Contains(t, raw[1], "@ 0x560e4ca9eb00")
}
