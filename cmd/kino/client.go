package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// clientFlags are the flags every client subcommand shares.
type clientFlags struct {
	addr, apiKey *string
}

func addClientFlags(fs *flag.FlagSet) clientFlags {
	return clientFlags{
		addr:   fs.String("addr", "127.0.0.1:9090", "gRPC address of kino"),
		apiKey: fs.String("api-key", "", "API key of your organisation, when kino has keys"),
	}
}

// parseClient reads the flags (also after the arguments, and from the
// environment) and returns the positional arguments, exiting with the
// usage when there are not between min and max of them.
func parseClient(fs *flag.FlagSet, args []string, min, max int) []string {
	positional, err := parseInterspersed(fs, args)
	if err == nil {
		err = envFlags(fs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kino:", err)
		os.Exit(2)
	}
	if len(positional) < min || len(positional) > max {
		fs.Usage()
		os.Exit(2)
	}
	return positional
}

// dial connects to kino and returns a context that carries the API key.
func (c clientFlags) dial() (*grpc.ClientConn, context.Context, error) {
	conn, err := grpc.NewClient(*c.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", *c.addr, err)
	}
	ctx := context.Background()
	if *c.apiKey != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+*c.apiKey)
	}
	return conn, ctx, nil
}
