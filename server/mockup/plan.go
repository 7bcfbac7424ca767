package mockup

import (
	"encoding/json"
	"fmt"
	"image/color"
	"sort"
	"strconv"

	"github.com/kinohq/kino/server/catalog"
)

// Plan is what a mockup.render job draws, read from its params and
// whether it has a design input: the media API checks it at submit
// (against a template asset's stored manifest), the executor when the job
// runs (against the template it read).
type Plan struct {
	// SmartObject receives each design of Designs, one mockup each; ""
	// means the template's only smart object (Check resolves it).
	SmartObject string
	// Designs are refs, in output order: the design input (DesignInput)
	// first, then params.designs.
	Designs []string
	// Fixed are more smart objects filled on every mockup, path -> ref.
	Fixed map[string]string
	// Params are the job's params.
	Params catalog.MockupRender
}

// DesignInput is how a plan names the job's design input among refs.
const DesignInput = "input:design"

// NewPlan reads a job's plan; hasDesign says whether inputs.design is
// set. A plan no template can draw is a problem of the request. A plan of
// no design at all draws the template as it is: one mockup, every smart
// object with its own pixels.
func NewPlan(p catalog.MockupRender, hasDesign bool) (Plan, *catalog.Problem) {
	plan := Plan{SmartObject: p.SmartObject, Fixed: map[string]string{}, Params: p}
	if hasDesign {
		plan.Designs = append(plan.Designs, DesignInput)
	}
	plan.Designs = append(plan.Designs, p.Designs...)
	for k, v := range p.SmartObjects {
		plan.Fixed[k] = v
	}
	if len(plan.Designs)+len(plan.Fixed) > catalog.MaxMockups {
		return plan, &catalog.Problem{Path: "params.designs", Message: fmt.Sprintf("at most %d designs and smart objects in one job", catalog.MaxMockups)}
	}
	if _, ok := plan.Fixed[plan.SmartObject]; ok && plan.SmartObject != "" && len(plan.Designs) > 0 {
		return plan, &catalog.Problem{Path: "params.smartObjects", Message: fmt.Sprintf("%q is also smartObject, which the design fills", plan.SmartObject)}
	}
	return plan, nil
}

// Check resolves the default smart object and checks every layer path of
// the plan against a template's manifest: a *PathError names the param.
func (p *Plan) Check(m *Manifest) error {
	if len(p.Designs) > 0 && p.SmartObject == "" {
		so, err := DefaultSmartObject(m)
		if err != nil {
			return err
		}
		p.SmartObject = so
	}
	var sos []string
	if len(p.Designs) > 0 {
		sos = append(sos, p.SmartObject)
	}
	for k := range p.Fixed {
		sos = append(sos, k)
	}
	sort.Strings(sos[min(1, len(sos)):])
	var colors []string
	for k := range p.Params.Colors {
		colors = append(colors, k)
	}
	sort.Strings(colors)
	return Check(m, sos, p.Params.Hide, p.Params.Show, colors)
}

// Colors are the new colours of fill layers, from params.colors (#rrggbb,
// as the catalogue's pattern holds them), or nil.
func (p *Plan) Colors() map[string]color.NRGBA {
	if len(p.Params.Colors) == 0 {
		return nil
	}
	colors := map[string]color.NRGBA{}
	for k, s := range p.Params.Colors {
		r, _ := strconv.ParseUint(s[1:3], 16, 8)
		g, _ := strconv.ParseUint(s[3:5], 16, 8)
		b, _ := strconv.ParseUint(s[5:7], 16, 8)
		colors[k] = color.NRGBA{uint8(r), uint8(g), uint8(b), 255}
	}
	return colors
}

// OutputField is the output field of the n-th mockup of a batch (from 0):
// outputUrl, then outputUrl2, outputUrl3, ...
func OutputField(n int) string {
	if n == 0 {
		return "outputUrl"
	}
	return "outputUrl" + strconv.Itoa(n+1)
}

// StoredManifest reads a template asset's manifest from its metadata; ok
// is false for an asset stored before kino read templates, which is
// checked when the template is read instead.
func StoredManifest(metadata string) (m *Manifest, ok bool) {
	m = &Manifest{}
	if err := json.Unmarshal([]byte(metadata), m); err != nil || m.Layers == nil {
		return nil, false
	}
	return m, true
}
