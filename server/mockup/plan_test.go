package mockup

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/catalog"
)

func TestNewPlan(t *testing.T) {
	t.Parallel()
	p, problem := NewPlan(catalog.MockupRender{Designs: []string{"https://a/1.png"}, SmartObjects: map[string]string{"Back": "ast_1"}}, true)
	require.Nil(t, problem)
	assert.Equal(t, []string{DesignInput, "https://a/1.png"}, p.Designs)
	assert.Equal(t, map[string]string{"Back": "ast_1"}, p.Fixed)

	// No design: the template's own drawing, one mockup of no design.
	p, problem = NewPlan(catalog.MockupRender{}, false)
	require.Nil(t, problem)
	assert.Empty(t, p.Designs)
	assert.Empty(t, p.Fixed)

	many := make([]string, catalog.MaxMockups)
	for i := range many {
		many[i] = fmt.Sprintf("https://a/%d.png", i)
	}
	_, problem = NewPlan(catalog.MockupRender{Designs: many}, true)
	require.NotNil(t, problem)
	assert.Equal(t, fmt.Sprintf("params.designs: at most %d designs and smart objects in one job", catalog.MaxMockups), problem.String())

	_, problem = NewPlan(catalog.MockupRender{SmartObject: "Front", SmartObjects: map[string]string{"Front": "ast_1"}}, true)
	require.NotNil(t, problem)
	assert.Equal(t, "params.smartObjects", problem.Path)
}

func TestStoredManifest(t *testing.T) {
	t.Parallel()
	_, ok := StoredManifest(`{"width":10}`)
	assert.False(t, ok, "a manifest of no layers: stored before kino read templates")
	_, ok = StoredManifest(`not json`)
	assert.False(t, ok)
	m, ok := StoredManifest(`{"width":10,"height":10,"layers":[{"path":"Shirt","kind":"smartObject"}]}`)
	require.True(t, ok)
	assert.Equal(t, "Shirt", m.Layers[0].Path)
}

func TestLoadNeedsAPixelBound(t *testing.T) {
	t.Parallel()
	_, _, err := Load("no-such.psd", 0)
	assert.ErrorContains(t, err, "no pixel bound")
}
