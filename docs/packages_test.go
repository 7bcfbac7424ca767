package docs_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/kinohq/kino/"

var (
	// A row of the map's tables: | `server/render` | what it holds |
	mapRow = regexp.MustCompile("^\\| `([a-z0-9/]+)` \\|")
	// A step of a walk: 1. `server/render`: ...
	walkStep = regexp.MustCompile("^[0-9]+\\. `([a-z0-9/]+)`")
)

// TestPackageMap holds docs/packages.md against the code: every package it
// names exists, every package that exists is named, and each walk it
// describes goes down: no package of a walk imports, even through others,
// a package that comes before it.
func TestPackageMap(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("packages.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	walks := map[string][]string{}
	var walk string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			walk = ""
			if strings.HasPrefix(line, "## The walk of ") {
				walk = strings.TrimPrefix(line, "## ")
			}
		}
		if m := mapRow.FindStringSubmatch(line); m != nil {
			named[m[1]] = true
		}
		if m := walkStep.FindStringSubmatch(line); m != nil && walk != "" {
			walks[walk] = append(walks[walk], m[1])
		}
	}
	pkgs := packages(t)
	for p := range named {
		if _, ok := pkgs[p]; !ok && !generated(p) {
			t.Errorf("packages.md names %s, which is no package of the code", p)
		}
	}
	for p := range pkgs {
		if !named[p] && !generated(p) {
			t.Errorf("package %s is not in packages.md", p)
		}
	}
	if len(walks) < 2 {
		t.Fatalf("packages.md describes %d walks; want the walk of a render and of a media job", len(walks))
	}
	for name, steps := range walks {
		for i, p := range steps {
			if _, ok := pkgs[p]; !ok {
				t.Errorf("%s: step %d names %s, which is no package", name, i+1, p)
				continue
			}
			below := reach(pkgs, p)
			for _, earlier := range steps[:i] {
				if below[earlier] {
					t.Errorf("%s goes back up: %s (step %d) imports %s, which comes before it", name, p, i+1, earlier)
				}
			}
		}
	}
}

// generated trees are named in the map as a whole (gen, ent).
func generated(p string) bool {
	return p == "gen" || p == "ent" || strings.HasPrefix(p, "gen/") || strings.HasPrefix(p, "ent/")
}

// packages are the repository's Go packages (folders with a non-test Go
// file), by path from the root, each with the repository packages it
// imports.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	root := ".."
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || generated(rel) || rel == "tools" || rel == "docs") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		imports := out[dir]
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if strings.HasPrefix(p, module) {
				imports = append(imports, strings.TrimPrefix(p, module))
			}
		}
		sort.Strings(imports)
		out[dir] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// reach is every repository package p imports, directly or through others.
func reach(pkgs map[string][]string, p string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(q string) {
		for _, r := range pkgs[q] {
			if !seen[r] {
				seen[r] = true
				visit(r)
			}
		}
	}
	visit(p)
	return seen
}
