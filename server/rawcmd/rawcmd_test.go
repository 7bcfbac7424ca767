package rawcmd_test

import (
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/rawcmd"
)

func TestSplitQuotesAsAShell(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		`ffmpeg -i a.mp4 out.mp4`:                       {"ffmpeg", "-i", "a.mp4", "out.mp4"},
		`-vf "scale=640:-2,fade=in" o.mp4`:              {"-vf", "scale=640:-2,fade=in", "o.mp4"},
		`-vf 'text=it'\''s' o.mp4`:                      {"-vf", "text=it's", "o.mp4"},
		`-metadata title="a \"b\" \$c" o.mp4`:           {"-metadata", `title=a "b" $c`, "o.mp4"},
		"-map \"[v]\" \\\n out.mp4":                     {"-map", "[v]", "out.mp4"},
		`a\ b`:                                          {"a b"},
		`-i http://h/a.mp4?e=1&s=2 o.mp4`:               {"-i", "http://h/a.mp4?e=1&s=2", "o.mp4"},
		`-filter_complex [0]scale=2:2[a];[a]null o.mp4`: {"-filter_complex", "[0]scale=2:2[a];[a]null", "o.mp4"},
	} {
		got, err := rawcmd.Split(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{`a | b`, `a > b`, `a & b`, `a& b`, `a &b`, `a&&b`, `a&`, "a `b`", `$(b)`, `"open`, `'open`} {
		_, err := rawcmd.Split(in)
		assert.Error(t, err, in)
	}
}

func TestParseAllowsAClientsEdit(t *testing.T) {
	t.Parallel()
	cmd, err := rawcmd.Parse(`ffmpeg -y -loglevel quiet -ss 1 -i https://cdn.example/a.mp4 -loop 1 -t 3 -i ast_abc -i clip.mp4 `+
		`-f LAVFI -i "color=c=0x102030:s=640x360:d=3" -filter_complex "[0:v]trim=0:2,setpts=PTS-STARTPTS,scale=640:360[a];`+
		`[3:v][a]overlay=x='(W-w)/2':y=0,drawtext=fontfile=font.ttf:text='hi',subtitles=subs.srt[v]" -map "[v]" -map 2:a -c:v libx264 -c:a:0 aac `+
		`-shortest output.mp4 -map "[v]" -frames:v 1 -f image2 thumb_%03d.png`,
		map[string]bool{"clip.mp4": true, "font.ttf": true, "subs.srt": true}, 50_000_000, "")
	require.NoError(t, err)
	require.Len(t, cmd.Inputs, 4)
	assert.Equal(t, []rawcmd.InputKind{rawcmd.URL, rawcmd.Asset, rawcmd.Named, rawcmd.Graph},
		[]rawcmd.InputKind{cmd.Inputs[0].Kind, cmd.Inputs[1].Kind, cmd.Inputs[2].Kind, cmd.Inputs[3].Kind})
	assert.True(t, cmd.Inputs[1].Loop)
	assert.Equal(t, map[string]bool{"clip.mp4": true, "subs.srt": true}, cmd.Demuxed, "fonts are read by freetype, not a demuxer")
	require.Len(t, cmd.Outputs, 2)
	assert.Equal(t, "image2", cmd.Outputs[1].Format)

	args, err := cmd.Args(map[int]rawcmd.Local{0: {Path: "/job/input-0", Demuxer: "mov"}, 1: {Path: "/job/input-1", Demuxer: "jpeg_pipe"},
		2: {Path: "/job/clip.mp4", Demuxer: "mov"}}, 1000, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"-ss", "1", "-protocol_whitelist", "file", "-f", "mov", "-max_pixels", "1000", "-i", "file:/job/input-0",
		"-loop", "1", "-t", "3", "-protocol_whitelist", "file", "-f", "image2", "-max_pixels", "1000", "-pattern_type", "none", "-i", "file:/job/input-1",
		"-protocol_whitelist", "file", "-f", "mov", "-max_pixels", "1000", "-i", "file:/job/clip.mp4",
		"-f", "lavfi", "-protocol_whitelist", "file", "-i", "color=c=0x102030:s=640x360:d=3"}, args[:38], "every input local, its format forced; -y and -loglevel dropped")
	assert.Contains(t, args, "file:output.mp4")
	assert.Equal(t, []string{"-f", "image2", "file:thumb_%03d.png"}, args[len(args)-3:])
}

func TestParseReadsFilterNamesAsFFmpegDoes(t *testing.T) {
	t.Parallel()
	for _, graph := range []string{`mo'v'ie=x`, `mo\vie=x`, ` movie =x`, `[in]movie@one=x[out]`, `null,movie`, `null;'movie'`, `scale=2:2[a];[a]amovie`} {
		_, err := rawcmd.Parse(`-f lavfi -i color -vf "`+graph+`" o.mp4`, nil, 1e6, "")
		require.Error(t, err, graph)
		assert.Contains(t, err.(*rawcmd.Error).Word, "movie", graph)
	}
	// Quotes inside option values keep their separators.
	_, err := rawcmd.Parse(`-f lavfi -i color -vf "drawtext=text='a\:b,c;d':fontsize=20" o.mp4`, nil, 1e6, "")
	assert.NoError(t, err)
}

// TestGraphNamesAgreeWithFFmpeg asks ffmpeg itself which filter it finds
// first in graphs spelled to mislead, with a name that exists nowhere,
// and checks kino reads the same name: a filter kino reads one way and
// ffmpeg another would slip past the allowlist.
func TestGraphNamesAgreeWithFFmpeg(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("no ffmpeg")
	}
	noSuch := regexp.MustCompile(`No such filter: '(.*)'\r?\n`)
	for _, graph := range []string{`zz'q'x=1`, `zz\qx=1`, ` zzqx =1`, `null,zz'q'x`, `null;'zzqx'`, `[in]null[a];[a]zz\'qx[out]`,
		`scale=2:2,zz"q"x`, `nu'll',zz\\qx`, "null,\tzzqx"} {
		names, err := rawcmd.FilterNames(graph)
		require.NoError(t, err, graph)
		out, _ := exec.Command("ffmpeg", "-hide_banner", "-f", "lavfi", "-i", "nullsrc=s=16x16:d=0.04", "-filter_complex", graph, "-f", "null", "-").CombinedOutput()
		m := noSuch.FindSubmatch(out)
		require.NotNil(t, m, "%s: ffmpeg said %s", graph, out)
		assert.Contains(t, names, string(m[1]), "%s: ffmpeg looked for %q, kino read %q", graph, m[1], names)
	}
}
