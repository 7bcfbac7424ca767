package executor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/mockup"
	"github.com/kinohq/kino/server/rescue"
)

// mockupRender places designs into the smart objects of a PSD template.
// The template is decoded once per job (or kept from an earlier job); the
// mockups of a batch are drawn and encoded as many at once as the
// template's memory budget holds (mockup.Cost.Drawings), at most one a
// core. Every drawing is kino's own CPU time, metered into the job's
// cpuSeconds.
type mockupRender struct{ *env }

//nolint:gochecknoglobals // read-only table: each mockup format's extension and type
var mockupFormats = map[string]struct{ ext, contentType string }{
	"png":  {".png", "image/png"},
	"jpg":  {".jpg", "image/jpeg"},
	"jpeg": {".jpg", "image/jpeg"},
	"webp": {".webp", "image/webp"},
}

func (e mockupRender) Work(ctx context.Context, t Task[catalog.MockupRender]) (Result, error) {
	// This goroutine reads the template and the fixed designs; each
	// drawing of the batch is measured on its own goroutine.
	defer meter.Thread(ctx)()
	// Drawing mockups in kino's process may grow the heap by gigabytes;
	// it goes back to the system when the job ends, not minutes later.
	defer e.Memory.Release()
	_, hasDesign := t.Inputs["design"]
	plan, problem := mockup.NewPlan(t.Params, hasDesign)
	if problem != nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "%s", problem)
	}
	tpl, release, err := e.templates.Load(t.Inputs["template"].Path, e.MaxPixels)
	if err != nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "inputs.template: %v", err)
	}
	defer release()
	if err := plan.Check(&tpl.Manifest); err != nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "params.%v", err)
	}

	refs := designRefs(plan, hasDesign)
	// Every design was downloaded with the inputs (Files; a ref may
	// repeat); the fixed ones are decoded once, each design of the batch
	// only when its mockup is drawn, so a batch holds as many decoded
	// designs as it draws at once.
	paths := designPaths(t.Attempt, refs, hasDesign)
	decode := func(ref string) (image.Image, error) {
		img, err := mockup.DecodeDesign(paths[ref], e.MaxPixels)
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

	colors := plan.Colors()
	format := t.Params.Format
	f := mockupFormats[format]
	quality, width := t.Params.Quality, t.Params.Width
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
			opts := mockup.Options{Designs: map[string]image.Image{}, Fit: t.Params.Fit,
				Hide: t.Params.Hide, Show: t.Params.Show, Colors: colors}
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
			if err := e.encode(ctx, t.Attempt, img, format, quality, out); err != nil {
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
func designRefs(plan mockup.Plan, hasDesign bool) map[string]string {
	refs := map[string]string{}
	for i, d := range plan.Designs {
		if _, ok := refs[d]; !ok {
			refs[d] = fmt.Sprintf("params.designs[%d]", i-btoi(hasDesign))
		}
	}
	refs[mockup.DesignInput] = "inputs.design"
	for k, d := range plan.Fixed {
		if _, ok := refs[d]; !ok {
			refs[d] = fmt.Sprintf("params.smartObjects[%q]", k)
		}
	}
	return refs
}

// Files are the designs the params name, but the job's own input: the
// runner downloads them with the inputs. Params that make no plan name
// none; Work says why.
func (e mockupRender) Files(p catalog.MockupRender, inputs map[string]bool) []File {
	plan, problem := mockup.NewPlan(p, inputs["design"])
	if problem != nil {
		return nil
	}
	var files []File
	for ref, field := range designRefs(plan, inputs["design"]) {
		if ref != mockup.DesignInput {
			files = append(files, File{Field: field, Ref: ref})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Field < files[j].Field })
	return files
}

// designPaths is the downloaded file of each design ref.
func designPaths(t Attempt, refs map[string]string, hasDesign bool) map[string]string {
	paths := map[string]string{}
	for ref := range refs {
		switch {
		case ref != mockup.DesignInput:
			paths[ref] = t.Files[ref]
		case hasDesign:
			paths[ref] = t.Inputs["design"].Path
		}
	}
	return paths
}

// mockupValues puts each mockup's file in res, and in its values the list
// of mockups (with the design of each, for a batch) and the warnings of
// the first.
func mockupValues(res Result, plan mockup.Plan, outs []Output, warnings [][]string) {
	var list []any
	for i, o := range outs {
		res.Files[mockup.OutputField(i)] = o
		entry := map[string]any{"output": mockup.OutputField(i)}
		if len(plan.Designs) > 0 {
			d := plan.Designs[i]
			if d == mockup.DesignInput {
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
func (e *env) encode(ctx context.Context, a Attempt, img *image.NRGBA, format string, quality int, out string) error {
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
		return e.run(ctx, a, 0, []string{"-f", "png_pipe", "-i", "file:" + tmp, "-c:v", "libwebp", "-quality", strconv.Itoa(quality), "-compression_level", "1", "-frames:v", "1", "file:" + out})
	}
	return write(out, func(w *bufio.Writer) error { return mockup.EncodePNGContext(ctx, w, img) })
}
