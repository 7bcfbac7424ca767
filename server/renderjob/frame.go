package renderjob

import "github.com/kinohq/kino/server/engine"

// Frame is the picture a preview asks for: the render API checks it
// against the composition, the worker draws it.
type Frame struct {
	// Time of the frame in seconds.
	Time float64
	// Width of the picture in pixels; 0 is the composition's.
	Width int
	// Format is jpg or png.
	Format string
}

// Of is the scene of the frame of scene (engine.Scene.Preview); its
// errors name the request's time and width fields.
func (f Frame) Of(scene *engine.Scene) (*engine.Scene, error) {
	return scene.Preview(f.Time, f.Width, f.Format, "time", "width")
}
