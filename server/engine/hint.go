package engine

import (
	"fmt"
	"strings"
)

// unknownHints say, for fields people send because other tools take them,
// what kino takes instead: "unknown field" alone does not say how to fix
// the request.
//
//nolint:gochecknoglobals // read-only table: hints for names clients often mistake
var unknownHints = map[string]string{
	"fontWeight": `kino has no font weight: bold is a bold font file, given in "font" (an asset key or URL of the bold face, such as DejaVuSans-Bold.ttf)`,
	"fontFamily": `kino picks a font by its file, not by family name: give the font file in "font" (an asset key or URL)`,
	"fontStyle":  `kino has no font style: italic is an italic font file, given in "font" (an asset key or URL of the italic face)`,
}

// unknownField is the message for an unknown field key.
func unknownField(key string) string {
	if hint, ok := unknownHints[key]; ok {
		return "unknown field; " + hint
	}
	return "unknown field"
}

// holds reports whether the object has any of keys, without reading them.
func (o *object) holds(keys ...string) bool {
	for _, k := range keys {
		if _, ok := o.m[k]; ok {
			return true
		}
	}
	return false
}

// wrongProvider fails a composition whose fields are the other provider's
// and not this one's: the first field this provider misses would
// otherwise be the message ("composition.width: is required"), which does
// not say that the provider is what to change.
func (c *compiler) wrongProvider(o *object, provider string, theirs, ours []string) bool {
	if !o.holds(theirs...) || o.holds(ours...) {
		return false
	}
	var has []string
	for _, k := range theirs {
		if o.holds(k) {
			has = append(has, fmt.Sprintf("%q", k))
		}
	}
	other := map[string]string{"provider_a": "unified", "unified": "provider_a"}[provider]
	c.r.fail("composition", `looks like a %q composition (it has %s): send it with "provider": %q, or write it as %s (%s)`,
		other, strings.Join(has, " and "), other, provider, strings.Join(ours, ", "))
	return true
}
