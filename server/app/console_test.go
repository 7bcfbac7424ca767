package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store/storetest"
)

// The web console is tested in a real headless browser: Debian's chromium,
// driven over the DevTools protocol. Without a browser the test skips,
// unless KINO_REQUIRE_BROWSER=1 (CI) makes that a failure. With
// KINO_WRITE_CONSOLE_SHOTS=1 it saves its screenshots as docs/img/console-*.png:
//
//	KINO_WRITE_CONSOLE_SHOTS=1 go test ./server/app -run TestConsole -count=1

func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("KINO_REQUIRE_BROWSER") == "1" {
		t.Fatal("KINO_REQUIRE_BROWSER=1 but no chromium on PATH: apt-get install -y chromium")
	}
	t.Skip("no chromium on PATH: the console's browser tests need it (apt-get install -y chromium)")
	return ""
}

// page opens one browser tab for the test, bounded in time.
func openBrowser(t *testing.T, within time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.WindowSize(1360, 860),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	ctx, cancel := context.WithTimeout(context.Background(), within)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	require.NoError(t, chromedp.Do(tab, chromedp.EmulateViewport(1360, 860)))
	return tab
}

// shot saves the visible page as docs/img/console-NAME.png when asked to.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if os.Getenv("KINO_WRITE_CONSOLE_SHOTS") == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join("..", "..", "docs", "img", "console-"+name+".png"), png, 0o644))
}

// waitJS polls a JavaScript condition until it holds, failing with what
// the page shows when it does not.
func waitJS(t *testing.T, ctx context.Context, what, cond string, within time.Duration) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(within)))
	if err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main").innerText`))
		t.Fatalf("%s: %v\nthe page shows:\n%s", what, err, text)
	}
}

// visit shows a page of the console: a change of the URL's fragment, so
// the page is not loaded again (and Navigate would wait for a load event
// that never comes).
func visit(t *testing.T, ctx context.Context, hash string) {
	t.Helper()
	js, _ := json.Marshal(hash)
	eval[bool](t, ctx, fmt.Sprintf(`(() => { location.hash = %s; return true })()`, js))
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "evaluate %s", js)
	return v
}

// setEditor replaces the render editor's text as a person typing would.
func setEditor(t *testing.T, ctx context.Context, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	js, _ := json.Marshal(string(b))
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const a = document.querySelector("#request"); a.value = %s; a.dispatchEvent(new Event("input")); return true })()`, js))
}

func TestConsole(t *testing.T) {
	t.Parallel()
	ctx := openBrowser(t, 3*time.Minute)
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), nil)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(k.base+"/#/render")))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#request"))))
	waitJS(t, ctx, "the examples of the composition guide are offered", `document.querySelectorAll("#example option").length >= 3 && document.querySelector("#request").value.includes("composition")`, 10*time.Second)

	// A bad field is shown at its JSON path, on its line.
	request := map[string]any{"provider": "provider_a", "composition": map[string]any{
		"width": 160, "height": 96, "fps": 10, "duration": 1.5, "background": "#1e293b",
		"layers": []any{
			map[string]any{"type": "color", "color": "#6366f1", "x": 10, "y": 10, "width": 60, "height": 40, "fadeIn": 0.5},
			map[string]any{"type": "text", "text": "kino", "fontSize": 24, "color": "white", "x": "center", "y": "center"},
		}}}
	bad := map[string]any{"provider": "provider_a", "composition": map[string]any{"width": 160, "height": 96, "fps": 10, "duration": 1.5,
		"layers": []any{map[string]any{"type": "text", "text": "x", "colour": "red"}}}}
	setEditor(t, ctx, bad)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#submit"))))
	waitJS(t, ctx, "the validation error at its path", `document.querySelector("#problems .path")?.textContent === "composition.layers[0].colour"`, 10*time.Second)
	marked := eval[string](t, ctx, `document.querySelector(".gutter b")?.textContent.trim() || ""`)
	line := eval[int](t, ctx, `document.querySelector("#request").value.split("\n").findIndex(l => l.includes('"colour"')) + 1`)
	require.Equal(t, fmt.Sprint(line), marked, "the gutter marks the line of the bad field")
	shot(t, ctx, "error")

	// A good one renders: progress to 100, then the video plays to its end.
	setEditor(t, ctx, request)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#submit"))))
	waitJS(t, ctx, "the job is submitted", `!!document.querySelector("#jobid")`, 10*time.Second)
	waitJS(t, ctx, "progress reaches 100", `document.querySelector("#result .pct")?.textContent === "100%" && document.querySelector("#result .badge")?.dataset.status === "completed"`, 60*time.Second)
	waitJS(t, ctx, "the video loads", `document.querySelector("#result video")?.readyState >= 2`, 20*time.Second)
	eval[bool](t, ctx, `(() => { document.querySelector("#result").scrollIntoView({ block: "end" }); return true })()`)
	shot(t, ctx, "render")
	waitJS(t, ctx, "the video plays to its end", `(() => { const v = document.querySelector("#result video"); if (v.paused && !v.ended) v.play(); return v.ended && v.currentTime >= 1.4 })()`, 20*time.Second)
	renderID := eval[string](t, ctx, `document.querySelector("#jobid").textContent`)
	require.Equal(t, "completed", k.get(t, renderID)["status"])

	// A pipeline run: every node's status live in the graph until all complete.
	r := k.do(t, http.MethodPost, "/pipelines", map[string]any{"name": "two sizes", "description": "a picture resized, then resized again two ways",
		"nodes": []any{
			map[string]any{"id": "small", "jobType": "image.resize", "params": map[string]any{"width": 32}},
			map[string]any{"id": "smaller", "jobType": "image.resize", "params": map[string]any{"width": 16}},
			map[string]any{"id": "jpeg", "jobType": "image.resize", "params": map[string]any{"width": 24, "format": "jpeg"}}},
		"edges": []any{
			map[string]any{"from": "small", "to": "smaller", "outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}},
			map[string]any{"from": "small", "to": "jpeg", "outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}}}})
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	pid := r.json(t)["data"].(map[string]any)["id"].(string)
	visit(t, ctx, "#/pipelines/"+pid)
	waitJS(t, ctx, "the run form asks for the input", `!!document.querySelector('input[name="small.source"]')`, 10*time.Second)
	waitJS(t, ctx, "the graph is drawn", `document.querySelectorAll(".graph g.node").length === 3 && document.querySelectorAll(".graph path.edge").length === 2`, 10*time.Second)
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`input[name="small.source"]`), media.URL+"/image.png"), chromedp.Click(chromedp.CSS("#startrun"))))
	waitJS(t, ctx, "the run is listed", `document.querySelectorAll("table.runs tr[data-run]").length === 1`, 10*time.Second)
	waitJS(t, ctx, "every node completes", `[...document.querySelectorAll(".graph g.node")].every(g => g.dataset.status === "complete") && document.querySelector("table.runs tr[data-run]").dataset.status === "complete"`, 60*time.Second)
	shot(t, ctx, "pipeline")

	// The jobs list holds both kinds; a media job's page has its timings, its log and its output.
	visit(t, ctx, "#/jobs")
	waitJS(t, ctx, "the list shows the render and the run's media jobs", `document.querySelectorAll("table.jobs tr.row").length === 4 && !!document.querySelector('tr[data-id="`+renderID+`"]')`, 10*time.Second)
	shot(t, ctx, "jobs")
	visit(t, ctx, "#/jobs?kind=media&status=completed")
	waitJS(t, ctx, "filters by kind and status", `document.querySelectorAll("table.jobs tr.row").length === 3 && [...document.querySelectorAll("table.jobs tr.row")].every(r => r.dataset.kind === "media")`, 10*time.Second)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("table.jobs tr.row"))))
	waitJS(t, ctx, "the job page shows the picture and the ffmpeg log", `document.querySelector(".player img")?.naturalWidth > 0 && document.querySelector("pre.log")?.textContent.length > 0`, 10*time.Second)
	shot(t, ctx, "job")

	// Assets: a picture dropped on the page is uploaded and its thumbnail shown.
	visit(t, ctx, "#/assets")
	waitJS(t, ctx, "the drop zone", `!!document.querySelector("#drop")`, 10*time.Second)
	eval[bool](t, ctx, `(async () => {
		const c = document.createElement("canvas"); c.width = 480; c.height = 270;
		const g = c.getContext("2d");
		const grad = g.createLinearGradient(0, 0, 480, 270); grad.addColorStop(0, "#4f46e5"); grad.addColorStop(1, "#06b6d4");
		g.fillStyle = grad; g.fillRect(0, 0, 480, 270);
		g.fillStyle = "#fff"; g.font = "bold 64px sans-serif"; g.fillText("kino", 150, 160);
		const blob = await new Promise(r => c.toBlob(r, "image/png"));
		const dt = new DataTransfer(); dt.items.add(new File([blob], "poster.png", { type: "image/png" }));
		document.querySelector("#drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
		return true })()`)
	waitJS(t, ctx, "the upload's thumbnail shows", `document.querySelector('.card[data-status="ready"] .thumb img')?.naturalWidth > 0`, 30*time.Second)
	shot(t, ctx, "assets")

	visit(t, ctx, "#/types")
	waitJS(t, ctx, "the catalogue lists the types", `document.querySelectorAll("details.type").length >= 8`, 10*time.Second)
	eval[bool](t, ctx, `(() => { document.querySelector('details[data-type="watermark.apply"]').open = true; return true })()`)
	waitJS(t, ctx, "a type shows its params schema", `document.querySelector('details[data-type="watermark.apply"] pre.json').textContent.includes("watermarks")`, 5*time.Second)
	shot(t, ctx, "types")
}

func TestConsoleAPIKeys(t *testing.T) {
	t.Parallel()
	ctx := openBrowser(t, 2*time.Minute)
	const mine, theirs = "console-key-of-acme-0001", "console-key-of-other-0002"
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.APIKeys = map[string]string{mine: "acme", theirs: "other"}
		c.Workers = 0 // nothing needs to run
	})
	theirJob := k.submit(t, map[string]any{"provider": "provider_a", "composition": map[string]any{"width": 64, "height": 64, "fps": 1, "duration": 1, "layers": []any{}}},
		"Authorization", "Bearer "+theirs)
	myJob := k.submit(t, map[string]any{"provider": "provider_a", "composition": map[string]any{"width": 64, "height": 64, "fps": 1, "duration": 1, "layers": []any{}}},
		"Authorization", "Bearer "+mine)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(k.base+"/")))
	waitJS(t, ctx, "the console asks for a key", `document.querySelector("#keydialog").open`, 10*time.Second)
	shot(t, ctx, "apikey")

	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#keyinput"), "not-a-key-at-all-xx"), chromedp.Click(chromedp.CSS(`#keyform button[type="submit"]`))))
	waitJS(t, ctx, "an unknown key is refused", `!document.querySelector("#keyerror").hidden && document.querySelector("#keydialog").open`, 10*time.Second)

	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#keyinput"), mine), chromedp.Click(chromedp.CSS(`#keyform button[type="submit"]`))))
	waitJS(t, ctx, "the key opens the console on the caller's jobs", `!document.querySelector("#keydialog").open && !!document.querySelector('tr[data-id="`+myJob+`"]')`, 10*time.Second)
	require.Equal(t, mine, eval[string](t, ctx, `sessionStorage.getItem("kino.apiKey")`), "the key is kept for the tab")
	require.False(t, strings.Contains(eval[string](t, ctx, `document.body.innerHTML`), theirJob), "another organisation's job is never shown")
	require.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll("table.jobs tr.row").length`))

	// A template's thumbnail shows from its signed URL: a bare /files/ URL
	// is refused with keys on, and a template has no content to fall back on.
	up := k.upload(t, mine, [][2]string{{"type", "psd_template"}, {"name", "Card"}}, "card.psd", minimalPSD(64, 48))
	require.Equal(t, http.StatusCreated, up.status, "%s", up.body)
	rec := up.json(t)["data"].(map[string]any)
	require.Equal(t, "ready", rec["status"], "%s", up.body)
	bare := k.do(t, http.MethodGet, storage.FilesPath+rec["thumbnailKey"].(string), nil)
	require.Equal(t, http.StatusForbidden, bare.status, "unsigned: %s", bare.body)
	visit(t, ctx, "#/assets")
	waitJS(t, ctx, "the template's thumbnail loads from its signed URL", `(() => {
		const img = document.querySelector('.card[data-id="`+rec["id"].(string)+`"] .thumb img');
		return !!img && img.complete && img.naturalWidth === 64 && img.src.includes("signature=") })()`, 10*time.Second)
	// The same file, signed: each read of the record signs anew, and the
	// expiry (in whole seconds) may have moved on between the two.
	shown := eval[string](t, ctx, `document.querySelector('.card[data-id="`+rec["id"].(string)+`"] .thumb img').src`)
	want, _, _ := strings.Cut(rec["thumbnailUrl"].(string), "?")
	got, query, _ := strings.Cut(shown, "?")
	require.Equal(t, want, got)
	require.Contains(t, query, "signature=")
}

// The console's files are served from the binary with a policy that runs
// only their own code; the API's paths and answers are unchanged around it.
func TestConsoleServed(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 0 })

	r := k.do(t, http.MethodGet, "/", nil)
	require.Equal(t, http.StatusOK, r.status)
	require.Contains(t, r.header.Get("Content-Type"), "text/html")
	require.Contains(t, r.header.Get("Content-Security-Policy"), "script-src 'self'")
	require.Contains(t, string(r.body), `src="/console/js/app.js"`)

	r = k.do(t, http.MethodGet, "/console/js/app.js", nil)
	require.Equal(t, http.StatusOK, r.status)
	require.Contains(t, r.header.Get("Content-Type"), "javascript")
	require.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"))

	r = k.do(t, http.MethodGet, "/console/examples.json", nil)
	require.Equal(t, http.StatusOK, r.status)
	var ex []map[string]any
	require.NoError(t, json.Unmarshal(r.body, &ex))
	require.NotEmpty(t, ex)

	for _, path := range []string{"/console/js/", "/console/nope.js", "/console/index.html", "/nope"} {
		r = k.do(t, http.MethodGet, path, nil)
		require.Equal(t, http.StatusNotFound, r.status, path)
		require.Equal(t, "NOT_FOUND", r.errorCode(t), path)
	}
	r = k.do(t, http.MethodPost, "/", "{}")
	require.Equal(t, http.StatusNotFound, r.status, "POST / is no route: %s", r.body)
	r = k.do(t, http.MethodGet, "/api/health", nil)
	require.Equal(t, http.StatusOK, r.status)
}

// TestConsoleTryAMockup: a template's card shows its category, layer tree
// and smart objects from the manifest; a design dropped on its "try a
// mockup" panel comes back as the mockup; a PSD kino refuses shows why.
func TestConsoleTryAMockup(t *testing.T) {
	t.Parallel()
	ctx := openBrowser(t, 2*time.Minute)
	k := start(t, storetest.SQLite(t), nil)
	up := k.upload(t, "", [][2]string{{"type", "psd_template"}, {"name", "Shirt"}, {"category", "apparel"}}, "shirt.psd", mockupTemplate(t, "mockup.psd"))
	require.Equal(t, http.StatusCreated, up.status, "%s", up.body)
	id := up.json(t)["data"].(map[string]any)["id"].(string)
	card := `.card[data-id="` + id + `"]`

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(k.base+"/#/assets")))
	waitJS(t, ctx, "the template's card shows what it holds", `(() => {
		const d = document.querySelector('`+card+` details.template');
		return !!d && d.querySelector("summary").textContent === "apparel · 8 layers · 2 smart objects"
			&& !!d.querySelector('ul.sos li[data-path="Front/Design"]') && d.querySelector("ul.layers").textContent.includes("Shading") })()`, 10*time.Second)
	eval[bool](t, ctx, `(() => { document.querySelector('`+card+` details.template').open = true; return true })()`)
	require.Equal(t, "Front/Design", eval[string](t, ctx, `document.querySelector('`+card+` select.so').value`))
	eval[bool](t, ctx, `(async () => {
		const c = document.createElement("canvas"); c.width = 400; c.height = 400;
		const g = c.getContext("2d"); g.fillStyle = "#dc2626"; g.fillRect(0, 0, 400, 400);
		g.fillStyle = "#fff"; g.font = "bold 90px sans-serif"; g.fillText("kino", 90, 230);
		const blob = await new Promise(r => c.toBlob(r, "image/png"));
		const dt = new DataTransfer(); dt.items.add(new File([blob], "design.png", { type: "image/png" }));
		document.querySelector('`+card+` .try .drop').dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
		return true })()`)
	waitJS(t, ctx, "the mockup shows", `(() => { const img = document.querySelector('`+card+` .mockup img');
		return !!img && img.complete && img.naturalWidth === 800 })()`, 60*time.Second)
	// The design's red is in the smart object's quad (centre at about 300,290 of 600, so 400,387 at 800).
	require.True(t, eval[bool](t, ctx, `(() => { const img = document.querySelector('`+card+` .mockup img');
		const c = document.createElement("canvas"); c.width = img.naturalWidth; c.height = img.naturalHeight;
		const g = c.getContext("2d"); g.drawImage(img, 0, 0); const p = g.getImageData(330, 330, 1, 1).data;
		return p[0] > 120 && p[1] < 60 && p[2] < 60 })()`), "the design's red is inside the quad")
	shot(t, ctx, "mockup")

	// A PSD kino refuses: the reason shows on the page.
	eval[bool](t, ctx, `(() => {
		const bytes = new Uint8Array([56,66,80,83,0,1,0,0,0,0,0,0,0,3,0,0,117,48,0,0,117,48,0,8,0,3,0,0,0,0,0,0,0,0,0,0,0,0,0,1]);
		const dt = new DataTransfer(); dt.items.add(new File([bytes], "huge.psd"));
		document.querySelector("#drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
		return true })()`)
	waitJS(t, ctx, "the refusal names the file and the reason", `document.querySelector("main").innerText.includes("huge.psd: file: the picture is 30000×30000 pixels")`, 10*time.Second)
}
