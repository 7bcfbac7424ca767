package rawcmd_test

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kinohq/kino/server/rawcmd"
)

// bareName is what every output must be: a file of the job's folder.
var bareName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.%-]*$`)

// FuzzParse: whatever a client sends, the parser does not panic, and a
// command it accepts reads only what kino downloads (http(s) URLs, asset
// ids, named inputs, lavfi graphs) and writes only bare names in the
// job's folder; its arguments open every input as a local file under
// file: with the protocol whitelist, and name no absolute path or "..".
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`ffmpeg -i https://cdn.example/a.mp4 -vf scale=320:-2 out.mp4`,
		`-i https://h/a.mp4?e=1&s=2 -i clip.mp4 -filter_complex "[0:v][1:v]overlay=x='(W-w)/2':y=0[v]" -map "[v]" -c:v libx264 o.mp4`,
		`-f lavfi -i "color=c=red:s=64x64:d=1" -frames:v 1 thumb_%03d.png`,
		`-i https://h/a.mp4 -vf subtitles=subs.srt,drawtext=fontfile=font.ttf:text='hi' -shortest output.mp4`,
		`-f concat -i list.txt out.mp4`,
		`-i /etc/passwd out.mp4`,
		`-i https://h/a.mp4 -vf mo'v'ie=/etc/passwd out.mp4`,
		`-i https://h/a.mp4 -y ../x.mp4`,
		`-filter_complex_script /etc/x -i https://h/a.mp4 o.mp4`,
		`-i ast_abc -map 0 -c copy o.mkv`,
	} {
		f.Add(seed)
	}
	named := map[string]bool{"clip.mp4": true, "subs.srt": true, "font.ttf": true}
	f.Fuzz(func(t *testing.T, command string) {
		cmd, err := rawcmd.Parse(command, named, 50_000_000, "")
		if err != nil {
			return
		}
		locals := map[int]rawcmd.Local{}
		for i, in := range cmd.Inputs {
			switch in.Kind {
			case rawcmd.URL:
				u, err := url.Parse(in.Ref)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
					t.Fatalf("accepted input %q is not an http(s) URL", in.Ref)
				}
			case rawcmd.Named:
				if !named[in.Ref] {
					t.Fatalf("accepted named input %q is not one of the job's", in.Ref)
				}
			}
			if in.Kind != rawcmd.Graph {
				locals[i] = rawcmd.Local{Path: fmt.Sprintf("input-%d", i), Demuxer: "mov"}
			}
		}
		for _, o := range cmd.Outputs {
			if !bareName.MatchString(o.Name) || strings.Contains(o.Name, "..") {
				t.Fatalf("accepted output %q is not a bare name in the folder", o.Name)
			}
		}
		args, err := cmd.Args(locals, 50_000_000, "")
		if err != nil {
			return
		}
		opensFiles := map[string]bool{"-filter_complex_script": true, "-filter_script": true, "-report": true, "-vstats_file": true,
			"-vstats": true, "-passlogfile": true, "-dump_attachment": true, "-attach": true, "-sdp_file": true, "-progress": true}
		for i, a := range args {
			if strings.HasPrefix(a, "file:/") || strings.Contains(a, "file:..") || strings.Contains(a, "/../") {
				t.Fatalf("argument %d names a path outside the folder: %q in %q", i, a, args)
			}
			if opensFiles[strings.SplitN(a, ":", 2)[0]] {
				t.Fatalf("argument %d opens a file of its own: %q in %q", i, a, args)
			}
			if a == "-i" && i+1 < len(args) {
				in := args[i+1]
				if strings.Contains(in, "://") && !strings.HasPrefix(in, "file:") {
					t.Fatalf("ffmpeg would open %q itself", in)
				}
			}
		}
	})
}
