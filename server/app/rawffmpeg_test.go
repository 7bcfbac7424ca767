package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/store/storetest"
)

// editCommand is a client's whole edit as one command, as Rendobar's
// clients build it: the demo talk trimmed, scaled, cropped and faded, a
// picture looped, faded and moved over a colour source by an
// expression, the two concatenated; the voice trimmed and mixed with
// music; a poster frame as a second output.
const editCommand = `ffmpeg -i http://localhost:8080/demo/talk.mp4 -i http://localhost:8080/demo/music.mp3 ` +
	`-loop 1 -t 3 -i http://localhost:8080/demo/picture1.jpg -f lavfi -i "color=c=0x102030:s=640x360:d=3:r=25" ` +
	`-filter_complex "[0:v]trim=start=1:end=4,setpts=PTS-STARTPTS,scale=640:360,crop=600:340:20:10,scale=640:360,setsar=1,fps=25,fade=t=in:st=0:d=0.5[a];` +
	`[2:v]scale=320:-2,setsar=1,format=yuva420p,fade=t=out:st=2:d=1:alpha=1[pic];` +
	`[3:v][pic]overlay=x='(W-w)/2+20*sin(t)':y='(H-h)/2':shortest=1,setsar=1[b];` +
	`[a][b]concat=n=2:v=1:a=0,format=yuv420p,split=2[v][vp];` +
	`[0:a]atrim=start=1:end=4,asetpts=PTS-STARTPTS,volume=1.5,apad=pad_dur=3[voice];` +
	`[1:a]atrim=0:6,asetpts=PTS-STARTPTS,volume=0.3[music];` +
	`[voice][music]amix=inputs=2:duration=shortest[aout]" ` +
	`-map "[v]" -map "[aout]" -shortest -c:v libx264 -preset veryfast -crf 23 -c:a aac -b:a 128k output.mp4 ` +
	`-map "[vp]" -frames:v 1 poster.png`

func TestRawFFmpegEditRunsEndToEnd(t *testing.T) {
	t.Parallel()
	requireWalls(t)
	// No private networks: the demo media are read in-process, and
	// nothing else is reachable.
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false })
	for _, typ := range []string{"raw.ffmpeg", "ffmpeg"} {
		id := k.createJob(t, map[string]any{"type": typ, "inputs": map[string]any{}, "params": map[string]any{"command": editCommand, "timeout": 300}})
		j := k.waitJob(t, id)
		require.Equal(t, "complete", j["status"], "%v", j)
		info := download(t, j["outputUrl"].(string))
		v, a := info.Video(), info.Audio()
		require.NotNil(t, v)
		require.NotNil(t, a)
		assert.Equal(t, 640, v.Width)
		assert.Equal(t, 360, v.Height)
		assert.Equal(t, "h264", v.CodecName)
		assert.Equal(t, "aac", a.CodecName)
		assert.InDelta(t, 6, info.Duration, 0.3)
		// Every output is stored, each in its own field, and each field
		// tells the name the command gave it.
		var meta map[string]any
		require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
		poster := download(t, meta["outputUrl2"].(string))
		assert.Equal(t, 640, poster.Video().Width)
		assert.Equal(t, map[string]any{"outputUrl": "output.mp4", "outputUrl2": "poster.png"}, meta["outputNames"])
	}
}

// requireWalls skips where the kernel offers no sandbox: a raw command
// is refused there, by design.
func requireWalls(t *testing.T) {
	t.Helper()
	if w := ffmpeg.ProbeWalls(); !w.Complete() {
		t.Skipf("no sandbox on this kernel: %s", w.Err)
	}
}

func TestNamedInputsAreStagedByName(t *testing.T) {
	t.Parallel()
	requireWalls(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false })
	id := k.createJob(t, map[string]any{"type": "ffmpeg",
		"inputs": map[string]any{"clip.mp4": "http://localhost:8080/demo/talk.mp4", "subs.srt": map[string]any{"url": "http://localhost:8080/demo/captions.srt"},
			"font.ttf": "http://localhost:8080/demo/font.ttf"},
		"params": map[string]any{"command": `ffmpeg -i clip.mp4 -t 2 -vf "subtitles=subs.srt,drawtext=fontfile=font.ttf:text='kino':x=10:y=10:fontsize=24" -c:v libx264 -preset ultrafast -c:a aac result`,
			"outputFormat": "mp4"}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	// outputFormat names the container of an output without extension.
	assert.True(t, strings.HasSuffix(j["outputUrl"].(string), ".mp4") || strings.Contains(j["outputUrl"].(string), ".mp4?"), "%v", j["outputUrl"])
	info := download(t, j["outputUrl"].(string))
	assert.InDelta(t, 2, info.Duration, 0.2)
	assert.Contains(t, info.FormatName, "mp4")
}

// attack is a hostile command refused at submit, naming word.
type attack struct {
	name, command, word string
	inputs              map[string]any
}

const u = "https://cdn.example/a.mp4"

var submitAttacks = []attack{
	{name: "concat demuxer list", command: "-f concat -safe 0 -i https://cdn.example/list.txt out.mp4", word: "concat"},
	{name: "hls input forced", command: "-f hls -i https://cdn.example/p.m3u8 out.mp4", word: "hls"},
	{name: "file url", command: "-i file:/etc/passwd out.mp4", word: "file:/etc/passwd"},
	{name: "absolute path input", command: "-i /etc/passwd out.mp4", word: "/etc/passwd"},
	{name: "relative escape input", command: "-i ../../../etc/passwd out.mp4", word: "../../../etc/passwd"},
	{name: "concat protocol", command: `-i "concat:/etc/passwd|/etc/hosts" out.mp4`, word: "concat:/etc/passwd|/etc/hosts"},
	{name: "subfile protocol", command: `-i "subfile,,start,0,end,0,,:/etc/passwd" out.mp4`, word: "subfile"},
	{name: "movie filter", command: "-i " + u + ` -vf "movie=/etc/passwd[m];[in][m]overlay" out.mp4`, word: "movie"},
	{name: "amovie via lavfi in capitals", command: `-f LAVFI -i "amovie=/etc/passwd" out.wav`, word: "amovie"},
	{name: "movie split by quotes", command: "-i " + u + ` -lavfi "mo'v'ie=/etc/passwd" out.mp4`, word: "movie"},
	{name: "movie split by backslash", command: "-i " + u + ` -filter_complex "mo\\vie=/etc/passwd" out.mp4`, word: "movie"},
	{name: "amovie in -filter:a", command: "-i " + u + ` -filter:a "amovie=/etc/passwd" out.mp4`, word: "amovie"},
	{name: "subtitles absolute path", command: "-i " + u + " -vf subtitles=/etc/passwd out.mp4", word: "/etc/passwd"},
	{name: "subtitles filename quoted", command: "-i " + u + ` -vf "subtitles=filename='/etc/passwd'" out.mp4`, word: "/etc/passwd"},
	{name: "ass relative escape", command: "-i " + u + ` -vf "ass=../../etc/passwd" out.mp4`, word: "../../etc/passwd"},
	{name: "drawtext textfile", command: "-i " + u + ` -vf "drawtext=textfile=/etc/passwd" out.mp4`, word: "/etc/passwd"},
	{name: "drawtext fontfile", command: "-i " + u + ` -vf "drawtext=fontfile=/etc/passwd:text=x" out.mp4`, word: "/etc/passwd"},
	{name: "curves psfile", command: "-i " + u + ` -vf "curves=psfile=/etc/passwd" out.mp4`, word: "/etc/passwd"},
	{name: "lut3d file", command: "-i " + u + ` -vf "lut3d=/etc/passwd" out.mp4`, word: "/etc/passwd"},
	{name: "sendcmd file", command: "-i " + u + ` -vf "sendcmd=f=/etc/passwd,scale=64:64" out.mp4`, word: "sendcmd"},
	{name: "asendcmd file", command: "-i " + u + ` -af "asendcmd=f=/etc/passwd" out.mp4`, word: "asendcmd"},
	{name: "zmq socket", command: "-i " + u + " -vf zmq out.mp4", word: "zmq"},
	{name: "azmq socket", command: "-i " + u + " -af azmq out.mp4", word: "azmq"},
	{name: "ladspa library", command: "-i " + u + ` -af "ladspa=file=/usr/lib/evil.so" out.mp4`, word: "ladspa"},
	{name: "lv2 plugin", command: "-i " + u + ` -af "lv2=p=http://evil" out.mp4`, word: "lv2"},
	{name: "frei0r library", command: "-i " + u + ` -vf "frei0r=filter_name=/tmp/evil.so" out.mp4`, word: "frei0r"},
	{name: "life reads a file", command: `-f lavfi -i "life=filename=/etc/passwd" out.mp4`, word: "life"},
	{name: "metadata writes a file", command: "-i " + u + ` -vf "metadata=mode=print:file=/tmp/x" out.mp4`, word: "metadata"},
	{name: "filter option from a file", command: "-i " + u + ` -vf "drawbox=/color=/etc/passwd" out.mp4`, word: "/color"},
	{name: "filter_complex_script", command: "-i " + u + " -filter_complex_script /etc/passwd out.mp4", word: "-filter_complex_script"},
	{name: "filter_script", command: "-i " + u + " -filter_script:v /etc/passwd out.mp4", word: "-filter_script:v"},
	{name: "option value from a file", command: "-i " + u + " -/vf /etc/passwd out.mp4", word: "-/vf"},
	{name: "dump_attachment", command: "-dump_attachment:t:0 /tmp/x -i " + u + " out.mp4", word: "-dump_attachment:t:0"},
	{name: "attach", command: "-i " + u + " -attach /etc/passwd out.mkv", word: "-attach"},
	{name: "report", command: "-report -i " + u + " out.mp4", word: "-report"},
	{name: "vstats_file", command: "-i " + u + " -vstats_file /tmp/vstats out.mp4", word: "-vstats_file"},
	{name: "passlogfile", command: "-i " + u + " -passlogfile /tmp/pass -pass 1 out.mp4", word: "-passlogfile"},
	{name: "x264 stats file", command: "-i " + u + " -x264-params stats=/etc/passwd out.mp4", word: "-x264-params"},
	{name: "protocol_whitelist", command: "-protocol_whitelist file,http,tcp -i " + u + " out.mp4", word: "-protocol_whitelist"},
	{name: "write /tmp", command: "-i " + u + " -y /tmp/x.mp4", word: "/tmp/x.mp4"},
	{name: "write parent", command: "-i " + u + " ../x.mp4", word: "../x.mp4"},
	{name: "write by file url", command: "-i " + u + " file:/tmp/x.mp4", word: "file:/tmp/x.mp4"},
	{name: "tee muxer", command: "-i " + u + ` -f tee "[f=mp4]/tmp/a.mp4|[f=mp4]b.mp4"`, word: "tee"},
	{name: "hls muxer", command: "-i " + u + " -f hls out.m3u8", word: "hls"},
	{name: "stdout", command: "-i " + u + " -f null -", word: "null"},
	{name: "v4l2 device", command: "-f v4l2 -i /dev/video0 out.mp4", word: "v4l2"},
	{name: "alsa device", command: "-f alsa -i hw:0 out.wav", word: "alsa"},
	{name: "x11grab device", command: "-f x11grab -i :0.0 out.mp4", word: "x11grab"},
	{name: "fbdev device", command: "-f fbdev -i /dev/fb0 out.mp4", word: "fbdev"},
	{name: "device encoder", command: "-i " + u + " -c:v h264_v4l2m2m out.mp4", word: "h264_v4l2m2m"},
	{name: "huge color source", command: `-f lavfi -i "color=s=100000x100000" out.mp4`, word: "100000x100000"},
	{name: "large color source", command: `-f lavfi -i "color=c=red:20000x20000" out.mp4`, word: "20000x20000"},
	{name: "huge scale", command: "-i " + u + " -vf scale=30000:30000 out.mp4", word: "30000x30000"},
	{name: "huge -s", command: "-i " + u + " -s 20000x20000 out.mp4", word: "20000x20000"},
	{name: "many outputs", command: "-i " + u + " a1.mp4 a2.mp4 a3.mp4 a4.mp4 a5.mp4 a6.mp4 a7.mp4 a8.mp4 a9.mp4 a10.mp4 a11.mp4", word: "a11.mp4"},
	{name: "shell pipe", command: "-i " + u + " out.mp4 | cat /etc/passwd", word: "|"},
	{name: "shell substitution", command: "-i $(cat /etc/passwd) out.mp4", word: "$"},
	{name: "output over a named input", command: "-i clip.mp4 clip.mp4", word: "clip.mp4", inputs: map[string]any{"clip.mp4": u}},
	{name: "subtitles fontsdir outside", command: `-i clip.mp4 -vf "subtitles=subs.srt:fontsdir=/etc" out.mp4`, word: "/etc",
		inputs: map[string]any{"clip.mp4": u, "subs.srt": "https://cdn.example/s.srt"}},
	{name: "a filter reads a file that is not staged", command: "-i " + u + ` -vf "subtitles=other.srt" out.mp4`, word: "other.srt"},
}

func TestRawFFmpegAttacksAreRefusedAtSubmit(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	require.GreaterOrEqual(t, len(submitAttacks), 40)
	for _, a := range submitAttacks {
		for _, typ := range []string{"raw.ffmpeg", "ffmpeg"} {
			inputs := a.inputs
			if inputs == nil {
				inputs = map[string]any{}
			}
			r := k.do(t, http.MethodPost, "/jobs", map[string]any{"type": typ, "inputs": inputs, "params": map[string]any{"command": a.command}})
			require.Equal(t, http.StatusBadRequest, r.status, "%s (%s) was accepted: %s", a.name, typ, r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), a.name)
			assert.Contains(t, string(r.body), a.word, "%s: the message names the word", a.name)
		}
	}
	r := k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "raw.ffmpeg", "inputs": map[string]any{}, "params": map[string]any{"command": "-i " + u + " out.mp4", "timeout": 901}})
	require.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, string(r.body), "params.timeout")
	// A pipeline's node is checked by the same parser.
	r = k.do(t, http.MethodPost, "/pipelines", map[string]any{"name": "evil", "nodes": []any{
		map[string]any{"id": "raw", "jobType": "raw.ffmpeg", "params": map[string]any{"command": "-report -i " + u + " out.mp4"}}}, "edges": []any{}})
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Contains(t, string(r.body), "-report")
	r = k.do(t, http.MethodGet, "/api/health", nil)
	assert.Equal(t, http.StatusOK, r.status, "kino keeps serving")
}

// hostile serves files that point at the server's own disk, and counts
// the requests it gets.
func hostile(t *testing.T) (string, *atomic.Int32) {
	var hits atomic.Int32
	files := map[string]string{
		"/evil.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
		"/evil":      "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n/etc/passwd\n#EXT-X-ENDLIST\n",
		"/list.txt":  "ffconcat version 1.0\nfile '/etc/passwd'\n",
		"/evil.srt":  "1\n00:00:00,000 --> 00:00:01,000\n<font face=\"/etc/passwd\">x</font>\n",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if strings.HasSuffix(r.URL.Path, ".mp4") {
			http.ServeFile(w, r, filepath.Join(testMedia(t), "clip.mp4"))
			return
		}
		_, _ = io.WriteString(w, files[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &hits
}

func TestRawFFmpegAttacksFailInsideTheWalls(t *testing.T) {
	t.Parallel()
	requireWalls(t)
	base, _ := hostile(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.MaxOutputBytes = 4 << 20; c.Workers = 2 })
	cases := []struct {
		name, command, code string
		inputs              map[string]any
		timeout             float64
	}{
		{name: "hls playlist naming a local file", command: "-i " + base + "/evil.m3u8 -c copy out.ts", code: "INPUT_INVALID"},
		{name: "hls playlist without extension", command: "-i " + base + "/evil -c copy out.ts", code: "INPUT_INVALID"},
		{name: "concat list by url", command: "-i " + base + "/list.txt -c copy out.mp4", code: "INPUT_INVALID"},
		{name: "hls playlist as a named input", command: "-i list.m3u8 -c copy out.ts", code: "INPUT_INVALID",
			inputs: map[string]any{"list.m3u8": base + "/evil.m3u8"}},
		{name: "concat list as a named input", command: "-i list.txt -c copy out.mp4", code: "INPUT_INVALID",
			inputs: map[string]any{"list.txt": base + "/list.txt"}},
		{name: "hls playlist staged as subtitles", command: "-i clip.mp4 -vf subtitles=subs.srt out.mp4", code: "INPUT_INVALID",
			inputs: map[string]any{"clip.mp4": base + "/clip.mp4", "subs.srt": base + "/evil.m3u8"}},
		{name: "infinite stream_loop", command: "-re -stream_loop -1 -i " + base + "/clip.mp4 -c copy out.mkv", code: "JOB_TIMEOUT", timeout: 2},
		{name: "endless generated output", command: `-f lavfi -i "color=s=640x360:r=25" -c:v rawvideo -pix_fmt rgb24 out.avi`, code: "OUTPUT_TOO_LARGE", timeout: 60},
		{name: "a sequence of too many files", command: `-f lavfi -i "color=s=16x16:r=25" -t 6 frame_%03d.png`, code: "OUTPUT_TOO_LARGE"},
	}
	for _, c := range cases {
		inputs := c.inputs
		if inputs == nil {
			inputs = map[string]any{}
		}
		params := map[string]any{"command": c.command}
		if c.timeout > 0 {
			params["timeout"] = c.timeout
		}
		id := k.createJob(t, map[string]any{"type": "ffmpeg", "inputs": inputs, "params": params})
		j := k.waitJob(t, id)
		assert.Equal(t, "failed", j["status"], "%s: %v", c.name, j)
		assert.Equal(t, c.code, j["errorCode"], "%s: %v", c.name, j)
		assert.NotContains(t, j, "outputUrl", c.name)
	}
	for _, p := range []string{"/tmp/x.mp4", "/tmp/vstats", "/tmp/pass"} {
		_, err := os.Stat(p)
		assert.True(t, os.IsNotExist(err), "%s was not written", p)
	}
	assert.Equal(t, http.StatusOK, k.do(t, http.MethodGet, "/api/health", nil).status, "kino keeps serving")
}

func TestRawFFmpegReachesNoPrivateAddress(t *testing.T) {
	t.Parallel()
	requireWalls(t)
	base, hits := hostile(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false })
	for _, in := range []string{base + "/clip.mp4", "http://169.254.169.254/latest/meta-data/clip.mp4", "http://[::1]:22/clip.mp4", "http://10.0.0.1/clip.mp4"} {
		id := k.createJob(t, map[string]any{"type": "raw.ffmpeg", "inputs": map[string]any{}, "params": map[string]any{"command": "-i " + in + " -c copy out.mp4"}})
		j := k.waitJob(t, id)
		assert.Equal(t, "failed", j["status"], "%s: %v", in, j)
		assert.Equal(t, "ASSET_FETCH_FAILED", j["errorCode"], "%s: %v", in, j)
	}
	assert.Zero(t, hits.Load(), "no request reached 127.0.0.1")
}

// TestRawFFmpegCancelKillsTheSandboxedProcess: a cancel reaches ffmpeg
// behind the launcher (same process, its own group): no ffmpeg working in
// kino's folders is left.
func TestRawFFmpegCancelKillsTheSandboxedProcess(t *testing.T) {
	t.Parallel()
	requireWalls(t)
	k := start(t, storetest.SQLite(t), nil)
	id := k.createJob(t, map[string]any{"type": "raw.ffmpeg", "inputs": map[string]any{},
		"params": map[string]any{"command": `-re -f lavfi -i "color=s=64x64:r=25" -t 600 -c:v libx264 -preset ultrafast out.mp4`, "timeout": 900}})
	require.Eventually(t, func() bool { return len(ffmpegsUnder(k.cfg.DataDir)) > 0 }, 30*time.Second, 20*time.Millisecond, "ffmpeg started")
	k.waitMediaStatus(t, id, "running", 30*time.Second)
	r := k.do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Eventually(t, func() bool { return len(ffmpegsUnder(k.cfg.DataDir)) == 0 }, 5*time.Second, 20*time.Millisecond, "ffmpeg killed")
	assert.Equal(t, "cancelled", k.waitJob(t, id)["status"])
}

// ffmpegsUnder are the pids of ffmpeg processes working in dir.
func ffmpegsUnder(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		comm, err := os.ReadFile(filepath.Join(p, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "ffmpeg" {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join(p, "cwd")); err == nil && strings.HasPrefix(cwd, dir) {
			out = append(out, filepath.Base(p))
		}
	}
	return out
}
