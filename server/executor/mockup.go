package executor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/memory"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/mockup"
	"github.com/kinohq/kino/server/rescue"
)

// templates keeps the last few templates decoded between jobs: a shop
// renders many designs on one product (docs/limits.md).
var templates = &mockup.Cache{Size: 4, MaxPixels: 16_000_000}

// mockupRender places designs into the smart objects of a PSD template.
// The template is decoded once per job; the mockups of a batch are drawn
// and encoded as many at once as the template's memory budget holds
// (mockup.Cost.Drawings), at most one a core. Every drawing is kino's
// own CPU time, metered into the job's cpuSeconds.
type mockupRender struct{}

// MockupField is the output field of the n-th mockup of a batch (from 0):
// outputUrl, then outputUrl2, outputUrl3, ...
func MockupField(n int) string {
	if n == 0 {
		return "outputUrl"
	}
	return "outputUrl" + strconv.Itoa(n+1)
}

// MockupPlan is what a mockup.render job draws, read from its inputs and
// params; the submit check and the executor read it alike.
type MockupPlan struct {
	// SmartObject receives each design of Designs, one mockup each; ""
	// means the template's only smart object.
	SmartObject string
	// Designs are refs, in output order: the design input ("input:design")
	// first, then params.designs.
	Designs []string
	// Fixed are more smart objects filled on every mockup, path -> ref.
	Fixed map[string]string
}

// DesignInput is how a plan names the job's design input among refs.
const DesignInput = "input:design"

// PlanMockup reads a job's plan; hasDesign says whether inputs.design is set.
func PlanMockup(params map[string]any, hasDesign bool) (MockupPlan, error) {
	p := MockupPlan{SmartObject: str(params, "smartObject", ""), Fixed: map[string]string{}}
	if hasDesign {
		p.Designs = append(p.Designs, DesignInput)
	}
	if ds, ok := params["designs"].([]any); ok {
		for _, d := range ds {
			if s, ok := d.(string); ok {
				p.Designs = append(p.Designs, s)
			}
		}
	}
	if m, ok := params["smartObjects"].(map[string]any); ok {
		for k, v := range m {
			if s, ok := v.(string); ok {
				p.Fixed[k] = s
			}
		}
	}
	if len(p.Designs) == 0 && len(p.Fixed) == 0 {
		return p, errors.New("inputs.design: is required (or params.designs, or params.smartObjects)")
	}
	if len(p.Designs)+len(p.Fixed) > 50 {
		return p, errors.New("params.designs: at most 50 designs and smart objects in one job")
	}
	if _, ok := p.Fixed[p.SmartObject]; ok && p.SmartObject != "" && len(p.Designs) > 0 {
		return p, fmt.Errorf("params.smartObjects: %q is also smartObject, which the design fills", p.SmartObject)
	}
	return p, nil
}

// Check resolves the default smart object and checks every path of the
// plan and params against a template's manifest.
func (p *MockupPlan) Check(m *mockup.Manifest, params map[string]any) error {
	if len(p.Designs) > 0 && p.SmartObject == "" {
		so, err := mockup.DefaultSmartObject(m)
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
	if c, ok := params["colors"].(map[string]any); ok {
		for k := range c {
			colors = append(colors, k)
		}
	}
	sort.Strings(colors)
	return mockup.Check(m, sos, stringList(params["hide"]), stringList(params["show"]), colors)
}

func stringList(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

//nolint:gochecknoglobals // read-only table: each mockup format's extension and type
var mockupFormats = map[string]struct{ ext, contentType string }{
	"png":  {".png", "image/png"},
	"jpg":  {".jpg", "image/jpeg"},
	"jpeg": {".jpg", "image/jpeg"},
	"webp": {".webp", "image/webp"},
}

func (mockupRender) Run(ctx context.Context, t Task) (Result, error) {
	// This goroutine reads the template and the fixed designs; each
	// drawing of the batch is measured on its own goroutine.
	defer meter.Thread(ctx)()
	// Drawing mockups in kino's process may grow the heap by gigabytes;
	// it goes back to the system when the job ends, not minutes later.
	defer memory.Release()
	_, hasDesign := t.Inputs["design"]
	plan, err := PlanMockup(t.Params, hasDesign)
	if err != nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "%v", err)
	}
	maxPixels := ffmpeg.CurrentLimits().MaxPixels
	tpl, release, err := templates.Load(t.Inputs["template"].Path, maxPixels)
	if err != nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "inputs.template: %v", err)
	}
	defer release()
	if err := plan.Check(&tpl.Manifest, t.Params); err != nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "params.%v", err)
	}

	refs := designRefs(plan, hasDesign)
	// Every design is fetched first (a ref may repeat); the fixed ones are
	// decoded once, each design of the batch only when its mockup is
	// drawn, so a batch holds as many decoded designs as it draws at once.
	paths, err := fetchDesigns(ctx, t, refs, hasDesign)
	if err != nil {
		return Result{}, err
	}
	decode := func(ref string) (image.Image, error) {
		img, err := mockup.DecodeDesign(paths[ref], maxPixels)
		if err != nil {
			return nil, permanent(jobs.CodeInputInvalid, "%s: %v", refs[ref], err)
		}
		return img, nil
	}
	fixed := map[string]image.Image{}
	for k, ref := range plan.Fixed {
		img, err := decode(ref)
		if err != nil {
			return Result{}, err
		}
		fixed[k] = img
	}

	colors := mockupColors(t.Params)
	format := str(t.Params, "format", "png")
	f := mockupFormats[format]
	quality := int(num(t.Params, "quality", 90))
	width := int(num(t.Params, "width", 0))
	count := max(1, len(plan.Designs))

	res := Result{Files: map[string]Output{}, Values: map[string]any{}}
	outs := make([]Output, count)
	warnings := make([][]string, count)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(tpl.Cost.Drawings(runtime.NumCPU(), designBytes(fixed, paths, plan.Designs)))
	for i := range count {
		g.Go(rescue.Func(func() error {
			defer meter.Thread(gctx)()
			if gctx.Err() != nil {
				return gctx.Err()
			}
			opts := mockup.Options{Designs: map[string]image.Image{}, Fit: str(t.Params, "fit", mockup.Cover),
				Hide: stringList(t.Params["hide"]), Show: stringList(t.Params["show"]), Colors: colors}
			for k, img := range fixed {
				opts.Designs[k] = img
			}
			if len(plan.Designs) > 0 {
				d, err := decode(plan.Designs[i])
				if err != nil {
					return err
				}
				opts.Designs[plan.SmartObject] = d
			}
			img, warn, err := render(gctx, tpl, opts)
			if gctx.Err() != nil {
				return gctx.Err()
			}
			if err != nil {
				var pe *mockup.PathError
				if errors.As(err, &pe) {
					return permanent(jobs.CodeInputInvalid, "params.%v", err)
				}
				return permanent(jobs.CodeInputInvalid, "inputs.template: %v", err)
			}
			warnings[i] = warn
			img = mockup.Resize(img, width)
			out := filepath.Join(t.Dir, fmt.Sprintf("mockup-%d%s", i+1, f.ext))
			if err := encode(ctx, t, img, format, quality, out); err != nil {
				return err
			}
			outs[i] = Output{Path: out, ContentType: f.contentType, Ext: f.ext,
				Described: map[string]any{"width": img.Bounds().Dx(), "height": img.Bounds().Dy()}}
			if t.OnProgress != nil && count > 1 {
				t.OnProgress(float64(i+1) * 100 / float64(count))
			}
			return nil
		}))
	}
	err = g.Wait()
	// A drawing that panicked fails the job as the job's own panic would.
	rescue.Raise(err)
	if err != nil {
		return Result{}, err
	}
	mockupValues(res, plan, outs, warnings)
	return res, nil
}

// designRefs maps each design the plan names (a ref may repeat) to the
// field its error messages name.
func designRefs(plan MockupPlan, hasDesign bool) map[string]string {
	refs := map[string]string{}
	for i, d := range plan.Designs {
		if _, ok := refs[d]; !ok {
			refs[d] = fmt.Sprintf("params.designs[%d]", i-btoi(hasDesign))
		}
	}
	refs[DesignInput] = "inputs.design"
	for k, d := range plan.Fixed {
		if _, ok := refs[d]; !ok {
			refs[d] = fmt.Sprintf("params.smartObjects[%q]", k)
		}
	}
	return refs
}

// fetchDesigns downloads every design but the job's own input into the
// job's folder, four at once, and returns each ref's file.
func fetchDesigns(ctx context.Context, t Task, refs map[string]string, hasDesign bool) (map[string]string, error) {
	paths := map[string]string{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	n := 0
	for ref, field := range refs {
		if ref == DesignInput {
			if hasDesign {
				// The downloads already started write paths too.
				mu.Lock()
				paths[ref] = t.Inputs["design"].Path
				mu.Unlock()
			}
			continue
		}
		path := filepath.Join(t.Dir, fmt.Sprintf("design-%d", n))
		n++
		g.Go(rescue.Func(func() error {
			if err := t.Fetch(gctx, ref, path); err != nil {
				return permanent(jobs.CodeInputInvalid, "%s: %v", field, err)
			}
			mu.Lock()
			paths[ref] = path
			mu.Unlock()
			return nil
		}))
	}
	err := g.Wait()
	rescue.Raise(err)
	return paths, err
}

// mockupColors reads params.colors, fill layers' new colours (#rrggbb,
// checked against the catalogue's pattern before the job was queued), or
// nil.
func mockupColors(params map[string]any) map[string]color.NRGBA {
	c, ok := params["colors"].(map[string]any)
	if !ok {
		return nil
	}
	colors := map[string]color.NRGBA{}
	for k, v := range c {
		s, _ := v.(string)
		r, _ := strconv.ParseUint(s[1:3], 16, 8)
		g, _ := strconv.ParseUint(s[3:5], 16, 8)
		b, _ := strconv.ParseUint(s[5:7], 16, 8)
		colors[k] = color.NRGBA{uint8(r), uint8(g), uint8(b), 255}
	}
	return colors
}

// mockupValues puts each mockup's file in res, and in its values the list
// of mockups (with the design of each, for a batch) and the warnings of
// the first.
func mockupValues(res Result, plan MockupPlan, outs []Output, warnings [][]string) {
	var list []any
	for i, o := range outs {
		res.Files[MockupField(i)] = o
		entry := map[string]any{"output": MockupField(i)}
		if len(plan.Designs) > 0 {
			d := plan.Designs[i]
			if d == DesignInput {
				d = "inputs.design"
			}
			entry["design"] = d
		}
		list = append(list, entry)
	}
	res.Values["mockups"] = list
	if len(warnings[0]) > 0 {
		res.Values["warnings"] = warnings[0]
	}
}

// render draws one mockup; a panic in the reader or the compositor (a file
// they did not foresee) fails this job, not the worker.
func render(ctx context.Context, tpl *mockup.Template, opts mockup.Options) (img *image.NRGBA, warn []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kino could not draw the template: %v", r)
		}
	}()
	return tpl.RenderContext(ctx, opts)
}

// designBytes is what the designs one drawing holds cost: the fixed ones
// and the largest of the batch's, read from their headers.
func designBytes(fixed map[string]image.Image, paths map[string]string, batch []string) int64 {
	var n, most int64
	for _, img := range fixed {
		b := img.Bounds()
		n += mockup.DesignBytes(b.Dx(), b.Dy())
	}
	for _, ref := range batch {
		if w, h, ok := mockup.DesignSize(paths[ref]); ok {
			most = max(most, mockup.DesignBytes(w, h))
		}
	}
	return n + most
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// encode writes a mockup: PNG at zlib's fastest level on every core, JPEG
// by Go, WebP by ffmpeg's libwebp from a fast PNG, at libwebp's second
// fastest method (its default took 9 s for 3000x3000 on a loaded machine).
func encode(ctx context.Context, t Task, img *image.NRGBA, format string, quality int, out string) error {
	write := func(path string, fn func(*bufio.Writer) error) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<16)
		if err := fn(w); err != nil {
			f.Close()
			return err
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	switch format {
	case "jpg", "jpeg":
		return write(out, func(w *bufio.Writer) error { return mockup.EncodeJPEG(w, img, quality) })
	case "webp":
		tmp := out + ".png"
		if err := write(tmp, func(w *bufio.Writer) error { return mockup.EncodePNGContext(ctx, w, img) }); err != nil {
			return err
		}
		defer os.Remove(tmp)
		return run(ctx, t, 0, []string{"-f", "png_pipe", "-i", "file:" + tmp, "-c:v", "libwebp", "-quality", strconv.Itoa(quality), "-compression_level", "1", "-frames:v", "1", "file:" + out})
	}
	return write(out, func(w *bufio.Writer) error { return mockup.EncodePNGContext(ctx, w, img) })
}
