package render

import (
	"context"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/renderjob"
)

// Drawer draws the frames of previews on the node that is asked: the
// render worker's previewer (renderrun.Previewer), which reads sources and
// runs ffmpeg as a render does.
type Drawer interface {
	// Draw draws the frame ask of a compiled scene of org's.
	Draw(ctx context.Context, org string, scene *engine.Scene, ask renderjob.Frame) (*renderv1.PreviewRenderResponse, error)
}

// PreviewRender validates the request as SubmitRender does and answers
// the frame a render of it shows at the time asked.
func (s *Service) PreviewRender(ctx context.Context, req *renderv1.PreviewRenderRequest) (*renderv1.PreviewRenderResponse, error) {
	if s.preview == nil {
		return nil, apierr.New(apierr.Unavailable, "this node draws no previews; ask a node that serves the API with workers")
	}
	c, err := s.compile(ctx, &renderv1.SubmitRenderRequest{Provider: req.GetProvider(), Composition: req.GetComposition(),
		AssetUrls: req.GetAssetUrls(), Webhook: req.GetWebhook(), Template: req.GetTemplate(), Merge: req.GetMerge(), Split: req.GetSplit()})
	if err != nil {
		return nil, err
	}
	if req.Time == nil {
		return nil, apierr.New(apierr.Validation, "time: is required: the time in seconds of the frame to preview")
	}
	format := req.GetFormat()
	if format == "" {
		format = "jpg"
	}
	ask := renderjob.Frame{Time: req.GetTime(), Width: int(req.GetWidth()), Format: format}
	if _, err := ask.Of(c.scene); err != nil {
		return nil, apierr.New(apierr.Validation, "%s", err.Error())
	}
	return s.preview.Draw(ctx, auth.Org(ctx), c.scene, ask)
}
