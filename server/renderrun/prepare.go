package renderrun

import (
	"context"
	"fmt"

	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/mockup"
)

// The worker's part around the engine, which plans and runs nothing: what
// needs ffmpeg or ffprobe, or decodes a template, is done here, before
// planning, and handed to the engine as data.

// inputs are what a plan of the node reads beside its scene: the
// downloaded media, the default font, the templates of mockup layers and
// the node's ffmpeg limits.
func inputs(env *attempt.Env, media map[string]engine.Media) engine.Inputs {
	return engine.Inputs{Media: media, DefaultFont: env.Font, Templates: func(path string) (*mockup.Template, func(), error) {
		return openTemplate(env, path)
	}, FFmpeg: env.FFmpeg, Fonts: env.Fonts}
}

// openTemplate decodes the mockup template at path within the node's
// pixel bound (--max-image-pixels), as uploads and mockup.render read
// templates. Letting it go closes its file and gives the heap its drawing
// grew back to the system.
func openTemplate(env *attempt.Env, path string) (*mockup.Template, func(), error) {
	t, file, err := mockup.Load(path, env.FFmpeg.WithDefaults().MaxPixels)
	if err != nil {
		return nil, nil, err
	}
	return t, func() {
		file.Close()
		env.Memory.Release()
	}, nil
}

// measureLoudness is the first pass of a render with loudness: the mix
// the engine plans (engine.PlanLoudness) measured by ffmpeg, kept in
// scene.Loudness.Measured for the plans that follow, which apply one
// gain. It does nothing when there is nothing to measure.
func measureLoudness(ctx context.Context, env *attempt.Env, scene *engine.Scene, media map[string]engine.Media, dir string) error {
	cmd, err := engine.PlanLoudness(ctx, scene, inputs(env, media), dir)
	if err != nil || cmd == nil {
		return err
	}
	if err := cmd.WriteFiles(dir); err != nil {
		return err
	}
	measured, err := ffmpeg.MeasureLoudness(ctx, cmd.Args, ffmpeg.RunOptions{Limits: env.FFmpeg, Dir: dir})
	if err != nil {
		return fmt.Errorf("measure the loudness of the sound: %w", err)
	}
	scene.Loudness.Measured = measured
	return nil
}

// seekVideos finds, for each video scene cuts (engine.Scene.Seeks), the
// first frame of its source that the whole render shows, reading packets
// only, so that it seeks near its frames instead of decoding all before
// them. A video that cannot be probed plays from its trim, slower and the
// same frames; failed is told which and why, when not nil.
func seekVideos(ctx context.Context, env *attempt.Env, scene *engine.Scene, media map[string]engine.Media, failed func(engine.Seek, error)) {
	for _, sk := range scene.Seeks(media) {
		first, err := ffmpeg.FirstFrameAfter(ctx, env.FFmpeg, sk.Path, sk.Format, sk.Trim)
		if err != nil {
			if failed != nil {
				failed(sk, err)
			}
			continue
		}
		scene.Seeked(sk, first)
	}
}
