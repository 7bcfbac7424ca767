package catalog

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Param declares one parameter of a job type. The same declaration checks
// params and is published as JSON Schema, so the two cannot disagree.
type Param struct {
	Name        string
	Kind        string // string, number, integer, boolean, array, object
	Description string
	Required    bool
	Enum        []string
	Min, Max    *float64
	// Format "uri" requires an absolute http(s) URL.
	Format string
	// Pattern, when set, must match a whole string; PatternHint says in
	// words what it allows, for the error message.
	Pattern     *regexp.Regexp
	PatternHint string
	// MaxLength bounds strings, MaxItems arrays.
	MaxLength, MaxItems int
	// Fields are the members of an object, or of each item of an array.
	Fields []Param
	// Items, when set, declares each item of an array that holds plain
	// values (strings, say) rather than objects with Fields.
	Items *Param
	// Values, when set, makes an object a map: any key (at most
	// MaxItems of them, each at most MaxLength), every value declared by it.
	Values *Param
	// Check adds rules that span fields; it returns problems as
	// (relative path, message) pairs.
	Check func(v map[string]any) [][2]string
	// Default is the value a job takes when the param is not given
	// (Decode fills it in); nil when there is none, or when it depends on
	// more than the params. The Description says it in words: "default "
	// and the value, or DefaultText when the words are not the value.
	Default     any
	DefaultText string
}

func bound(v float64) *float64 { return &v }

// Problem is one thing wrong with a request, at a JSON path.
type Problem struct {
	Path    string
	Message string
}

func (p Problem) String() string { return p.Path + ": " + p.Message }

// ValidateParams checks params against the type's declaration and returns
// every problem found, with paths under prefix.
func (t *Type) ValidateParams(prefix string, params map[string]any) []Problem {
	var out []Problem
	checkObject(prefix, params, t.Params, t.Check, &out)
	return out
}

func checkObject(path string, v map[string]any, fields []Param, check func(map[string]any) [][2]string, out *[]Problem) {
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Name] = true
		val, ok := v[f.Name]
		if !ok || val == nil {
			if f.Required {
				*out = append(*out, Problem{join(path, f.Name), "is required"})
			}
			continue
		}
		checkValue(join(path, f.Name), val, f, out)
	}
	var unknown []string
	for k := range v {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		*out = append(*out, Problem{join(path, k), "unknown parameter"})
	}
	if check != nil {
		for _, p := range check(v) {
			*out = append(*out, Problem{join(path, p[0]), p[1]})
		}
	}
}

func checkValue(path string, val any, p Param, out *[]Problem) {
	bad := func(format string, args ...any) {
		*out = append(*out, Problem{path, fmt.Sprintf(format, args...)})
	}
	switch p.Kind {
	case "string":
		s, ok := val.(string)
		if !ok {
			bad("must be a string")
			return
		}
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, s) {
			bad("must be one of %s", strings.Join(p.Enum, ", "))
		}
		if p.MaxLength > 0 && len(s) > p.MaxLength {
			bad("must be at most %d characters", p.MaxLength)
		}
		if p.Pattern != nil && !p.Pattern.MatchString(s) {
			bad("%s", p.PatternHint)
		}
		if p.Format == "uri" {
			if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad("must be an absolute http or https URL")
			}
		}
	case "number", "integer":
		f, ok := val.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) || (p.Kind == "integer" && f != math.Trunc(f)) {
			bad("must be %s", map[string]string{"number": "a number", "integer": "an integer"}[p.Kind])
			return
		}
		switch {
		case p.Min != nil && p.Max != nil && (f < *p.Min || f > *p.Max):
			bad("must be between %v and %v", *p.Min, *p.Max)
		case p.Min != nil && f < *p.Min:
			bad("must be at least %v", *p.Min)
		case p.Max != nil && f > *p.Max:
			bad("must be at most %v", *p.Max)
		}
	case "boolean":
		if _, ok := val.(bool); !ok {
			bad("must be true or false")
		}
	case "array":
		a, ok := val.([]any)
		if !ok {
			bad("must be an array")
			return
		}
		if p.Required && len(a) == 0 {
			bad("must have at least one entry")
		}
		if p.MaxItems > 0 && len(a) > p.MaxItems {
			bad("must have at most %d entries", p.MaxItems)
			return
		}
		for i, item := range a {
			ip := fmt.Sprintf("%s[%d]", path, i)
			if p.Items != nil {
				checkValue(ip, item, *p.Items, out)
				continue
			}
			m, ok := item.(map[string]any)
			if !ok {
				*out = append(*out, Problem{ip, "must be an object"})
				continue
			}
			checkObject(ip, m, p.Fields, p.Check, out)
		}
	case "object":
		m, ok := val.(map[string]any)
		if !ok {
			bad("must be an object")
			return
		}
		if p.Values != nil {
			checkMap(path, m, p, out)
			return
		}
		checkObject(path, m, p.Fields, p.Check, out)
	}
}

// checkMap checks an object whose keys are the caller's (layer paths, say):
// their count and length, and every value against p.Values.
func checkMap(path string, m map[string]any, p Param, out *[]Problem) {
	if p.MaxItems > 0 && len(m) > p.MaxItems {
		*out = append(*out, Problem{path, fmt.Sprintf("must have at most %d entries", p.MaxItems)})
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kp := fmt.Sprintf("%s[%q]", path, k)
		if k == "" || (p.MaxLength > 0 && len(k) > p.MaxLength) {
			*out = append(*out, Problem{kp, fmt.Sprintf("a key must be 1 to %d characters", p.MaxLength)})
			continue
		}
		checkValue(kp, m[k], *p.Values, out)
	}
	if p.Check != nil {
		for _, pr := range p.Check(m) {
			*out = append(*out, Problem{join(path, pr[0]), pr[1]})
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Schema is the JSON Schema of a list of params.
func Schema(params []Param) map[string]any {
	props := map[string]any{}
	var required []any
	for _, p := range params {
		props[p.Name] = schemaOf(p)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func schemaOf(p Param) map[string]any {
	s := map[string]any{"type": p.Kind}
	if p.Description != "" {
		s["description"] = p.Description
	}
	if len(p.Enum) > 0 {
		e := make([]any, len(p.Enum))
		for i, v := range p.Enum {
			e[i] = v
		}
		s["enum"] = e
	}
	if p.Min != nil {
		s["minimum"] = *p.Min
	}
	if p.Max != nil {
		s["maximum"] = *p.Max
	}
	if p.Format != "" {
		s["format"] = p.Format
	}
	if p.Pattern != nil {
		s["pattern"] = p.Pattern.String()
	}
	if p.MaxLength > 0 {
		s["maxLength"] = float64(p.MaxLength)
	}
	switch p.Kind {
	case "array":
		if p.Required {
			s["minItems"] = float64(1)
		}
		if p.MaxItems > 0 {
			s["maxItems"] = float64(p.MaxItems)
		}
		if p.Items != nil {
			s["items"] = schemaOf(*p.Items)
		} else {
			s["items"] = Schema(p.Fields)
		}
	case "object":
		if p.Values != nil {
			s["additionalProperties"] = schemaOf(*p.Values)
			if p.MaxItems > 0 {
				s["maxProperties"] = float64(p.MaxItems)
			}
			delete(s, "maxLength")
			if p.MaxLength > 0 {
				s["propertyNames"] = map[string]any{"minLength": float64(1), "maxLength": float64(p.MaxLength)}
			}
			break
		}
		for k, v := range Schema(p.Fields) {
			s[k] = v
		}
	}
	return s
}
