package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"google.golang.org/grpc/metadata"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/storage"
)

// uploadChunk is the size of each message of an upload stream.
const uploadChunk = 64 << 10

// uploadHandler serves POST /assets: a multipart/form-data body with fields
// type, name, category and scope, then the file part "file", streamed to
// the UploadAsset RPC as it arrives; nothing holds the whole file.
type uploadHandler struct {
	client mediav1.AssetServiceClient
}

func (h *uploadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if v := r.Header.Get("Authorization"); v != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", v)
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		writeError(w, apierr.Validation, "Content-Type must be multipart/form-data, with the fields type, name, category, scope and then file")
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		writeBodyError(w, err, "the multipart body could not be read: "+err.Error())
		return
	}
	info := &mediav1.AssetUpload{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			writeError(w, apierr.Validation, "file: is required (send it as the last part)")
			return
		}
		if err != nil {
			writeBodyError(w, err, "the multipart body could not be read: "+err.Error())
			return
		}
		name := part.FormName()
		if name == "file" {
			info.Filename = part.FileName()
			h.stream(w, r, ctx, info, part)
			return
		}
		value, err := io.ReadAll(io.LimitReader(part, 1024))
		if err != nil {
			writeBodyError(w, err, "the multipart body could not be read")
			return
		}
		v := strings.TrimSpace(string(value))
		switch name {
		case "type":
			info.Type = v
		case "name":
			info.Name = v
		case "category":
			info.Category = v
		case "scope":
			info.Scope = v
		default:
			writeError(w, apierr.Validation, name+": unknown form field; use type, name, category, scope and file")
			return
		}
	}
}

func (h *uploadHandler) stream(w http.ResponseWriter, r *http.Request, ctx context.Context, info *mediav1.AssetUpload, body io.Reader) {
	stream, err := h.client.UploadAsset(ctx)
	if err != nil {
		writeStatusError(ctx, nil, nil, w, r, err)
		return
	}
	send := func(m *mediav1.UploadAssetRequest) bool {
		// A failed send means the server ended the stream; its answer
		// comes from CloseAndRecv.
		return stream.Send(m) == nil
	}
	if send(&mediav1.UploadAssetRequest{Part: &mediav1.UploadAssetRequest_Info{Info: info}}) && !pump(w, body, uploadChunk, func(chunk []byte) bool {
		return send(&mediav1.UploadAssetRequest{Part: &mediav1.UploadAssetRequest_Chunk{Chunk: chunk}})
	}) {
		return
	}
	resp, err := stream.CloseAndRecv()
	writeCreated(w, r, resp, err)
}

// contentHandler serves GET /assets/{id}/content: the asset is read through
// GetAsset, so the same organisation rules apply, then streamed from storage.
type contentHandler struct {
	client  mediav1.AssetServiceClient
	storage *storage.Storage
}

func (h *contentHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if v := r.Header.Get("Authorization"); v != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", v)
	}
	resp, err := h.client.GetAsset(ctx, &mediav1.GetAssetRequest{Id: r.PathValue("id")})
	if err != nil {
		writeStatusError(ctx, nil, nil, w, r, err)
		return
	}
	a := resp.GetData()
	rd, err := h.storage.NewReader(ctx, a.GetStorageKey())
	if err != nil {
		writeError(w, apierr.Internal, "the asset's file could not be read")
		return
	}
	defer rd.Close()
	var meta struct {
		ContentType string `json:"contentType"`
	}
	_ = json.Unmarshal([]byte(a.GetMetadata()), &meta)
	userContent(w.Header(), meta.ContentType, a.GetFilename(), true)
	http.ServeContent(w, r, a.GetFilename(), rd.ModTime(), rd)
}
