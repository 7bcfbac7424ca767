package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// clientFlags are the flags every client subcommand shares.
type clientFlags struct {
	addr, apiKey *string
}

// newClientCommand returns the flags of a client subcommand, --addr and
// --api-key among them; its -h prints usage, then the flags.
func newClientCommand(name, usage string) (*flag.FlagSet, clientFlags) {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs, clientFlags{
		addr:   fs.String("addr", "127.0.0.1:9090", "gRPC address of kino"),
		apiKey: fs.String("api-key", "", "API key of your organisation, when kino has keys"),
	}
}

// addPageFlags adds --limit and --offset, the page of the verbs that list
// (named by with: "with list").
func addPageFlags(fs *flag.FlagSet, with string) (limit, offset *string) {
	return fs.String("limit", "", with+": page size (default 50, at most 100)"),
		fs.String("offset", "", with+": how many to skip")
}

// parseVerb reads the flags (also after the arguments, and from the
// environment) and returns the verb and its argument: "list" takes none,
// every other verb one. Anything else prints the usage and exits.
func parseVerb(fs *flag.FlagSet, args []string) (verb, arg string) {
	positional, err := parseInterspersed(fs, args)
	if err == nil {
		err = envFlags(fs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kino:", err)
		os.Exit(2)
	}
	if len(positional) == 2 {
		arg = positional[1]
	}
	if len(positional) == 0 || len(positional) > 2 || (positional[0] == "list") != (arg == "") {
		usageExit(fs)
	}
	return positional[0], arg
}

// parseInterspersed lets flags stand after the positional arguments too.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// usageExit prints the usage and exits as flag does on a bad flag.
func usageExit(fs *flag.FlagSet) {
	fs.Usage()
	os.Exit(2)
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

// readRequest reads into req the JSON body of a request, from the file at
// path or, for "-", standard input; what names the request in errors.
func readRequest(path, what string, req proto.Message) error {
	b, err := readFile(path)
	if err != nil {
		return err
	}
	if err := protojson.Unmarshal(b, req); err != nil {
		return fmt.Errorf("%s is not %s: %w", path, what, err)
	}
	return nil
}

func readFile(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// progressRecord is a render's or a media job's record, as a watch sends it.
type progressRecord interface {
	proto.Message
	GetProgress() float64
	GetStatus() string
}

// followProgress prints the progress of each record recv returns until the
// stream ends: a bar on a terminal, one line per change otherwise. It
// returns the last record, and fails when there was none.
func followProgress[R progressRecord](out *os.File, id string, recv func() (R, error)) (R, error) {
	tty := isTerminal(out)
	var last R
	for {
		rec, err := recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if tty {
				fmt.Fprintln(out)
			}
			return last, clientError(err)
		}
		last = rec
		if tty {
			fmt.Fprintf(out, "\r%s %5.1f%% %-10s", bar(last.GetProgress(), 30), last.GetProgress(), last.GetStatus())
		} else {
			fmt.Fprintf(out, "%s %s %.1f%%\n", time.Now().Format(time.TimeOnly), last.GetStatus(), last.GetProgress())
		}
	}
	if tty {
		fmt.Fprintln(out)
	}
	// A nil record is not valid: none came, or a message without one.
	if !last.ProtoReflect().IsValid() {
		return last, fmt.Errorf("job %s: the stream ended without a record", id)
	}
	return last, nil
}
