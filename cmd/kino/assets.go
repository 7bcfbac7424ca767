package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

const assetsUsage = `Usage:
  kino assets upload FILE --type image|psd_template|font|captions [--name N] [--category C] [--scope org|system]
  kino assets list [--type T] [--scope org|system] [--category C] [--limit N] [--offset N]

Flags (before or after the arguments):
`

func assetsCmd(args []string) error {
	fs, cf := newClientCommand("kino assets", assetsUsage)
	typ := fs.String("type", "", "asset type: image, psd_template, font or captions (SRT or WebVTT)")
	name := fs.String("name", "", "with upload: a name (default the file name)")
	category := fs.String("category", "", "apparel, drinkware, devices or print")
	scope := fs.String("scope", "", "org or system (system: the admin key)")
	limit, offset := addPageFlags(fs, "with list")
	verb, arg := parseVerb(fs, args)
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := mediav1.NewAssetServiceClient(conn)
	switch verb {
	case "upload":
		resp, err := upload(ctx, client, arg, &mediav1.AssetUpload{Type: *typ, Name: *name, Category: *category, Scope: *scope})
		if err != nil {
			return err
		}
		return printJSON(os.Stdout, resp)
	case "list":
		resp, err := client.ListAssets(ctx, &mediav1.ListAssetsRequest{Type: *typ, Scope: *scope, Category: *category, Limit: *limit, Offset: *offset})
		if err != nil {
			return clientError(err)
		}
		return printJSON(os.Stdout, resp)
	}
	usageExit(fs)
	return nil
}

// upload streams the file in chunks, as the gateway does.
func upload(ctx context.Context, client mediav1.AssetServiceClient, path string, info *mediav1.AssetUpload) (*mediav1.UploadAssetResponse, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info.Filename = filepath.Base(path)
	stream, err := client.UploadAsset(ctx)
	if err != nil {
		return nil, clientError(err)
	}
	if err := stream.Send(&mediav1.UploadAssetRequest{Part: &mediav1.UploadAssetRequest_Info{Info: info}}); err == nil {
		buf := make([]byte, 64<<10)
		for {
			n, rerr := f.Read(buf)
			if n > 0 {
				if stream.Send(&mediav1.UploadAssetRequest{Part: &mediav1.UploadAssetRequest_Chunk{Chunk: append([]byte(nil), buf[:n]...)}}) != nil {
					break
				}
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				return nil, fmt.Errorf("read %s: %w", path, rerr)
			}
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, clientError(err)
	}
	return resp, nil
}
