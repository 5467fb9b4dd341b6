package profile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// These tests prove "there is no other write path": nothing in this package
// can change profile_records without a user's Directive.

// readOnlyMethods are the *Store methods allowed without a Directive. Propose
// writes only to profile_proposals, never to records (tested separately).
var readOnlyMethods = map[string]bool{
	"Get": true, "All": true, "History": true, "Proposals": true, "Propose": true,
}

func TestEveryWritingMethodTakesADirective(t *testing.T) {
	directive := reflect.TypeFor[Directive]()
	st := reflect.TypeFor[*Store]()
	seen := map[string]bool{}
	for i := range st.NumMethod() {
		m := st.Method(i)
		seen[m.Name] = true
		if readOnlyMethods[m.Name] {
			continue
		}
		takes := false
		for j := range m.Type.NumIn() {
			takes = takes || m.Type.In(j) == directive
		}
		if !takes {
			t.Errorf("(*Store).%s is not in the read-only allowlist and takes no Directive", m.Name)
		}
	}
	for name := range readOnlyMethods {
		if !seen[name] {
			t.Errorf("allowlisted method %s no longer exists; update the allowlist", name)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Store](), directive} {
		for i := range typ.NumField() {
			if typ.Field(i).IsExported() {
				t.Errorf("%s has exported field %s: callers could forge or bypass it", typ, typ.Field(i).Name)
			}
		}
	}
}

// recordWrite matches SQL that changes profile_records.
var recordWrite = regexp.MustCompile(`(?is)\b(insert|update|delete|replace)\b.*\bprofile_records\b`)

// TestRecordWritesNeedADirective parses the package source: every string
// literal that writes profile_records must be a named constant, and every
// function that uses one must take a Directive parameter. Exported
// package-level functions are limited to a known, non-writing set.
func TestRecordWritesNeedADirective(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	writeConsts := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, _ := strconv.Unquote(lit.Value); recordWrite.MatchString(s) {
						writeConsts[vs.Names[i].Name] = true
					}
				}
			}
			return false
		})
	}
	if len(writeConsts) == 0 {
		t.Fatal("found no SQL constants writing profile_records; the test is looking in the wrong place")
	}
	exported := map[string]bool{"NewStore": true, "ByUser": true, "Validate": true, "Keys": true, "Summary": true}
	for _, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fn.Recv == nil && fn.Name.IsExported() && !exported[fn.Name.Name] {
				t.Errorf("new exported function %s: check it cannot write records, then add it here", fn.Name.Name)
			}
			uses := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Ident:
					uses = uses || writeConsts[n.Name]
				case *ast.BasicLit:
					if s, _ := strconv.Unquote(n.Value); n.Kind == token.STRING && recordWrite.MatchString(s) {
						t.Errorf("%s: %s writes profile_records with inline SQL", fset.Position(n.Pos()), fn.Name.Name)
					}
				}
				return true
			})
			if uses && !hasDirectiveParam(fn) {
				t.Errorf("%s uses a record-writing statement but takes no Directive", fn.Name.Name)
			}
		}
	}
}

func hasDirectiveParam(fn *ast.FuncDecl) bool {
	for _, p := range fn.Type.Params.List {
		if id, ok := p.Type.(*ast.Ident); ok && id.Name == "Directive" {
			return true
		}
	}
	return false
}
