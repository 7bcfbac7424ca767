package schema

import "time"

// now is the default of every timestamp. Times are kept in UTC so that
// SQLite, which stores them as text, compares them in the same order as
// PostgreSQL does.
func now() time.Time { return time.Now().UTC() }
