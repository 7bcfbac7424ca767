package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

const uploadUsage = `Usage:
  kino upload FILE [--filename NAME] [--content-type TYPE]

Stores FILE for a while (kino's --upload-lifetime, 24 h by default), as
POST /uploads does, and prints it with its downloadUrl: give that URL as a
job's input or a render's source.

Flags (before or after the argument):
`

func uploadCmd(args []string) error {
	fs, cf := newClientCommand("kino upload", uploadUsage)
	name := fs.String("filename", "", "the name to store it under (default the file's own)")
	contentType := fs.String("content-type", "", "its content type (default: sniffed from its bytes and name)")
	path := oneArg(fs, args)
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	resp, err := uploadFile(ctx, mediav1.NewUploadServiceClient(conn), path, *name, *contentType)
	if err != nil {
		return err
	}
	return printJSON(os.Stdout, resp)
}

// oneArg reads the flags and the one positional argument.
func oneArg(fs *flag.FlagSet, args []string) string {
	positional, err := parseInterspersed(fs, args)
	if err == nil {
		err = envFlags(fs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kino:", err)
		os.Exit(2)
	}
	if len(positional) != 1 {
		usageExit(fs)
	}
	return positional[0]
}

// uploadFile streams the file to UploadFile: its description, then, once
// the server has accepted it (the stream's headers), its bytes.
func uploadFile(ctx context.Context, client mediav1.UploadServiceClient, path, name, contentType string) (*mediav1.UploadFileResponse, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = filepath.Base(path)
	}
	return uploadReader(ctx, client, f, st.Size(), name, contentType)
}

// uploadReader streams size bytes of r to UploadFile under name (size -1
// when unknown); what names r in errors.
func uploadReader(ctx context.Context, client mediav1.UploadServiceClient, r io.Reader, size int64, name, contentType string) (*mediav1.UploadFileResponse, error) {
	stream, err := client.UploadFile(ctx)
	if err != nil {
		return nil, clientError(err)
	}
	info := &mediav1.UploadInfo{Filename: name, ContentType: contentType}
	if size >= 0 {
		info.DeclaredSize = size
	}
	ok := stream.Send(&mediav1.UploadFileRequest{Part: &mediav1.UploadFileRequest_Info{Info: info}}) == nil
	if ok {
		md, err := stream.Header()
		ok = err == nil && md != nil
	}
	if ok {
		buf := make([]byte, 256<<10)
		for {
			n, rerr := r.Read(buf)
			if n > 0 && stream.Send(&mediav1.UploadFileRequest{Part: &mediav1.UploadFileRequest_Chunk{Chunk: append([]byte(nil), buf[:n]...)}}) != nil {
				break
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				return nil, fmt.Errorf("read %s: %w", name, rerr)
			}
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, clientError(err)
	}
	return resp, nil
}
