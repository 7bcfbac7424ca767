package engine

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMotionDocExamples submits every request of the Motion section of
// docs/compositions.md as written: each must compile and plan a graph of
// only what Plan writes, with media of the kind each layer wants.
func TestMotionDocExamples(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/compositions.md")
	require.NoError(t, err)
	text := string(doc)
	start := strings.Index(text, "\n## Motion\n")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(text[start+1:], "\n## ")
	section := text[start : start+1+end]
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1)
	requests := 0
	for _, b := range blocks {
		var req struct {
			Provider    string            `json:"provider"`
			Composition json.RawMessage   `json:"composition"`
			AssetURLs   map[string]string `json:"assetUrls"`
		}
		if !strings.HasPrefix(strings.TrimSpace(b[1]), "{\"provider\"") {
			continue // a fragment
		}
		requests++
		require.NoError(t, json.Unmarshal([]byte(b[1]), &req), b[1])
		s, err := Compile(req.Provider, req.Composition, req.AssetURLs, DefaultLimits())
		require.NoError(t, err, b[1])
		media := map[string]Media{}
		for _, src := range s.Sources() {
			for _, l := range s.Layers {
				if l.SourceField == src.Field {
					media[src.Key] = map[Kind]Media{KindImage: pictureMedia, KindVideo: clipMedia, KindAudio: toneMedia}[l.Kind]
				}
			}
		}
		// Laid-out text is measured with its font, which must be real.
		cmd, err := Plan(context.Background(), s, inputs(media, testFont), "/w", "/w/out.mp4")
		require.NoError(t, err, b[1])
		_, err = checkGraph(filterGraph(cmd), "/w", testFont)
		assert.NoError(t, err, b[1])
		for _, l := range s.Layers {
			assert.NotNil(t, l.Motion, "%s moves", l.Field)
		}
	}
	assert.Equal(t, 6, requests, "the examples of the Motion section (two of them by word and letter)")
}
