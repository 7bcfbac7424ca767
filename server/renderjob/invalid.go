package renderjob

import (
	"errors"

	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/engine"
)

// Invalid is the VALIDATION_ERROR of a request the engine refused, listing
// every problem it found rather than the first alone.
func Invalid(err error) error {
	var ve *engine.ValidationError
	if !errors.As(err, &ve) {
		return apierr.New(apierr.Validation, "%s", err.Error())
	}
	all := ve.All()
	problems := make([]apierr.FieldProblem, len(all))
	for i, p := range all {
		problems[i] = apierr.FieldProblem{Field: p.Field, Message: p.Message}
	}
	return apierr.Invalid(problems)
}
