package app

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function in server/ may be: past it, a
// reader can no longer see its steps, so it is split along them.
const maxFuncLines = 150

// TestNoLongFunctions fails naming every function (or method) of server/
// over maxFuncLines lines, its doc comment not counted; tests are exempt.
func TestNoLongFunctions(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	var long []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
				long = append(long, fmt.Sprintf("%s %s: %d lines", fset.Position(fn.Pos()), fn.Name.Name, n))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(long) > 0 {
		t.Errorf("functions over %d lines in server/; split each along its steps:\n%s", maxFuncLines, strings.Join(long, "\n"))
	}
}
