// Package media is the media API, kino.media.v1: typed media jobs and
// their catalogue, pipelines and their runs, and assets, each scoped to
// the caller's organisation. It also defines a media job as it is stored
// (Kind, Args, the Meta… keys of its metadata, output fields and URLs),
// which the worker that runs it (server/mediarun) reads and writes. The
// rules of assets it shares with the render API are package asset's.
package media
