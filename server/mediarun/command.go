package mediarun

import (
	"context"

	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/executor"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/rawcmd"
)

// downloadCommand fetches the inputs of a client's own ffmpeg command
// (raw.ffmpeg, ffmpeg) with the guarded fetch every job uses, before
// ffmpeg starts: each named input staged in the folder under its name,
// and each URL or asset id of the command's -i positions as input-N.
// What ffmpeg opens through a demuxer (-i, the subtitles and ass
// filters) is probed: its format is forced when -i opens it, and a
// playlist or a concat list is refused. Fonts and LUTs, read by their
// filters' own parsers, are not.
func (r *Runner) downloadCommand(a *attempt.Attempt, j *jobs.Job, params map[string]any, values map[string]string) (map[string]executor.Input, float64, *failure) {
	command, _ := params["command"].(string)
	outputFormat, _ := params["outputFormat"].(string)
	named := map[string]bool{}
	for k := range values {
		named[k] = true
	}
	cmd, err := rawcmd.Parse(command, named, r.cfg.FFmpeg.WithDefaults().MaxPixels, outputFormat)
	if err != nil {
		return nil, 0, &failure{Code: jobs.CodeInputInvalid, Message: "params.command: " + err.Error()}
	}
	probed := map[string]bool{}
	for name := range cmd.Demuxed {
		probed[name] = true
	}
	var keys, files []string
	var sources []attempt.Source
	add := func(key, file, label, ref string) {
		keys, files = append(keys, key), append(files, file)
		sources = append(sources, attempt.Source{Label: label, URL: ref, Probe: probed[key],
			Fetch: func(ctx context.Context, path string) (int64, error) {
				return 0, r.fetch(ctx, j.OrgID, ref, "", path)
			}})
	}
	for i, in := range cmd.Inputs {
		switch in.Kind {
		case rawcmd.URL, rawcmd.Asset:
			key := executor.CommandInputKey(i)
			probed[key] = true
			add(key, "input-"+key[1:], "params.command: -i "+in.Ref, in.Ref)
		}
	}
	for name, ref := range values {
		add(name, name, "inputs."+name, ref)
	}
	got, f := a.Fetch(sources, func(i int) string { return files[i] })
	if f != nil || got == nil {
		return nil, 0, f
	}
	inputs := make(map[string]executor.Input, len(got))
	seconds := 0.0
	for i, in := range got {
		info := in.Info
		if info == nil {
			info = &ffmpeg.Info{}
		}
		inputs[keys[i]] = executor.Input{Path: in.Path, Info: info}
		seconds += info.Duration
	}
	return inputs, seconds, nil
}
