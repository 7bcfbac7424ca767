package app

import "github.com/kinohq/kino/server/share"

// UploadPool is the node's pool of upload workers, for tests that fill it
// as one organisation: an upload's decoding cannot be held at will.
func (a *App) UploadPool() *share.Pool { return a.uploadSlots }
