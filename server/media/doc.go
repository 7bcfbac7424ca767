// Package media is the media API, kino.media.v1: typed media jobs and
// their catalogue, pipelines and their runs, and assets, each scoped to
// the caller's organisation. It validates and inserts jobs as
// server/mediajob stores them; the worker that runs them
// (server/mediarun) does not depend on it, nor it on the worker. The rules
// of assets it shares with the render API are package asset's.
package media
