// Package ident makes kino's resource ids and recognises them. An id is
// its kind's prefix, an underscore and the 32 hex digits of a UUIDv7, so
// that ids of one kind sort by creation and say what they name
// (ast_0193…, job_0193…). It imports nothing of kino's, so that the
// engine, which reads no store, recognises an asset id by the same rule
// as the services that read assets.
package ident

import (
	"strings"

	"github.com/google/uuid"
)

// The prefixes of the ids kino makes.
const (
	Asset    = "ast"
	Job      = "job"
	Pipeline = "pl"
	Run      = "run"
	Upload   = "upl"
	Endpoint = "we"
	Template = "tpl"
)

// New is a new id of the kind prefix names.
func New(prefix string) string {
	return prefix + "_" + strings.ReplaceAll(uuid.Must(uuid.NewV7()).String(), "-", "")
}

// maxAssetDigits bounds the digits of an asset id: an id is looked up as
// given, and a longer one names no asset kino made.
const maxAssetDigits = 64

// IsAsset reports whether s names an uploaded asset (ast_ and lower-case
// hex digits, as New makes them) rather than a URL or a key. Every place
// that tells an asset id from a URL asks this.
func IsAsset(s string) bool {
	rest, ok := strings.CutPrefix(s, Asset+"_")
	if !ok || rest == "" || len(rest) > maxAssetDigits {
		return false
	}
	for _, r := range rest {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
