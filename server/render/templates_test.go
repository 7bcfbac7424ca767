package render

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/structpb"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "kino.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// A string of many placeholders after a long run of spaces, within the
// request body limit, is checked in time proportional to its length: the
// stand-in looks at each string once, not once per placeholder in it.
func TestCreateTemplateStandInIsLinear(t *testing.T) {
	t.Parallel()
	svc := NewTemplateService(openStore(t), engine.DefaultLimits(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	comp, err := structpb.NewStruct(map[string]any{"width": 16, "height": 16, "fps": 1, "layers": []any{
		map[string]any{"type": "text", "duration": 1, "text": strings.Repeat(" ", 500_000) + strings.Repeat("{{A}}", 100_000)}}})
	require.NoError(t, err)
	start := time.Now()
	_, err = svc.CreateTemplate(auth.WithOrg(context.Background(), "org"), &renderv1.CreateTemplateRequest{Name: "t", Provider: "provider_a", Composition: comp})
	took := time.Since(start)
	code, _ := apierr.FromStatus(apierr.ToStatus(err))
	assert.Equal(t, apierr.Validation, code, "the text is too long for a layer")
	// Linear work takes well under a second; one scan of the string per
	// placeholder took about a minute.
	assert.Less(t, took, 10*time.Second)
}

// A placeholder used many times cannot turn a small request into a huge
// composition in kino's memory: the growth the values would bring is
// counted before anything is filled in.
//
// Not parallel: TotalAlloc counts the whole process, and the parallel tests
// beside it allocate hundreds of megabytes of their own.
func TestMergeValuesCannotBlowUpTheComposition(t *testing.T) {
	st := openStore(t)
	ctx := auth.WithOrg(context.Background(), "org")
	comp, err := json.Marshal(map[string]any{"width": 16, "height": 16, "fps": 1, "layers": []any{
		map[string]any{"type": "text", "duration": 1, "text": strings.Repeat("{{A}}", 50_000)}}})
	require.NoError(t, err)
	_, err = st.Template.Create().SetID("tpl_1").SetOrgID("org").SetName("t").SetProvider("provider_a").
		SetComposition(comp).SetCreatedAt(1).SetUpdatedAt(1).Save(ctx)
	require.NoError(t, err)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err = fromTemplate(ctx, st, &renderv1.SubmitRenderRequest{Template: "tpl_1", Merge: map[string]string{"A": strings.Repeat("x", maxMergeValue)}})
	runtime.ReadMemStats(&after)
	code, _ := apierr.FromStatus(apierr.ToStatus(err))
	assert.Equal(t, apierr.Validation, code)
	assert.ErrorContains(t, err, "merge")
	// Filled in, the composition would be 200 MB, and its encoding as much again.
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
}

// A value that itself reads {{NAME}} is put in as written, never expanded
// again.
func TestMergeValuesAreNotExpandedAgain(t *testing.T) {
	t.Parallel()
	out, err := fill([]byte(`{"a":"{{A}} and {{B}}","b":["{{B}}"]}`), func(name string, _ bool) string {
		return map[string]string{"A": "{{B}}", "B": "{{A}}"}[name]
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":"{{B}} and {{A}}","b":["{{A}}"]}`, string(out))
}

// The placeholders found are those of the documented form and no others.
func TestEachPlaceholder(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 65)
	for in, want := range map[string][]string{
		"{{A}} and {{ b.c-d_1 }}": {"A", "b.c-d_1"},
		"{{{{A}}}}":               {"A"},
		"{{1A}} {{-}} {{}} {{ }}": nil,
		"{{A B}} {{A\n}}":         {"A"},
		"{{" + long + "}}":        nil,
		"{{" + long[:64] + "}}":   {long[:64]},
		"{A}} {{A} {{A}":          nil,
		"x{{_}}y{{a.b}}z":         {"_", "a.b"},
	} {
		var got []string
		eachPlaceholder(in, func(start, end int, name string) {
			assert.Contains(t, in[start:end], name)
			got = append(got, name)
		})
		assert.Equal(t, want, got, "%q", in)
	}
}
