package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEngineStartsNothing holds the package comment to its word: the
// engine's code (its tests aside) starts no process and decodes no
// template. It imports no package that starts processes, takes from
// package ffmpeg only what builds arguments and describes media, and
// leaves the decoding of templates to Inputs.Templates.
func TestEngineStartsNothing(t *testing.T) {
	t.Parallel()
	forbidden := map[string]bool{"os/exec": true, "syscall": true, "golang.org/x/sys/unix": true,
		"github.com/kinohq/kino/server/psd": true, "github.com/kinohq/kino/server/memory": true}
	allowed := map[string]map[string]bool{
		"ffmpeg": {"InputArgs": true, "InputArgsFormat": true, "Info": true, "Stream": true, "Limits": true, "Loudness": true},
		"mockup": {"Load": false, "Open": false},
	}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, 0)
		require.NoError(t, err)
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			assert.False(t, forbidden[path], "%s imports %s", name, path)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			names, ok := allowed[pkg.Name]
			if !ok {
				return true
			}
			ok, listed := names[sel.Sel.Name]
			if pkg.Name == "ffmpeg" {
				assert.True(t, ok, "%s: engine uses %s.%s", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name)
			} else {
				assert.False(t, listed && !ok, "%s: engine uses %s.%s", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name)
			}
			return true
		})
	}
	require.Greater(t, checked, 20, "the package's files were read")
}
