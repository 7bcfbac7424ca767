package console

import (
	"encoding/json"
	"os"
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
	want, err := json.MarshalIndent(ex, "", "  ")
	require.NoError(t, err)
	want = append(want, '\n')
	if os.Getenv("KINO_WRITE_CONSOLE_EXAMPLES") != "" {
		require.NoError(t, os.WriteFile("examples.json", want, 0o644))
		return
	}
	require.JSONEq(t, string(want), string(examples), "examples.json is out of date: run go generate ./gateway/console")
}
