package dag

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/ffmpeg"
)

// specExample is the pipeline of the media service interface.
func specExample() Spec {
	return Spec{
		Name: "captions", Description: "extract, then burn",
		Nodes: []Node{
			{ID: "extract", JobType: "caption.extract", Params: map[string]any{}},
			{ID: "burn", JobType: "caption.burn", Params: map[string]any{}},
			{ID: "mark", JobType: "watermark.apply", Params: map[string]any{"watermarks": []any{
				map[string]any{"type": "image", "url": "https://cdn.example/logo.png", "position": "bottom-right"},
			}}},
		},
		Edges: []Edge{
			{From: "extract", To: "burn", SourceField: "captionsUrl", TargetField: "subtitles"},
			{From: "extract", To: "burn", SourceField: "outputUrl", TargetField: "source"},
			{From: "burn", To: "mark", SourceField: "outputUrl", TargetField: "source"},
		},
	}
}

func TestTheSpecExampleIsValid(t *testing.T) {
	t.Parallel()
	assert.Empty(t, Validate(specExample(), ffmpeg.DefaultMaxPixels))
}

func paths(ps []catalog.Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path)
	}
	return out
}

func TestValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mod    func(s *Spec)
		paths  []string
		inText string
	}{
		{"no name", func(s *Spec) { s.Name = "" }, []string{"name"}, "required"},
		{"no nodes", func(s *Spec) { s.Nodes, s.Edges = nil, nil }, []string{"nodes"}, "at least one"},
		{"bad node id", func(s *Spec) { s.Nodes[0].ID = "1st node" }, []string{"nodes[0].id", "edges[0].from", "edges[1].from"}, "start with a letter"},
		{"duplicate node id", func(s *Spec) { s.Nodes[2].ID = "burn" }, []string{"nodes[2].id", "edges[2].to"}, "already the id of nodes[1]"},
		{"unknown job type", func(s *Spec) { s.Nodes[1].JobType = "caption.translate" }, []string{"nodes[1].jobType"}, "unknown job type"},
		{"bad params", func(s *Spec) {
			s.Nodes[2].Params = map[string]any{"watermarks": []any{map[string]any{"type": "image", "url": "ftp://x", "position": "left"}}, "extra": 1}
		}, []string{"nodes[2].params.watermarks[0].url", "nodes[2].params.watermarks[0].position", "nodes[2].params.extra"}, "http"},
		{"missing required param", func(s *Spec) { s.Nodes[2].Params = nil }, []string{"nodes[2].params.watermarks"}, "required"},
		{"image watermark without a source", func(s *Spec) {
			s.Nodes[2].Params = map[string]any{"watermarks": []any{map[string]any{"type": "image"}}}
		}, []string{"nodes[2].params.watermarks[0].url"}, "exactly one of url and assetId"},
		{"edge from nowhere", func(s *Spec) { s.Edges[0].From = "ghost" }, []string{"edges[0].from"}, `"ghost"`},
		{"edge to nowhere", func(s *Spec) { s.Edges[2].To = "ghost" }, []string{"edges[2].to"}, `"ghost"`},
		{"self loop", func(s *Spec) { s.Edges[2].To = "burn" }, []string{"edges[2].to"}, "back to itself"},
		{"cycle", func(s *Spec) {
			s.Edges = append(s.Edges, Edge{From: "mark", To: "extract", SourceField: "outputUrl", TargetField: "source"})
		}, []string{"edges"}, "extract -> burn -> mark -> extract"},
		{"unknown output", func(s *Spec) { s.Edges[0].SourceField = "subtitlesUrl" }, []string{"edges[0].outputMapping.sourceField"}, "not an output of caption.extract"},
		{"unknown input", func(s *Spec) { s.Edges[0].TargetField = "captions" }, []string{"edges[0].outputMapping.targetField"}, "not an input of caption.burn"},
		{"media that does not fit", func(s *Spec) { s.Edges[1].SourceField = "captionsUrl"; s.Edges[0].TargetField = "source" },
			[]string{"edges[0].outputMapping", "edges[1].outputMapping", "edges[1].outputMapping.targetField"}, "carries subtitles"},
		{"input fed twice", func(s *Spec) {
			s.Edges = append(s.Edges, Edge{From: "extract", To: "mark", SourceField: "outputUrl", TargetField: "source"})
		}, []string{"edges[3].outputMapping.targetField"}, "already fed by edges[2]"},
		{"too many nodes", func(s *Spec) {
			for i := 0; i < MaxNodes; i++ {
				s.Nodes = append(s.Nodes, Node{ID: "n" + strings.Repeat("x", i%10), JobType: "audio.extract"})
			}
		}, []string{"nodes"}, "at most 50"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := specExample()
			tc.mod(&s)
			problems := Validate(s, ffmpeg.DefaultMaxPixels)
			require.NotEmpty(t, problems)
			assert.Equal(t, tc.paths, paths(problems))
			all := ""
			for _, p := range problems {
				all += p.String() + "\n"
			}
			assert.Contains(t, all, tc.inText)
		})
	}
}

func TestSeveralProblemsAtOnce(t *testing.T) {
	t.Parallel()
	s := specExample()
	s.Name = ""
	s.Nodes[0].JobType = "nope"
	s.Edges[2].To = "ghost"
	assert.Equal(t, []string{"name", "nodes[0].jobType", "edges[2].to"}, paths(Validate(s, ffmpeg.DefaultMaxPixels)))
}

// FuzzValidate feeds arbitrary pipelines: Validate must never panic, and
// must answer the same for the same input.
func FuzzValidate(f *testing.F) {
	b, _ := json.Marshal(specExample())
	f.Add(b)
	f.Add([]byte(`{"Name":"x","Nodes":[{"ID":"a","JobType":"video.trim"},{"ID":"b","JobType":"video.trim"}],"Edges":[{"From":"a","To":"b"},{"From":"b","To":"a"}]}`))
	f.Add([]byte(`{"Nodes":[{"ID":"a","JobType":"watermark.apply","Params":{"watermarks":[{"type":"text"},"x",{"type":"image","assetId":"a","url":"http://x"}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Spec
		if json.Unmarshal(data, &s) != nil {
			return
		}
		first := Validate(s, ffmpeg.DefaultMaxPixels)
		second := Validate(s, ffmpeg.DefaultMaxPixels)
		if len(first) != len(second) {
			t.Fatalf("Validate is not deterministic: %v then %v", first, second)
		}
		for i := range first {
			if first[i] != second[i] {
				t.Fatalf("Validate is not deterministic: %v then %v", first, second)
			}
			if first[i].Path == "" || first[i].Message == "" {
				t.Fatalf("a problem without a path or message: %+v", first[i])
			}
		}
	})
}
