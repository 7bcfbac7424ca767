package media

import (
	"context"
	"errors"
	"fmt"

	"github.com/kinohq/kino/ent/asset"
	kinoasset "github.com/kinohq/kino/server/asset"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/mockup"
)

// checkMockup checks what a mockup.render job names beyond its type's
// declaration: the designs in params are pictures the caller can fetch,
// and, when the template is an asset, every layer path of the params is
// one its stored manifest has, of the right kind. A template given by URL
// is checked when the job runs.
func (s *JobService) checkMockup(ctx context.Context, t *catalog.Type, inputs, params map[string]any) []catalog.Problem {
	var out []catalog.Problem
	_, hasDesign := inputs["design"]
	d, err := catalog.DecodeMap[catalog.MockupRender](t, params)
	var pe *catalog.ParamsError
	switch {
	case errors.As(err, &pe):
		return pe.Problems
	case err != nil:
		return []catalog.Problem{{Path: "params", Message: err.Error()}}
	}
	plan, problem := mockup.NewPlan(d.Params, hasDesign)
	if problem != nil {
		return []catalog.Problem{*problem}
	}
	ref := func(path, v string) {
		switch {
		case ident.IsAsset(v):
			a, err := kinoasset.Visible(ctx, s.st, auth.Org(ctx), v)
			switch {
			case err != nil:
				out = append(out, catalog.Problem{Path: path, Message: fmt.Sprintf("no asset has the id %q", v)})
			case a.Type != asset.TypeImage:
				out = append(out, catalog.Problem{Path: path, Message: fmt.Sprintf("asset %s is a %s; a design is an image asset", v, a.Type)})
			}
		case !fetch.IsHTTPURL(v):
			out = append(out, catalog.Problem{Path: path, Message: "must be an absolute http or https URL, or an asset id"})
		}
	}
	if d, ok := inputs["design"].(string); ok {
		ref("inputs.design", d)
	}
	for i, d := range plan.Designs[min(len(plan.Designs), btoi(hasDesign)):] {
		ref(fmt.Sprintf("params.designs[%d]", i), d)
	}
	for k, d := range plan.Fixed {
		ref(fmt.Sprintf("params.smartObjects[%q]", k), d)
	}
	id, _ := inputs["template"].(string)
	if !ident.IsAsset(id) {
		return out
	}
	a, err := kinoasset.Visible(ctx, s.st, auth.Org(ctx), id)
	if err != nil {
		return out // validateJob said so
	}
	if a.Type != asset.TypePsdTemplate {
		return append(out, catalog.Problem{Path: "inputs.template", Message: fmt.Sprintf("asset %s is a %s; template takes a psd_template asset", id, a.Type)})
	}
	if a.Status != asset.StatusReady {
		return append(out, catalog.Problem{Path: "inputs.template", Message: fmt.Sprintf("asset %s is %s: kino could not read it when it was uploaded; upload it again", id, a.Status)})
	}
	m, ok := mockup.StoredManifest(a.Metadata)
	if !ok {
		return out // stored before kino read templates: checked when the job runs
	}
	if err := plan.Check(m); err != nil {
		var pe *mockup.PathError
		if errors.As(err, &pe) {
			msg := pe.Problem
			if pe.Path != "" {
				msg = fmt.Sprintf("%q %s", pe.Path, pe.Problem)
			}
			return append(out, catalog.Problem{Path: "params." + pe.Param, Message: msg})
		}
		out = append(out, catalog.Problem{Path: "params", Message: err.Error()})
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
