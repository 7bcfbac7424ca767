// Command kino renders videos and runs media jobs. `kino serve` runs the
// service; the other subcommands are its command-line client.
package main

import (
	"fmt"
	"os"
)

const usage = `kino renders videos and runs media jobs.

Usage:
  kino serve [flags]                 run the gRPC server, REST gateway and workers
  kino render submit FILE [--watch]  submit the render request in FILE (JSON, as POST /api/render)
  kino render get ID                 print a render job's status record
  kino render cancel ID              cancel a render job
  kino render watch ID               follow a render job's progress until it ends
  kino render list [--status S]      list render jobs, newest first
  kino job create FILE [--watch]     create the media job in FILE (JSON, as POST /jobs)
  kino job get|cancel|watch ID       print, cancel or follow a media job
  kino job list [--status S]         list media jobs, newest first
  kino assets upload FILE --type T   upload an image, PSD template or font
  kino assets list                   list assets
  kino upload FILE                   store a file for a while (as POST /uploads); prints its downloadUrl
  kino pipeline create FILE          create the pipeline in FILE (JSON, as POST /pipelines)
  kino pipeline list                 list pipelines
  kino pipeline runs ID              list a pipeline's runs, newest first
  kino pipeline run FILE|ID --watch  run a pipeline (FILE's stored pipeline, created the first time), following every node
  kino usage [--from D] [--to D]     what the organisation's jobs and renders used and cost, by day and type (a table; --json as GET /usage)
  kino webhooks create URL --events E register an endpoint sent those events (also list, get ID, delete ID)
  kino mcp [--http ADDR]             a Model Context Protocol server for AI agents (stdio, or streamable HTTP)

Run 'kino serve -h', 'kino render -h', 'kino job -h' or 'kino pipeline -h'
for flags. Every flag can also be set with an environment variable:
--http-addr is KINO_HTTP_ADDR, and so on.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "render":
		err = renderCmd(os.Args[2:])
	case "assets":
		err = assetsCmd(os.Args[2:])
	case "upload":
		err = uploadCmd(os.Args[2:])
	case "job", "jobs":
		err = jobCmd(os.Args[2:])
	case "pipeline", "pipelines":
		err = pipelinesCmd(os.Args[2:])
	case "usage":
		err = usageCmd(os.Args[2:])
	case "webhook", "webhooks":
		err = webhooksCmd(os.Args[2:])
	case "mcp":
		err = mcpCmd(os.Args[2:])
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "kino: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kino:", err)
		os.Exit(1)
	}
}
