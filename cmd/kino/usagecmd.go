package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

const usageHelp = `Usage:
  kino usage [--from YYYY-MM-DD] [--to YYYY-MM-DD]

What the organisation's jobs and renders used and cost, by UTC day and
job type (as GET /usage): jobs, media seconds, CPU seconds, price in USD,
as a table, with the totals under it; --json prints GET /usage's JSON.
Default: the 30 days up to today.

Flags:
`

func usageCmd(args []string) error {
	fs, cf := newClientCommand("kino usage", usageHelp)
	from := fs.String("from", "", "first UTC day, YYYY-MM-DD (default 29 days before --to)")
	to := fs.String("to", "", "last UTC day, YYYY-MM-DD (default today)")
	asJSON := fs.Bool("json", false, "print the answer as JSON (as GET /usage)")
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
	if *asJSON {
		return printJSON(os.Stdout, resp)
	}
	return printUsage(os.Stdout, resp)
}

// printUsage writes the usage as a table people read: a row by day and
// type, then the totals of the range.
func printUsage(w io.Writer, resp *mediav1.GetUsageResponse) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "DAY\tTYPE\tJOBS\tMEDIA S\tCPU S\tPRICE USD\t")
	for _, r := range resp.GetData() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.2f\t%.4f\t\n", r.GetDay(), r.GetType(), r.GetJobs(), r.GetMediaSeconds(), r.GetCpuSeconds(), r.GetPrice())
	}
	m := resp.GetMeta()
	fmt.Fprintf(tw, "%s to %s\ttotal\t%d\t%.1f\t%.2f\t%.4f\t\n", m.GetFrom(), m.GetTo(), m.GetJobs(), m.GetMediaSeconds(), m.GetCpuSeconds(), m.GetPrice())
	return tw.Flush()
}
