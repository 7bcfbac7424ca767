package main

import (
	"os"
	"strings"

	"google.golang.org/protobuf/proto"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

const webhooksUsage = `Usage:
  kino webhooks create URL --events E1,E2 [--name N] [--description D]
  kino webhooks list
  kino webhooks get ID
  kino webhooks delete ID

The organisation's webhook endpoints (as /webhooks/endpoints): each is sent
the events it names, signed with its own secret, which create prints once.
Events: job.completed, job.failed, job.cancelled, pipeline.run.completed,
pipeline.run.failed, pipeline.run.cancelled (docs/webhooks.md).
Flags (before or after the arguments):
`

func webhooksCmd(args []string) error {
	fs, cf := newClientCommand("kino webhooks", webhooksUsage)
	events := fs.String("events", "", "with create: the events it is sent, comma-separated")
	name := fs.String("name", "", "with create: a label, up to 50 characters")
	description := fs.String("description", "", "with create: up to 500 characters")
	verb, arg := parseVerb(fs, args)
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := mediav1.NewWebhookServiceClient(conn)
	var resp proto.Message
	switch verb {
	case "create":
		var list []string
		for e := range strings.SplitSeq(*events, ",") {
			if e = strings.TrimSpace(e); e != "" {
				list = append(list, e)
			}
		}
		resp, err = client.CreateWebhookEndpoint(ctx, &mediav1.CreateWebhookEndpointRequest{Url: arg, Events: list, Name: *name, Description: *description})
	case "list":
		resp, err = client.ListWebhookEndpoints(ctx, &mediav1.ListWebhookEndpointsRequest{})
	case "get":
		resp, err = client.GetWebhookEndpoint(ctx, &mediav1.GetWebhookEndpointRequest{Id: arg})
	case "delete":
		resp, err = client.DeleteWebhookEndpoint(ctx, &mediav1.DeleteWebhookEndpointRequest{Id: arg})
	default:
		usageExit(fs)
	}
	if err != nil {
		return clientError(err)
	}
	return printJSON(os.Stdout, resp)
}
