// Package paging holds the rules every list of kino pages by: limit and
// offset are digit strings; limit defaults to 50 and is at most 100, offset
// defaults to 0; the page shown is offset / limit + 1.
package paging

import (
	"regexp"
	"strconv"

	"github.com/kinohq/kino/server/apierr"
)

// The page sizes of every list.
const (
	DefaultLimit = 50
	MaxLimit     = 100
	// maxOffset keeps offsets in range of every database's integers.
	maxOffset = 1_000_000_000
)

var digits = regexp.MustCompile(`^\d+$`)

// Parse reads limit and offset, naming the parameter at fault in a
// VALIDATION_ERROR.
func Parse(limit, offset string) (int, int, error) {
	l, o := DefaultLimit, 0
	if limit != "" {
		if !digits.MatchString(limit) {
			return 0, 0, apierr.New(apierr.Validation, "limit: must be digits only (^\\d+$), got %q", limit)
		}
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > MaxLimit {
			return 0, 0, apierr.New(apierr.Validation, "limit: must be between 1 and %d", MaxLimit)
		}
		l = n
	}
	if offset != "" {
		if !digits.MatchString(offset) {
			return 0, 0, apierr.New(apierr.Validation, "offset: must be digits only (^\\d+$), got %q", offset)
		}
		n, err := strconv.Atoi(offset)
		if err != nil || n > maxOffset {
			return 0, 0, apierr.New(apierr.Validation, "offset: must be at most %d", maxOffset)
		}
		o = n
	}
	return l, o, nil
}

// Page is the 1-based page that offset falls in: offset / limit + 1.
func Page(limit, offset int) int { return offset/limit + 1 }
