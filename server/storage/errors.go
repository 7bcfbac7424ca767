package storage

import "gocloud.dev/gcerrors"

// IsNotFound reports whether err says that an object does not exist.
func IsNotFound(err error) bool { return gcerrors.Code(err) == gcerrors.NotFound }
