package main

import (
	"fmt"
	"os"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

const usageHelp = `Usage:
  kino usage [--from YYYY-MM-DD] [--to YYYY-MM-DD]

What the organisation's jobs and renders used and cost, by UTC day and
job type (as GET /usage): jobs, media seconds, CPU seconds, price in USD.
Default: the 30 days up to today.

Flags:
`

func usageCmd(args []string) error {
	fs, cf := newClientCommand("kino usage", usageHelp)
	from := fs.String("from", "", "first UTC day, YYYY-MM-DD (default 29 days before --to)")
	to := fs.String("to", "", "last UTC day, YYYY-MM-DD (default today)")
	positional, err := parseInterspersed(fs, args)
	if err == nil {
		err = envFlags(fs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kino:", err)
		os.Exit(2)
	}
	if len(positional) > 0 {
		usageExit(fs)
	}
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	resp, err := mediav1.NewUsageServiceClient(conn).GetUsage(ctx, &mediav1.GetUsageRequest{From: *from, To: *to})
	if err != nil {
		return clientError(err)
	}
	return printJSON(os.Stdout, resp)
}
