// Package upload keeps the files clients send with POST /uploads for a
// while (--upload-lifetime), so their jobs and renders can read them by
// URL: the body is streamed to storage under the organisation's own
// prefix, a row counts it against the organisation's storage quota, and a
// sweeper deletes both once the upload has expired.
package upload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc/metadata"

	"github.com/kinohq/kino/ent"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/quota"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// The defaults of Config.
const (
	// DefaultMaxBytes is the largest upload unless configured: 2 GiB, the
	// input limit of Rendobar's paid plan, enough for tens of minutes of
	// 1080p video.
	DefaultMaxBytes = 2 << 30
	// DefaultLifetime is how long an upload lives unless configured, as
	// Rendobar's uploads do.
	DefaultLifetime = 24 * time.Hour
)

// maxFilename is the longest file name, in bytes: the name is the last
// element of the object's key, which a local bucket keeps as a file beside
// "NAME.attrs" and "NAME.<16 hex digits>.tmp", within 255 bytes.
const maxFilename = 200

// Config is what the service needs.
type Config struct {
	Store   *store.Store
	Storage *storage.Storage
	// Quota counts each upload as a submit of its organisation's rate and
	// its bytes against its storage quota; nil limits nothing.
	Quota *quota.Limiter
	// MaxBytes is the largest upload (DefaultMaxBytes when 0).
	MaxBytes int64
	// Lifetime is how long an upload lives (DefaultLifetime when 0).
	Lifetime time.Duration
	// Now is the clock (time.Now when nil); tests move it.
	Now func() time.Time
	Log *slog.Logger
}

// Service is the UploadService implementation.
type Service struct {
	mediav1.UnimplementedUploadServiceServer
	cfg Config
}

// New returns the service.
func New(cfg Config) *Service {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Lifetime <= 0 {
		cfg.Lifetime = DefaultLifetime
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg}
}

// UploadFile stores one file. The authentication interceptor has checked
// the key before this runs; the description and the limits are checked
// next, and only then are the stream's headers sent, which is the
// gateway's signal to start reading the request's body.
func (s *Service) UploadFile(stream mediav1.UploadService_UploadFileServer) error {
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return apierr.New(apierr.Validation, "the upload ended before its description")
	}
	info := first.GetInfo()
	if info == nil {
		return apierr.New(apierr.Validation, "the first message of an upload describes the file")
	}
	filename, err := Filename(info.GetFilename())
	if err != nil {
		return err
	}
	org := auth.Org(ctx)
	if n := info.GetDeclaredSize(); n > s.cfg.MaxBytes {
		return s.tooLarge(n)
	}
	if err := s.cfg.Quota.Take(ctx, org); err != nil {
		return err
	}
	if err := s.cfg.Quota.Room(ctx, org, info.GetDeclaredSize()); err != nil {
		return err
	}
	// Everything that can be refused before the body is: the client may
	// send it now.
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}

	id := ident.New(ident.Upload)
	key := fmt.Sprintf("%s%s/%s/%s", storage.UploadsPrefix, org, id, filename)
	body := &chunks{stream: stream, limit: s.cfg.MaxBytes}
	head, err := body.head(sniffLen)
	if err != nil {
		return s.bodyError(err)
	}
	if len(head) == 0 {
		return apierr.New(apierr.Validation, "the body is empty: send the file's bytes as the request body")
	}
	contentType := ContentType(info.GetContentType(), filename, head)
	size, err := s.cfg.Storage.Put(ctx, key, io.MultiReader(bytes.NewReader(head), body), contentType)
	if err != nil {
		s.remove(ctx, key)
		return s.bodyError(err)
	}
	now := s.cfg.Now()
	expires := now.Add(s.cfg.Lifetime)
	var row *ent.Upload
	err = s.cfg.Quota.Keep(ctx, s.cfg.Store.Client, org, size, func(tx *ent.Tx) error {
		row, err = tx.Upload.Create().SetID(id).SetOrgID(org).SetFilename(filename).SetContentType(contentType).
			SetSize(size).SetStorageKey(key).SetCreatedAt(now.UnixMilli()).SetExpiresAt(expires.UnixMilli()).Save(ctx)
		return err
	})
	if err != nil {
		s.remove(ctx, key)
		var refused *apierr.Error
		if errors.As(err, &refused) {
			return err
		}
		return apierr.Wrap(err, apierr.Internal, "the upload could not be recorded; try again")
	}
	r, err := s.record(row)
	if err != nil {
		s.remove(ctx, key)
		return err
	}
	s.cfg.Log.InfoContext(ctx, "file uploaded", "upload_id", id, "org", org, "bytes", size, "content_type", contentType)
	return stream.SendAndClose(&mediav1.UploadFileResponse{Data: r})
}

// record is the wire form of an upload, with its signed URL.
func (s *Service) record(u *ent.Upload) (*mediav1.Upload, error) {
	url, err := s.cfg.Storage.SignedURL(u.StorageKey, time.UnixMilli(u.ExpiresAt))
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the upload's URL could not be made")
	}
	return &mediav1.Upload{Id: u.ID, Filename: u.Filename, Size: float64(u.Size), ContentType: u.ContentType,
		DownloadUrl: url, ExpiresAt: float64(u.ExpiresAt)}, nil
}

func (s *Service) tooLarge(n int64) error {
	return apierr.New(apierr.FileTooLarge, "the file is larger than the upload limit of %d bytes (%d bytes sent or declared)", s.cfg.MaxBytes, n)
}

// bodyError is the answer to a body that could not be stored: over the
// limit, cut short by the client, or a storage failure.
func (s *Service) bodyError(err error) error {
	var big *overLimit
	switch {
	case errors.As(err, &big):
		return s.tooLarge(big.n)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	var refused *apierr.Error
	if errors.As(err, &refused) {
		return err
	}
	if _, ok := statusOf(err); ok {
		return err // the stream's own error: the client went away
	}
	return apierr.Wrap(err, apierr.Internal, "the file could not be stored; try again")
}

// remove deletes what a failed upload stored, even when it failed because
// its client went away.
func (s *Service) remove(ctx context.Context, key string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := s.cfg.Storage.Delete(ctx, key); err != nil {
		s.cfg.Log.WarnContext(ctx, "remove file of a failed upload", "key", key, "err", err)
	}
}

// Filename is the name an upload is stored under: the last element of
// what the client sent (a path from a client's disk keeps its base name),
// refused with a VALIDATION_ERROR naming filename when storage cannot hold it.
func Filename(raw string) (string, error) {
	name := raw
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	switch {
	case strings.TrimSpace(raw) == "":
		return "", apierr.New(apierr.Validation, "filename: is required: POST /uploads?filename=NAME")
	case name == "" || name == "." || name == ".." || len(name) > maxFilename:
		return "", apierr.New(apierr.Validation, "filename: must name a file in 1 to %d bytes", maxFilename)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl):
		return "", apierr.New(apierr.Validation, "filename: must be UTF-8 text without control characters")
	case strings.HasSuffix(strings.ToLower(name), ".attrs"):
		// A local bucket keeps each object's attributes in "KEY.attrs".
		return "", apierr.New(apierr.Validation, "filename: may not end in \".attrs\"")
	}
	return name, nil
}
