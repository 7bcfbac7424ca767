package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// point is a place on the page, in CSS pixels.
type point struct{ X, Y float64 }

// at is the page position of a fraction of an element's box.
func at(t *testing.T, ctx context.Context, selector string, fx, fy float64) point {
	t.Helper()
	js, _ := json.Marshal(selector)
	return eval[point](t, ctx, `(() => { const r = document.querySelector(`+string(js)+`).getBoundingClientRect();
		return { X: r.left + r.width * `+jsNum(fx)+`, Y: r.top + r.height * `+jsNum(fy)+` } })()`)
}

func jsNum(f float64) string { b, _ := json.Marshal(f); return string(b) }

// drag presses the mouse at from, moves it to to in steps, and lets go:
// real input events, as a person's drag makes them.
func drag(t *testing.T, ctx context.Context, from, to point, steps int) {
	t.Helper()
	held := func(p *input.DispatchMouseEventParams) { p.Button, p.Buttons = input.MouseButtonLeft, 1 }
	actions := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MouseMoved, from.X, from.Y),
		chromedp.MouseEvent(chromedp.MousePressed, from.X, from.Y, held, chromedp.ClickCount(1))}
	for i := 1; i <= steps; i++ {
		x := from.X + (to.X-from.X)*float64(i)/float64(steps)
		y := from.Y + (to.Y-from.Y)*float64(i)/float64(steps)
		actions = append(actions, chromedp.MouseEvent(chromedp.MouseMoved, x, y, held))
	}
	actions = append(actions, chromedp.MouseEvent(chromedp.MouseReleased, to.X, to.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	require.NoError(t, chromedp.Do(ctx, actions...))
}

// TestConsoleStudio: the render editor's timeline, preview and form. The
// playhead dragged over the timeline shows the engine's frame of its time
// (never more than one preview asked at once); a bar dragged moves its
// layer's start in the JSON and the form, its end trims the duration; a
// mockup layer's bar and form name its template, smart object and source;
// an error shows beside the Render button; a finished render opens again in
// the editor; a stored template renders from a form of its values.
func TestConsoleStudio(t *testing.T) {
	t.Parallel()
	ctx := openBrowser(t, 3*time.Minute)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {})

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(k.base+"/#/render")))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#request"))))
	// Red for the first second, blue for the second, a text over both.
	request := map[string]any{"provider": "provider_a", "composition": map[string]any{
		"width": 320, "height": 180, "fps": 10, "duration": 2, "background": "#000000",
		"layers": []any{
			map[string]any{"type": "color", "color": "#ff0000", "duration": 1},
			map[string]any{"type": "color", "color": "#0000ff", "start": 1, "duration": 1},
			map[string]any{"type": "text", "text": "kino", "fontSize": 24, "color": "white", "x": 10, "y": 10, "duration": 0.5},
		}}}
	setEditor(t, ctx, request)
	waitJS(t, ctx, "the timeline draws a bar a layer", `document.querySelectorAll("#timeline .clip").length === 3`, 10*time.Second)

	// Scrubbing: the preview follows the playhead, one request at a time.
	drag(t, ctx, at(t, ctx, "#timeline .scale", 0.05, 0.5), at(t, ctx, "#timeline .scale", 0.76, 0.5), 12)
	waitJS(t, ctx, "the playhead stops at 1.5 s", `document.querySelector("#timeline").dataset.time === "1.5"`, 5*time.Second)
	waitJS(t, ctx, "the preview shows the frame at 1.5 s", `document.querySelector("#preview").dataset.time === "1.5" && document.querySelector("#preview").complete`, 20*time.Second)
	blue := eval[bool](t, ctx, `(() => { const img = document.querySelector("#preview");
		const c = document.createElement("canvas"); c.width = img.naturalWidth; c.height = img.naturalHeight;
		const g = c.getContext("2d"); g.drawImage(img, 0, 0); const p = g.getImageData(c.width / 2, c.height / 2, 1, 1).data;
		return p[2] > 180 && p[0] < 70 })()`)
	require.True(t, blue, "the frame at 1.5 s is the blue layer's")
	require.Equal(t, "1", eval[string](t, ctx, `document.querySelector(".preview").dataset.maxInflight`), "never more than one preview asked at once")
	t.Logf("previews asked while the playhead was dragged over 12 moves: %s", eval[string](t, ctx, `document.querySelector(".preview").dataset.requests`))

	// Dragging the blue layer's bar by a quarter of the timeline moves its start by 0.5 s.
	bar := `#timeline .clip[data-path="composition.layers[1]"]`
	drag(t, ctx, at(t, ctx, bar, 0.3, 0.5), point{at(t, ctx, bar, 0.3, 0.5).X - at(t, ctx, "#timeline .scale", 0.25, 0).X + at(t, ctx, "#timeline .scale", 0, 0).X, at(t, ctx, bar, 0.3, 0.5).Y}, 8)
	waitJS(t, ctx, "the JSON has the layer's new start", `JSON.parse(document.querySelector("#request").value).composition.layers[1].start === 0.5`, 5*time.Second)
	require.Equal(t, "0.5", eval[string](t, ctx, `document.querySelector("#props input[name=start]").value`), "the form shows the new start")
	require.Equal(t, "composition.layers[1]", eval[string](t, ctx, `document.querySelector("#timeline .clip.on").dataset.path`), "the dragged bar is selected")
	// Its end trims its duration.
	drag(t, ctx, at(t, ctx, bar+" .trim", 0.5, 0.5), point{at(t, ctx, bar+" .trim", 0.5, 0.5).X - (at(t, ctx, "#timeline .scale", 0.25, 0).X - at(t, ctx, "#timeline .scale", 0, 0).X), at(t, ctx, bar+" .trim", 0.5, 0.5).Y}, 8)
	waitJS(t, ctx, "the JSON has the layer's new duration", `JSON.parse(document.querySelector("#request").value).composition.layers[1].duration === 0.5`, 5*time.Second)
	require.Equal(t, "0.5", eval[string](t, ctx, `document.querySelector("#props input[name=duration]").value`))
	// The form writes back into the JSON and the timeline.
	eval[bool](t, ctx, `(() => { const i = document.querySelector("#props input[name=start]"); i.value = "0.25"; i.dispatchEvent(new Event("input")); return true })()`)
	waitJS(t, ctx, "the form's start reaches the JSON", `JSON.parse(document.querySelector("#request").value).composition.layers[1].start === 0.25`, 5*time.Second)
	// The cursor in another layer of the JSON selects it.
	eval[bool](t, ctx, `(() => { const a = document.querySelector("#request"); a.focus(); const at = a.value.indexOf('"kino"'); a.setSelectionRange(at, at); a.dispatchEvent(new Event("click")); return true })()`)
	waitJS(t, ctx, "the text layer is selected", `document.querySelector("#timeline .clip.on")?.dataset.path === "composition.layers[2]" && document.querySelector("#props textarea[name=text]")?.value === "kino"`, 5*time.Second)

	// An example of the guide: the playhead inside a transition, a card selected.
	eval[bool](t, ctx, `(() => { const s = document.querySelector("#example");
		for (const o of s.options) { s.value = o.value; s.dispatchEvent(new Event("change")); if (document.querySelector("#request").value.includes("Three cards")) return true }
		return false })()`)
	waitJS(t, ctx, "the example's timeline", `document.querySelectorAll("#timeline .clip").length === 4 && document.querySelectorAll("#timeline .transition").length === 2`, 5*time.Second)
	drag(t, ctx, at(t, ctx, "#timeline .scale", 0.01, 0.5), at(t, ctx, "#timeline .scale", 0.35, 0.5), 4)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#timeline .clip[data-path="composition.layers[1]"] span`))))
	waitJS(t, ctx, "the preview of the transition", `document.querySelector("#timeline").dataset.time > 1.5 && document.querySelector("#preview").dataset.time === document.querySelector("#timeline").dataset.time && document.querySelector(".preview").dataset.loading === "" && document.querySelector("#props input[name=start]").value === "1.5"`, 20*time.Second)
	shot(t, ctx, "studio")
	// The arrow keys step the playhead a frame (1/25 s here), and the preview follows.
	before := eval[float64](t, ctx, `Number(document.querySelector("#timeline").dataset.time)`)
	eval[bool](t, ctx, `(() => { const tl = document.querySelector("#timeline"); tl.focus(); tl.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true })); return true })()`)
	waitJS(t, ctx, "a frame later", `Math.abs(Number(document.querySelector("#timeline").dataset.time) - `+jsNum(before+0.04)+`) < 1e-9 && document.querySelector("#preview").dataset.time === document.querySelector("#timeline").dataset.time`, 20*time.Second)
	// A unified composition: a row a track, its clips' length in the form.
	eval[bool](t, ctx, `(() => { const s = document.querySelector("#example"); s.value = [...s.options].find(o => o.textContent.startsWith("Outputs: A GIF")).value; s.dispatchEvent(new Event("change")); return true })()`)
	waitJS(t, ctx, "a row a track", `document.querySelectorAll("#timeline .row").length === 2 && !!document.querySelector('#timeline .clip[data-path="composition.tracks[1].clips[0]"]')`, 5*time.Second)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#timeline .clip[data-path="composition.tracks[0].clips[0]"] span`))))
	waitJS(t, ctx, "the clip's form", `document.querySelector('label[for="prop-duration"]')?.textContent === "length" && document.querySelector("#props input[name=duration]").value === "1.75" && document.querySelector("#props input[name=x]").value === "center"`, 5*time.Second)
	// A mockup example: its bar named by the smart object it fills, its
	// template, smart object and source in the form, its preview drawn
	// from the demo template.
	asked := eval[string](t, ctx, `document.querySelector(".preview").dataset.requests`)
	eval[bool](t, ctx, `(() => { const s = document.querySelector("#example"); s.value = [...s.options].find(o => o.textContent.startsWith("Mockups: A video on a screen")).value; s.dispatchEvent(new Event("change")); return true })()`)
	screen := `#timeline .clip[data-path="composition.layers[0]"]`
	waitJS(t, ctx, "the mockup's bar", `document.querySelector('`+screen+` span')?.textContent === "mockup · Screen ← talk.mp4"`, 5*time.Second)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(screen+" span"))))
	waitJS(t, ctx, "the mockup's form", `document.querySelector("#props input[name=smartObject]")?.value === "Screen" &&
		document.querySelector("#props input[name=template]").value.endsWith("/demo/screen.psd") && document.querySelector("#props input[name=src]").value.endsWith("/demo/talk.mp4")`, 5*time.Second)
	waitJS(t, ctx, "the mockup's preview", `Number(document.querySelector(".preview").dataset.requests) > `+asked+` && document.querySelector(".preview").dataset.loading === "" && !document.querySelector(".preview").classList.contains("failed")`, 30*time.Second)
	// Emptied, the smart object leaves the JSON (the template's only one applies).
	eval[bool](t, ctx, `(() => { const i = document.querySelector("#props input[name=smartObject]"); i.value = ""; i.dispatchEvent(new Event("input")); return true })()`)
	waitJS(t, ctx, "the JSON without the smart object", `!("smartObject" in JSON.parse(document.querySelector("#request").value).composition.layers[0]) &&
		document.querySelector('`+screen+` span').textContent === "mockup · screen.psd ← talk.mp4"`, 5*time.Second)

	// An error shows beside the Render button, and the result says so.
	bad := map[string]any{"provider": "provider_a", "composition": map[string]any{"width": 160, "height": 96, "fps": 10, "duration": 1,
		"layers": []any{map[string]any{"type": "text", "text": "x", "colour": "red"}}}}
	setEditor(t, ctx, bad)
	// The preview is refused as the request is typed: its error over the
	// picture, its line marked, before Render is pressed.
	waitJS(t, ctx, "the preview's error at its line", `document.querySelector(".preview-error .path")?.textContent === "composition.layers[0].colour" &&
		document.querySelector(".gutter b")?.textContent.trim() === String(document.querySelector("#request").value.split("\n").findIndex(l => l.includes('"colour"')) + 1)`, 20*time.Second)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#submit"))))
	waitJS(t, ctx, "the error shows", `document.querySelector("#problems .path")?.textContent === "composition.layers[0].colour"`, 10*time.Second)
	gap := eval[float64](t, ctx, `document.querySelector("#problems .error").getBoundingClientRect().top - document.querySelector("#submit").getBoundingClientRect().bottom`)
	require.True(t, gap >= 0 && gap < 40, "the error is right under the Render button (%v px)", gap)
	require.Contains(t, eval[string](t, ctx, `document.querySelector("#result").innerText`), "Not rendered")

	// A render opens again in the editor from its page.
	setEditor(t, ctx, request)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#submit"))))
	waitJS(t, ctx, "the render completes", `document.querySelector("#result .badge")?.dataset.status === "completed"`, 60*time.Second)
	id := eval[string](t, ctx, `document.querySelector("#jobid").textContent`)
	setEditor(t, ctx, bad)
	visit(t, ctx, "#/jobs/render/"+id)
	waitJS(t, ctx, "the render's page offers the editor", `!!document.querySelector("#openeditor")`, 10*time.Second)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#openeditor"))))
	waitJS(t, ctx, "the editor holds the render's request", `location.hash === "#/render" && (() => { try { const r = JSON.parse(document.querySelector("#request").value);
		return r.composition.layers.length === 3 && r.composition.layers[1].start === 1 && r.composition.layers[2].text === "kino" } catch { return false } })()`, 10*time.Second)

	// A stored template renders from the form of its values.
	r := k.do(t, http.MethodPost, "/api/templates", map[string]any{"name": "Greeting", "provider": "unified", "composition": map[string]any{
		"output": map[string]any{"width": 160, "height": 96, "fps": 10, "duration": 1, "background": "#336699"},
		"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": "{{GREETING}}, {{NAME}}", "fontSize": 18}, "start": 0, "length": 1}}}}}})
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	tpl := r.json(t)["id"].(string)
	visit(t, ctx, "#/templates")
	waitJS(t, ctx, "the template is listed", `!!document.querySelector('tr[data-id="`+tpl+`"]')`, 10*time.Second)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`tr[data-id="`+tpl+`"]`))))
	waitJS(t, ctx, "the form asks for each value", `!!document.querySelector('#merge input[name="NAME"]') && !!document.querySelector('#merge input[name="GREETING"]')`, 10*time.Second)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#merge input[name="NAME"]`), "Ada"),
		chromedp.SetValue(chromedp.CSS(`#merge input[name="GREETING"]`), "Hello"),
		chromedp.Click(chromedp.CSS("#rendertemplate"))))
	waitJS(t, ctx, "the template's render completes", `document.querySelector("#result .badge")?.dataset.status === "completed" && document.querySelector("#result video")?.readyState >= 2`, 60*time.Second)
	shot(t, ctx, "templates")
	tid := eval[string](t, ctx, `document.querySelector("#jobid").textContent`)
	sub := k.do(t, http.MethodGet, "/api/render/"+tid+"/request", nil)
	require.Contains(t, string(sub.body), "Hello, Ada", "the render's request is the template with the form's values")
}
