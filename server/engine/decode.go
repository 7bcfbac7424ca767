package engine

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// reader walks a JSON object by hand so that every problem is reported with
// its exact path, and unknown fields are caught (a typo must not silently
// fall back to a default).
//
// Every problem is kept (up to maxProblems, one per field), so a client
// fixes its request in one round instead of one error at a time; err is
// the first, and the reading code stops early on it where going on would
// only report consequences of it.
type reader struct {
	err *ValidationError
}

// maxProblems bounds the problems one answer lists.
const maxProblems = 20

func (r *reader) fail(field, format string, args ...any) {
	p := ValidationError{Field: field, Message: fmt.Sprintf(format, args...)}
	if r.err == nil {
		r.err = &p
		return
	}
	if len(r.err.Also) >= maxProblems-1 || r.err.Field == field || strings.HasPrefix(field, r.err.Field+".") || strings.HasPrefix(field, r.err.Field+"[") {
		return
	}
	for _, o := range r.err.Also {
		if o.Field == field || strings.HasPrefix(field, o.Field+".") || strings.HasPrefix(field, o.Field+"[") {
			return
		}
	}
	r.err.Also = append(r.err.Also, p)
}

// count is the number of problems found so far.
func (r *reader) count() int {
	if r.err == nil {
		return 0
	}
	return 1 + len(r.err.Also)
}

// apart reads one part of a request (a layer, a clip) as if it were the
// first thing read: its own checks that wait for an earlier problem to be
// absent run, so the problems of every layer are found, while each
// layer's problems after its first are still only those worth reporting.
func (c *compiler) apart(read func()) {
	before := c.r.err
	c.r.err = nil
	read()
	found := c.r.err
	c.r.err = before
	if found != nil {
		for _, p := range found.All() {
			c.r.fail(p.Field, "%s", p.Message)
		}
	}
}

// object is one JSON object being read.
type object struct {
	r    *reader
	path string
	m    map[string]any
	seen map[string]bool
}

func (r *reader) object(path string, v any) *object {
	m, ok := v.(map[string]any)
	if !ok {
		r.fail(path, "must be an object")
		m = map[string]any{}
	}
	return &object{r: r, path: path, m: m, seen: map[string]bool{}}
}

// child reads the object under key; an absent key reads as an empty
// object, so its fields take their defaults.
func (o *object) child(key string) *object {
	v, ok := o.get(key)
	if !ok {
		v = map[string]any{}
	}
	return o.r.object(o.field(key), v)
}

func (o *object) field(key string) string { return o.path + "." + key }

func (o *object) get(key string) (any, bool) {
	o.seen[key] = true
	v, ok := o.m[key]
	if ok && v == nil {
		return nil, false
	}
	return v, ok
}

// done reports the first field nobody asked for.
func (o *object) done() {
	var unknown []string
	for k := range o.m {
		if !o.seen[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		o.r.fail(o.field(unknown[0]), "%s", unknownField(unknown[0]))
	}
}

// has reports whether key holds a value; null counts as absent, as it
// does everywhere else.
func (o *object) has(key string) bool {
	o.seen[key] = true
	v, ok := o.m[key]
	return ok && v != nil
}

// number reads a number, rounded to the millionth: times become whole
// microseconds, and every number written into a filter graph stays short.
func (o *object) number(key string, def, lo, hi float64) float64 {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	f, isNum := v.(float64)
	if !isNum || math.IsNaN(f) || math.IsInf(f, 0) {
		o.r.fail(o.field(key), "must be a number")
		return def
	}
	// The bounds are compared with the number as written: rounded first,
	// 600.0000001 would pass a limit of 600.
	if f < lo || f > hi {
		o.r.fail(o.field(key), "must be between %s and %s", num(lo), num(hi))
		return def
	}
	return math.Round(f*1e6) / 1e6
}

func (o *object) integer(key string, def, lo, hi int) int {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	f, isNum := v.(float64)
	if !isNum || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		o.r.fail(o.field(key), "must be an integer between %d and %d", lo, hi)
		return def
	}
	return int(f)
}

func (o *object) requiredInteger(key string, lo, hi int) int {
	if !o.has(key) {
		o.r.fail(o.field(key), "is required")
		return lo
	}
	return o.integer(key, lo, lo, hi)
}

func (o *object) str(key string) (string, bool) {
	v, ok := o.get(key)
	if !ok {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		o.r.fail(o.field(key), "must be a string")
		return "", false
	}
	return s, true
}

func (o *object) enum(key, def string, allowed ...string) string {
	s, ok := o.str(key)
	if !ok {
		return def
	}
	if !slices.Contains(allowed, s) {
		o.r.fail(o.field(key), "must be one of %s", strings.Join(allowed, ", "))
		return def
	}
	return s
}

func (o *object) color(key, def string) string {
	s, ok := o.str(key)
	if !ok {
		return def
	}
	c, valid := parseColor(s)
	if !valid {
		o.r.fail(o.field(key), "must be a colour: #RGB, #RRGGBB, #RRGGBBAA or a name such as white")
		return def
	}
	return c
}

// pos reads a coordinate: pixels, or "center".
func (o *object) pos(key string, limit int) Pos {
	v, ok := o.get(key)
	if !ok {
		return Pos{Center: true}
	}
	if s, isStr := v.(string); isStr && s == "center" {
		return Pos{Center: true}
	}
	f, isNum := v.(float64)
	if !isNum || f != math.Trunc(f) || math.Abs(f) > float64(limit) {
		o.r.fail(o.field(key), `must be "center" or an integer number of pixels between -%d and %d`, limit, limit)
		return Pos{Center: true}
	}
	return Pos{Px: int(f)}
}

func (o *object) array(key string, max int) []any {
	v, ok := o.get(key)
	if !ok {
		o.r.fail(o.field(key), "is required")
		return nil
	}
	a, isArr := v.([]any)
	if !isArr {
		o.r.fail(o.field(key), "must be an array")
		return nil
	}
	if len(a) > max {
		o.r.fail(o.field(key), "has %d entries; at most %d are allowed", len(a), max)
		return nil
	}
	return a
}

// text reads a layer's text: any characters, as they are, within the limit.
func (o *object) text(key string, limit int) string {
	s, ok := o.str(key)
	if !ok {
		if o.r.err == nil {
			o.r.fail(o.field(key), "is required")
		}
		return ""
	}
	if strings.TrimSpace(s) == "" {
		o.r.fail(o.field(key), "must not be empty")
	}
	if n := utf8.RuneCountInString(s); n > limit {
		o.r.fail(o.field(key), "has %d characters; at most %d are allowed", n, limit)
	}
	if strings.ContainsRune(s, 0) {
		o.r.fail(o.field(key), "must not contain NUL characters")
	}
	return s
}

func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && len(s) <= 4096
}

// num formats a number as JSON would, for messages.
func num(f float64) string { return fmt.Sprint(f) }
