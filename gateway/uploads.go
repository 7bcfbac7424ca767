package gateway

import (
	"net/http"

	"google.golang.org/grpc/metadata"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

// fileChunk is the size of each message of a file upload's stream: large
// enough that a 500 MB file is two thousand messages, small enough that
// four fit in the server's stream window (app's uploadWindow), so the
// gateway sends while the service writes.
const fileChunk = 256 << 10

// fileUploadHandler serves POST /uploads?filename=NAME: the body is the
// file, of any content type or none, streamed to the UploadFile RPC as it
// arrives; nothing holds the whole file. The body is read only once the
// server has answered the stream's headers, which it does after the
// interceptors checked the key and the service checked the name and the
// organisation's limits: a refused request costs no read of its body.
type fileUploadHandler struct {
	client mediav1.UploadServiceClient
}

func (h *fileUploadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if v := r.Header.Get("Authorization"); v != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", v)
	}
	stream, err := h.client.UploadFile(ctx)
	if err != nil {
		writeStatusError(ctx, nil, nil, w, r, err)
		return
	}
	info := &mediav1.UploadInfo{Filename: r.URL.Query().Get("filename"), ContentType: r.Header.Get("Content-Type"),
		DeclaredSize: max(r.ContentLength, 0)}
	sent := stream.Send(&mediav1.UploadFileRequest{Part: &mediav1.UploadFileRequest_Info{Info: info}}) == nil
	if sent {
		// A refusal ends the stream without headers: nil and the status.
		md, err := stream.Header()
		sent = err == nil && md != nil
	}
	if sent && !pump(w, r.Body, fileChunk, func(chunk []byte) bool {
		// A failed send means the server ended the stream; its answer
		// comes from CloseAndRecv.
		return stream.Send(&mediav1.UploadFileRequest{Part: &mediav1.UploadFileRequest_Chunk{Chunk: chunk}}) == nil
	}) {
		return
	}
	resp, err := stream.CloseAndRecv()
	writeCreated(w, r, resp, err)
}
