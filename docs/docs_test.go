// Package docs_test checks that the documentation stands alone: every
// link points at a file of the repository, and nothing refers to documents
// the repository does not hold.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	link = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	// References to documents outside the repository: the interface
	// documents kino was built from, and their numbered sections.
	outside = regexp.MustCompile(`shared/|\bspec\b|[Ss]ection [0-9]`)
)

func TestDocsStandAlone(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs found: %v", err)
	}
	files = append(files, "../README.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d refers to a document outside the repository (%q): %s", f, i+1, m, line)
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
					t.Errorf("%s:%d links to %s, which does not exist", f, i+1, target)
				}
			}
		}
	}
}
