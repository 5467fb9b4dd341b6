package core

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// layers is the package comment's layering of core's packages (the
// workspace.go doc); a package not listed fails the test until it is.
var layers = map[string]int{
	"llm": 0, "statedb": 0, "testhome": 0, "ollamatest": 0, "mcp/mcptest": 0, "when": 0, "disk": 0,
	"window": 1, "ollama": 1, "callview": 1, "mcp": 1, "embed": 1, "memrev": 1, "skills": 1, "importer": 1,
	"jobs": 1, "reminders": 1, "forgotten": 1, "watch": 1, "ollamatest/cmd/fakeollama": 1, "mcp/mcptest/cmd/mcptestserver": 1,
	"distill": 2, "journal": 2,
	"compact": 3, "forget": 3, "devsync": 3,
	"":         4, // core
	"mcpserve": 5,
}

// upward are the imports that break the layering today: tests of lower
// packages that open a workspace through core. The list only shrinks (it
// was four files in three packages before issue 36: distill's two,
// forget's and memrev's).
var upward = []string{
	"distill (test) -> core",
	"forget (test) -> core",
}

// Every import inside core, a test's too, points down the layering.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`, "agent/core/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out) // make test runs with the go tool on PATH
	}
	var found []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		from := inCore(parts[0])
		layer, ok := layers[from]
		if !ok {
			t.Errorf("package agent/core/%s has no layer in the package comment", from)
			continue
		}
		for i, imports := range parts[1:] {
			for _, imp := range strings.Fields(imports) {
				to := inCore(imp)
				if to == "-" || to == from {
					continue
				}
				if l, ok := layers[to]; ok && l >= layer {
					kind := ""
					if i == 1 {
						kind = " (test)"
					}
					name := from
					if name == "" {
						name = "core"
					}
					target := to
					if target == "" {
						target = "core"
					}
					if e := name + kind + " -> " + target; !slices.Contains(found, e) {
						found = append(found, e)
					}
				}
			}
		}
	}
	for _, e := range found {
		if !slices.Contains(upward, e) {
			t.Errorf("import against the layering: %s", e)
		}
	}
	for _, e := range upward {
		if !slices.Contains(found, e) {
			t.Errorf("listed exception %q is gone: take it off the list", e)
		}
	}
}

// inCore is a package path inside agent/core relative to it ("" for core
// itself), or "-" for one outside.
func inCore(path string) string {
	if path == "agent/core" {
		return ""
	}
	if rest, ok := strings.CutPrefix(path, "agent/core/"); ok {
		return rest
	}
	return "-"
}
