package console

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExamplesMatchDocs keeps examples.json what go generate makes of
// docs/compositions.md; with KINO_WRITE_CONSOLE_EXAMPLES=1 it rewrites it.
func TestExamplesMatchDocs(t *testing.T) {
	md, err := os.ReadFile("../../docs/compositions.md")
	require.NoError(t, err)
	ex, err := extractExamples(md)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(ex), 20, "the document's examples")
	// An example naming a medium with no demo file is left out silently:
	// the mockups' templates must have theirs.
	mockups := 0
	for _, e := range ex {
		if strings.HasPrefix(e.Title, "Mockups") {
			mockups++
		}
	}
	require.GreaterOrEqual(t, mockups, 2, "the Mockups examples, on the demo templates")
	want, err := json.MarshalIndent(ex, "", "  ")
	require.NoError(t, err)
	want = append(want, '\n')
	if os.Getenv("KINO_WRITE_CONSOLE_EXAMPLES") != "" {
		require.NoError(t, os.WriteFile("examples.json", want, 0o644))
		return
	}
	require.JSONEq(t, string(want), string(examples), "examples.json is out of date: run go generate ./gateway/console")
}
