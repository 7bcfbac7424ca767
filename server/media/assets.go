package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/asset"
	"github.com/kinohq/kino/ent/predicate"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	kinoasset "github.com/kinohq/kino/server/asset"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/memory"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/mockup"
	"github.com/kinohq/kino/server/paging"
	"github.com/kinohq/kino/server/quota"
	"github.com/kinohq/kino/server/share"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/usage"
)

// The enums of the asset interface.
//
//nolint:gochecknoglobals // read-only tables: the documented asset types, scopes and categories
var (
	// AssetTypes are the interface's three and kino's own captions (SRT
	// or WebVTT files, for a render's captions layer).
	AssetTypes = []string{"psd_template", "image", "font", "captions"}
	Scopes     = []string{"org", "system"}
	Categories = []string{"apparel", "drinkware", "devices", "print"}
)

// The defaults of UploadOptions.
const (
	// DefaultMaxUpload caps an upload unless configured.
	DefaultMaxUpload = 100 << 20
	// DefaultUploadWorkers is how many uploads are probed and thumbnailed
	// at once: each takes a core, and up to a few hundred MB for a
	// picture at the pixel limit.
	DefaultUploadWorkers = 2
	// DefaultUploadTimeout caps one upload's probe and thumbnail; a
	// picture at the pixel limit takes a few seconds.
	DefaultUploadTimeout = time.Minute
)

// maxFilename is the longest file name, in bytes: the name is the last
// element of the object's key, and a local bucket keeps it as a file
// beside "NAME.attrs" and, while writing, "NAME.<16 hex digits>.tmp",
// which must fit the file system's 255 bytes.
const maxFilename = 200

// thumbnailWidth is the largest width of a thumbnail, in pixels.
const thumbnailWidth = 320

// UploadOptions bound uploads.
type UploadOptions struct {
	// TempDir is where uploads are spooled.
	TempDir string
	// MaxBytes is the largest upload (DefaultMaxUpload when 0).
	MaxBytes int64
	// Workers is how many uploads are probed and thumbnailed at once
	// (DefaultUploadWorkers when 0); the others wait for one to finish.
	Workers int
	// Timeout caps one upload's probe and thumbnail, and, apart, its wait
	// for a worker (DefaultUploadTimeout when 0).
	Timeout time.Duration
	// Pool, when set, is the workers' pool, shared between organisations
	// by their weights and caps (Workers is then unused); nil makes one
	// of Workers where every organisation weighs 1.
	Pool *share.Pool
	// Quota counts each upload as a submit of its organisation's rate and
	// its bytes against its storage quota; nil limits nothing.
	Quota *quota.Limiter
	// Usage records the CPU time of each upload's reading of its file
	// (usage.TypeUpload); nil records nothing.
	Usage *usage.Recorder
	// FFmpeg are the node's limits of the ffmpeg and ffprobe that read
	// uploads, and of the pictures and templates kino decodes itself.
	FFmpeg ffmpeg.Limits
	// Memory gives back the heap that reading templates grew.
	Memory *memory.Releaser
}

// AssetService is the AssetService implementation.
type AssetService struct {
	mediav1.UnimplementedAssetServiceServer
	st      *store.Store
	storage *storage.Storage
	opts    UploadOptions
	// workers holds a slot for each upload being probed or thumbnailed,
	// shared fairly between organisations.
	workers *share.Pool
	log     *slog.Logger
}

// NewAssetService returns the service.
func NewAssetService(st *store.Store, storage *storage.Storage, opts UploadOptions, log *slog.Logger) *AssetService {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxUpload
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultUploadWorkers
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultUploadTimeout
	}
	pool := opts.Pool
	if pool == nil {
		pool = share.New(opts.Workers, nil)
	}
	return &AssetService{st: st, storage: storage, opts: opts, workers: pool, log: log}
}

func enum(name, v string, allowed []string) error {
	if v != "" && !slices.Contains(allowed, v) {
		return apierr.New(apierr.Validation, "%s: must be one of %s", name, strings.Join(allowed, ", "))
	}
	return nil
}

// ListAssets lists the caller's assets, or the system's with scope=system.
func (s *AssetService) ListAssets(ctx context.Context, req *mediav1.ListAssetsRequest) (*mediav1.ListAssetsResponse, error) {
	limit, offset, err := paging.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	for _, e := range []error{enum("type", req.GetType(), AssetTypes), enum("scope", req.GetScope(), Scopes), enum("category", req.GetCategory(), Categories)} {
		if e != nil {
			return nil, e
		}
	}
	where := []predicate.Asset{}
	if req.GetScope() == "system" {
		where = append(where, asset.ScopeEQ(asset.ScopeSystem))
	} else {
		where = append(where, asset.ScopeEQ(asset.ScopeOrg), asset.OrgID(auth.Org(ctx)))
	}
	if t := req.GetType(); t != "" {
		where = append(where, asset.TypeEQ(asset.Type(t)))
	}
	if c := req.GetCategory(); c != "" {
		where = append(where, asset.CategoryEQ(asset.Category(c)))
	}
	data, total, err := s.list(ctx, where, limit, offset)
	if err != nil {
		return nil, err
	}
	return &mediav1.ListAssetsResponse{Data: data, Meta: &mediav1.AssetListMeta{Total: int32(total), Limit: int32(limit), Offset: int32(offset)}}, nil
}

// ListTemplates lists the system PSD templates.
func (s *AssetService) ListTemplates(ctx context.Context, req *mediav1.ListTemplatesRequest) (*mediav1.ListTemplatesResponse, error) {
	limit, offset, err := paging.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	if err := enum("category", req.GetCategory(), Categories); err != nil {
		return nil, err
	}
	where := []predicate.Asset{asset.ScopeEQ(asset.ScopeSystem), asset.TypeEQ(asset.TypePsdTemplate)}
	if c := req.GetCategory(); c != "" {
		where = append(where, asset.CategoryEQ(asset.Category(c)))
	}
	data, total, err := s.list(ctx, where, limit, offset)
	if err != nil {
		return nil, err
	}
	return &mediav1.ListTemplatesResponse{Data: data, Meta: &mediav1.AssetListMeta{Total: int32(total), Limit: int32(limit), Offset: int32(offset)}}, nil
}

func (s *AssetService) list(ctx context.Context, where []predicate.Asset, limit, offset int) ([]*mediav1.Asset, int, error) {
	total, err := s.st.Asset.Query().Where(where...).Count(ctx)
	if err != nil {
		return nil, 0, apierr.Wrap(err, apierr.Internal, "the assets could not be listed; try again")
	}
	rows, err := s.st.Asset.Query().Where(where...).
		Order(ent.Desc(asset.FieldCreatedAt), ent.Desc(asset.FieldID)).Limit(limit).Offset(offset).All(ctx)
	if err != nil {
		return nil, 0, apierr.Wrap(err, apierr.Internal, "the assets could not be listed; try again")
	}
	out := make([]*mediav1.Asset, 0, len(rows))
	for _, a := range rows {
		r, err := s.record(ctx, a)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	return out, total, nil
}

// GetAsset reads an asset of the caller's organisation, or a system asset.
func (s *AssetService) GetAsset(ctx context.Context, req *mediav1.GetAssetRequest) (*mediav1.GetAssetResponse, error) {
	a, err := s.visible(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	r, err := s.record(ctx, a)
	if err != nil {
		return nil, err
	}
	return &mediav1.GetAssetResponse{Data: r}, nil
}

func (s *AssetService) visible(ctx context.Context, id string) (*ent.Asset, error) {
	a, err := kinoasset.Visible(ctx, s.st, auth.Org(ctx), id)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.AssetNotFound, "no asset has the id %q", id)
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the asset could not be read; try again")
	}
	return a, nil
}

// DeleteAsset removes an asset and its files.
func (s *AssetService) DeleteAsset(ctx context.Context, req *mediav1.DeleteAssetRequest) (*mediav1.DeleteAssetResponse, error) {
	a, err := s.visible(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	// A system asset is visible to all but only the admin may remove it;
	// to anyone else it answers as if it did not exist to be deleted.
	if a.Scope == asset.ScopeSystem && !auth.Admin(ctx) {
		return nil, apierr.New(apierr.AssetNotFound, "no asset of your organisation has the id %q", a.ID)
	}
	if err := s.st.Asset.DeleteOne(a).Exec(ctx); err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the asset could not be deleted; try again")
	}
	for _, key := range []string{a.StorageKey, deref(a.ThumbnailKey)} {
		if key != "" {
			if err := s.storage.Delete(ctx, key); err != nil {
				s.log.WarnContext(ctx, "remove file of a deleted asset", "asset_id", a.ID, "key", key, "err", err)
			}
		}
	}
	return &mediav1.DeleteAssetResponse{Data: assetRecord(a)}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// UploadAsset spools the file to disk (never whole in memory), checks its
// content against the declared type, stores it, and makes a thumbnail of
// images and templates; captions are parsed instead. A refused upload
// leaves nothing in storage.
func (s *AssetService) UploadAsset(stream mediav1.AssetService_UploadAssetServer) (err error) {
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return apierr.New(apierr.Validation, "the upload ended before its description")
	}
	info := first.GetInfo()
	if info == nil {
		return apierr.New(apierr.Validation, "the first message of an upload describes the file")
	}
	filename, name, scope, err := checkUpload(ctx, info)
	if err != nil {
		return err
	}
	org := auth.Org(ctx)
	// An upload is a submit: it takes a worker to probe and thumbnail.
	if err := s.opts.Quota.Take(ctx, org); err != nil {
		return err
	}

	dir, err := os.MkdirTemp(s.opts.TempDir, "upload-")
	if err != nil {
		return apierr.Wrap(err, apierr.Internal, "the upload could not be stored")
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "file")
	size, head, err := s.receive(stream, info.GetType(), path)
	if err != nil {
		return err
	}
	if err := s.opts.Quota.Room(ctx, org, size); err != nil {
		return err
	}
	kind, ok := sniff(head)
	if !ok {
		return apierr.New(apierr.Validation, "file: is not a PSD, PNG, JPEG, WebP, TTF, OTF, WOFF2, SRT or WebVTT file")
	}
	if kind.Type != info.GetType() {
		return apierr.New(apierr.Validation, "type: the file is %s, which makes a %s asset, not a %s", strings.ToUpper(kind.Format), kind.Type, info.GetType())
	}

	// Reading the file (a template drawn in kino's process, a picture's
	// probe and thumbnail) is the organisation's CPU time, recorded
	// however the upload ends.
	ctx, used := meter.With(ctx)
	defer func() { s.recordUse(ctx, org, used, err) }()
	id := ident.New(ident.Asset)
	meta := map[string]any{"format": kind.Format, "contentType": kind.ContentType}
	status := asset.StatusReady
	var thumb string
	switch kind.Type {
	case "font":
	case "captions":
		n, err := checkCaptions(path, size)
		if err != nil {
			return err
		}
		meta["cues"] = n
	case "psd_template":
		// kino's own reader and compositor: a template is ready only when
		// a mockup can be drawn from it, and its thumbnail is that drawing.
		manifest, t, err := s.template(ctx, path, dir)
		if err != nil {
			return s.templateError(ctx, err)
		}
		// The manifest's fields sit beside format and contentType.
		b, err := manifestJSON(manifest)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return apierr.Wrap(err, apierr.Internal, "the template's description could not be written")
		}
		thumb = t
	default:
		w, h, t, err := s.picture(ctx, path, dir)
		var refused *ffmpeg.InputError
		switch {
		case errors.As(err, &refused):
			return apierr.New(apierr.Validation, "file: %s", refused.Reason)
		case ctx.Err() != nil:
			return grpcstatus.FromContextError(ctx.Err()).Err()
		case errors.Is(err, errBusy):
			return s.busy()
		case err != nil:
			// Stored all the same, so the user can fetch what they sent and
			// see why it failed.
			status = asset.StatusFailed
			meta["error"] = err.Error()
		default:
			meta["width"], meta["height"] = w, h
			thumb = t
		}
	}

	// The original keeps its name in its key, and the thumbnail lives
	// beside the asset's folder, not in it: no file name can be the
	// thumbnail's.
	key := fmt.Sprintf("assets/%s/%s/%s", org, id, filename)
	var thumbKey *string
	var stored []string
	done := false
	defer func() {
		if !done {
			s.remove(ctx, id, stored)
		}
	}()
	if thumb != "" {
		tk := fmt.Sprintf("assets/%s/%s.thumbnail.png", org, id)
		if err := s.storage.Upload(ctx, tk, thumb, "image/png"); err != nil {
			return apierr.Wrap(err, apierr.Internal, "the thumbnail could not be stored; try again")
		}
		stored = append(stored, tk)
		thumbKey = &tk
	}
	if err := s.storage.Upload(ctx, key, path, kind.ContentType); err != nil {
		return apierr.Wrap(err, apierr.Internal, "the file could not be stored; try again")
	}
	stored = append(stored, key)
	metaJSON, _ := json.Marshal(meta)
	now := nowMs()
	a, err := s.recordAsset(ctx, org, size, func(c *ent.AssetClient) *ent.AssetCreate {
		create := c.Create().SetID(id).SetOrgID(org).SetType(asset.Type(kind.Type)).SetName(name).
			SetFilename(filename).SetStorageKey(key).SetFileSize(size).SetMetadata(string(metaJSON)).
			SetScope(asset.Scope(scope)).SetStatus(status).SetNillableThumbnailKey(thumbKey).
			SetCreatedAt(now).SetUpdatedAt(now)
		if c := info.GetCategory(); c != "" {
			create.SetCategory(asset.Category(c))
		}
		return create
	})
	if err != nil {
		return err
	}
	done = true
	s.log.InfoContext(ctx, "asset uploaded", "asset_id", a.ID, "org", org, "type", a.Type, "status", a.Status, "bytes", size)
	r, err := s.record(ctx, a)
	if err != nil {
		return err
	}
	return stream.SendAndClose(&mediav1.UploadAssetResponse{Data: r})
}

// receive spools the upload's file to path and returns its size and first
// bytes; an empty file is refused.
func (s *AssetService) receive(stream mediav1.AssetService_UploadAssetServer, typ, path string) (int64, []byte, error) {
	// A file declared as captions is cut at their limit, not the upload's:
	// whatever it really is, it cannot make a captions asset past it.
	limit, what := s.opts.MaxBytes, "the upload limit"
	if typ == "captions" && limit > engine.MaxCaptionBytes {
		limit, what = engine.MaxCaptionBytes, "the captions limit"
	}
	size, head, err := s.spool(stream, path, limit, what)
	if err != nil {
		return 0, nil, err
	}
	if size == 0 {
		return 0, nil, apierr.New(apierr.Validation, "file: is empty")
	}
	return size, head, nil
}

// recordAsset saves the asset build makes, its size counted against
// org's storage quota in the same transaction, so that two uploads cannot
// both fit in the room of one; a refusal is QUOTA_EXCEEDED.
func (s *AssetService) recordAsset(ctx context.Context, org string, size int64, build func(*ent.AssetClient) *ent.AssetCreate) (*ent.Asset, error) {
	var a *ent.Asset
	err := s.opts.Quota.Keep(ctx, s.st.Client, org, size, func(tx *ent.Tx) error {
		var err error
		a, err = build(tx.Asset).Save(ctx)
		return err
	})
	var refused *apierr.Error
	if errors.As(err, &refused) {
		return nil, err
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the asset could not be recorded; try again")
	}
	return a, nil
}

// checkUpload checks an upload's description and returns the file's name
// as stored, the asset's name and its scope.
func checkUpload(ctx context.Context, info *mediav1.AssetUpload) (filename, name, scope string, err error) {
	filename = filepath.Base(strings.ReplaceAll(info.GetFilename(), "\\", "/"))
	scope = info.GetScope()
	if scope == "" {
		scope = "org"
	}
	name = info.GetName()
	if name == "" {
		name = filename
	}
	if !slices.Contains(AssetTypes, info.GetType()) {
		return "", "", "", apierr.New(apierr.Validation, "type: must be one of %s", strings.Join(AssetTypes, ", "))
	}
	if err := checkFilename(filename); err != nil {
		return "", "", "", err
	}
	if len(name) > 200 {
		return "", "", "", apierr.New(apierr.Validation, "name: must be at most 200 characters")
	}
	if err := enum("category", info.GetCategory(), Categories); err != nil {
		return "", "", "", err
	}
	if err := enum("scope", scope, Scopes); err != nil {
		return "", "", "", err
	}
	if scope == "system" && !auth.Admin(ctx) {
		return "", "", "", apierr.New(apierr.Validation, "scope: system assets are uploaded with the admin key")
	}
	return filename, name, scope, nil
}

// checkCaptions parses an SRT or WebVTT upload as a render will, so that a
// captions asset a render names always reads, and returns its cue count.
// The size limit is the captions layer's.
func checkCaptions(path string, size int64) (int, error) {
	if size > engine.MaxCaptionBytes {
		return 0, apierr.New(apierr.Validation, "file: is %d bytes; a captions file is at most %d", size, engine.MaxCaptionBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, apierr.Wrap(err, apierr.Internal, "the upload could not be read")
	}
	cues, err := engine.ParseCues(data)
	if err != nil {
		return 0, apierr.New(apierr.Validation, "file: %s", err.Error())
	}
	if len(cues) == 0 {
		return 0, apierr.New(apierr.Validation, "file: has no cue with text to show")
	}
	return len(cues), nil
}

// checkFilename refuses the file names storage cannot hold as the last
// element of a key, with a message naming the field. The name is already
// one path element (no slash).
func checkFilename(name string) error {
	switch {
	case name == "" || name == "." || name == "/" || len(name) > maxFilename:
		return apierr.New(apierr.Validation, "file: needs a file name of 1 to %d bytes", maxFilename)
	case name == "..":
		return apierr.New(apierr.Validation, "file: the file name must name a file, not \".\" or \"..\"")
	case !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl):
		return apierr.New(apierr.Validation, "file: the file name must be UTF-8 text without control characters")
	case strings.HasSuffix(strings.ToLower(name), ".attrs"):
		// A local bucket keeps each object's attributes in "KEY.attrs".
		return apierr.New(apierr.Validation, "file: the file name may not end in \".attrs\"")
	}
	return nil
}

// remove deletes what a failed upload stored, even when the upload failed
// because its client went away.
func (s *AssetService) remove(ctx context.Context, id string, keys []string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	for _, key := range keys {
		if err := s.storage.Delete(ctx, key); err != nil {
			s.log.WarnContext(ctx, "remove file of a failed upload", "asset_id", id, "key", key, "err", err)
		}
	}
}

// spool writes the chunks to path, up to limit bytes (what names the
// limit), and returns the size and the first bytes.
func (s *AssetService) spool(stream mediav1.AssetService_UploadAssetServer, path string, limit int64, what string) (int64, []byte, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, nil, apierr.Wrap(err, apierr.Internal, "the upload could not be stored")
	}
	defer f.Close()
	var (
		size int64
		head []byte
	)
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, nil, err
		}
		chunk := msg.GetChunk()
		size += int64(len(chunk))
		if size > limit {
			return 0, nil, apierr.New(apierr.Validation, "file: is larger than %s of %d bytes", what, limit)
		}
		if len(head) < sniffLen {
			head = append(head, chunk[:min(len(chunk), sniffLen-len(head))]...)
		}
		if _, err := f.Write(chunk); err != nil {
			return 0, nil, apierr.Wrap(err, apierr.Internal, "the upload could not be stored")
		}
	}
	return size, head, f.Close()
}

// busy is the answer to an upload that found no worker in time.
func (s *AssetService) busy() error {
	return apierr.Retry(uploadRetryAfter, apierr.Unavailable, "no upload worker of this node was free for your organisation within %s (--upload-workers %d, shared between organisations); try again", s.opts.Timeout, s.workers.Size())
}

// errBusy is an upload that waited longer than the time limit for a worker.
var errBusy = errors.New("no upload worker is free")

// templateError is the answer to an upload whose template could not be
// read: the file's fault (400) only when the file itself is refused, so
// that the same file is accepted or refused the same way whatever the
// load.
func (s *AssetService) templateError(ctx context.Context, err error) error {
	var refused *ffmpeg.InputError
	switch {
	case errors.As(err, &refused):
		return apierr.New(apierr.Validation, "file: %s", refused.Reason)
	case errors.Is(err, mockup.ErrRefused):
		return apierr.New(apierr.Validation, "file: %s", err.Error())
	case ctx.Err() != nil:
		return grpcstatus.FromContextError(ctx.Err()).Err()
	case errors.Is(err, errBusy):
		return s.busy()
	case errors.Is(err, errSlow):
		// Within the budgets, so kino's load made it late: the same file
		// is accepted when asked again.
		return apierr.New(apierr.Unavailable, "kino could not read and draw the template within %s; try again", s.opts.Timeout)
	}
	return apierr.Wrap(err, apierr.Internal, "the template could not be read; try again")
}

// uploadRetryAfter is the Retry-After of an upload that found every
// upload worker busy for the whole time limit: the node's load, not the
// client's fault.
const uploadRetryAfter = 5 * time.Second

// errSlow is a template that took longer than the time limit to inspect.
var errSlow = errors.New("the template took too long")

// acquire takes an upload worker of org's share, waiting at most the time
// limit, and returns its release.
func (s *AssetService) acquire(ctx context.Context, org string) (func(), error) {
	wait, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	release, err := s.workers.Acquire(wait, org)
	switch {
	case err == nil:
		return release, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return nil, errBusy
}

// template reads a PSD template with kino's reader, checks that kino can
// draw it within its budgets (mockup.Open: refused from the file's
// structure alone, so the same file is always accepted or refused alike),
// and draws its thumbnail from the template as it is, on one of the
// upload workers. The drawing stops when the client leaves or the time
// limit is up, and its CPU time goes to ctx's meter.
func (s *AssetService) template(ctx context.Context, path, dir string) (*mockup.Manifest, string, error) {
	if err := ffmpeg.CheckHeader(s.opts.FFmpeg, path); err != nil {
		return nil, "", err
	}
	release, err := s.acquire(ctx, auth.Org(ctx))
	if err != nil {
		return nil, "", err
	}
	defer release()
	// Reading and drawing a template may grow the heap by gigabytes; it
	// goes back to the system when the upload is done.
	defer s.opts.Memory.Release()
	ictx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	m, thumb, err := inspect(ictx, path, dir, s.opts.FFmpeg.WithDefaults().MaxPixels)
	switch {
	case err == nil:
		return m, thumb, nil
	case ctx.Err() != nil:
		return nil, "", ctx.Err()
	case ictx.Err() != nil:
		return nil, "", errSlow
	}
	return nil, "", err
}

// inspect is inspectTemplate on the calling goroutine, metered; a panic
// in the reader or the compositor (a file they did not foresee) refuses
// this upload instead of stopping the server.
func inspect(ctx context.Context, path, dir string, maxPixels int64) (m *mockup.Manifest, thumb string, err error) {
	defer meter.Thread(ctx)()
	defer func() {
		if r := recover(); r != nil {
			m, thumb, err = nil, "", fmt.Errorf("%w: kino could not draw it: %v", mockup.ErrRefused, r)
		}
	}()
	return inspectTemplate(ctx, path, dir, maxPixels)
}

// maxManifestBytes bounds a template's manifest: it is the asset's
// metadata, returned with the asset in every list of assets, so a file of
// long names and texts (its paths alone may take 16 MiB) must not make each
// page of a list that large. 2,000 layers of ordinary names take about
// 300 KB.
const maxManifestBytes = 1 << 20

// manifestJSON is a template's manifest as its metadata, refused when over
// maxManifestBytes.
func manifestJSON(m *mockup.Manifest) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the template's manifest could not be written")
	}
	if len(b) > maxManifestBytes {
		return nil, apierr.New(apierr.Validation, "file: the template's layer names and texts take %d bytes, over the limit of %d; shorten them or merge layers", len(b), maxManifestBytes)
	}
	return b, nil
}

// inspectTemplate decodes a template, draws it as it is and writes the
// drawing, thumbnail-sized, as a PNG in dir.
func inspectTemplate(ctx context.Context, path, dir string, maxPixels int64) (*mockup.Manifest, string, error) {
	tpl, closer, err := mockup.Load(path, maxPixels)
	if err != nil {
		return nil, "", err
	}
	defer closer.Close()
	img, _, err := tpl.RenderContext(ctx, mockup.Options{})
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", mockup.ErrRefused, err)
	}
	thumb := filepath.Join(dir, "thumbnail.png")
	f, err := os.Create(thumb)
	if err != nil {
		return nil, "", err
	}
	if err := mockup.EncodePNGContext(ctx, f, mockup.Resize(img, min(thumbnailWidth, img.Bounds().Dx()))); err != nil {
		f.Close()
		return nil, "", err
	}
	if err := f.Close(); err != nil {
		return nil, "", err
	}
	return &tpl.Manifest, thumb, nil
}

// recordUse writes what reading an upload's file used into the ledger.
func (s *AssetService) recordUse(ctx context.Context, org string, m *meter.Meter, err error) {
	if s.opts.Usage == nil {
		return
	}
	state := "completed"
	if err != nil {
		state = "failed"
	}
	w := usage.Work{Org: org, Kind: usage.KindUpload, Type: usage.TypeUpload, State: state, CPU: m.Used().CPU}
	if uerr := s.opts.Usage.Work(ctx, s.st.Client, w); uerr != nil {
		s.log.ErrorContext(ctx, "record an upload's usage", "err", uerr)
	}
}

// picture reads an upload's picture size and makes its thumbnail, on one
// of the upload workers and within the time limit. A picture kino will not
// open (too many pixels, read from its header before anything decodes it)
// is an *ffmpeg.InputError.
func (s *AssetService) picture(ctx context.Context, path, dir string) (w, h int, thumb string, err error) {
	release, err := s.acquire(ctx, auth.Org(ctx))
	if err != nil {
		return 0, 0, "", err
	}
	defer release()

	pctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	w, h, thumb, err = thumbnail(pctx, s.opts.FFmpeg, path, dir)
	if err != nil && pctx.Err() != nil && ctx.Err() == nil {
		return 0, 0, "", fmt.Errorf("the picture took longer than the limit of %s to process", s.opts.Timeout)
	}
	return w, h, thumb, err
}

// thumbnail probes the picture at path and scales it to a PNG in dir,
// opened as the format probed, never guessed.
func thumbnail(ctx context.Context, lim ffmpeg.Limits, path, dir string) (int, int, string, error) {
	info, err := ffmpeg.ProbeFast(ctx, lim, path)
	var refused *ffmpeg.InputError
	if errors.As(err, &refused) {
		return 0, 0, "", err
	}
	if err != nil || info.Video() == nil || info.Video().Width == 0 {
		return 0, 0, "", errors.New("the image could not be decoded: ffprobe found no picture")
	}
	thumb := filepath.Join(dir, "thumbnail.png")
	args := append(ffmpeg.InputArgs(lim, info, path),
		"-vf", fmt.Sprintf("scale='min(%d,iw)':-2", thumbnailWidth), "-frames:v", "1", "file:"+thumb)
	if err := ffmpeg.Run(ctx, args, ffmpeg.RunOptions{Limits: lim, Dir: dir}); err != nil {
		var fe *ffmpeg.Error
		if errors.As(err, &fe) {
			return 0, 0, "", fmt.Errorf("the image could not be decoded: %s", fe.LastLine())
		}
		return 0, 0, "", fmt.Errorf("the image could not be decoded: %w", err)
	}
	return info.Video().Width, info.Video().Height, thumb, nil
}

// record is the wire form of an asset, with its thumbnail's URL made
// now, signed where storage needs it.
func (s *AssetService) record(ctx context.Context, a *ent.Asset) (*mediav1.Asset, error) {
	r := assetRecord(a)
	if a.ThumbnailKey != nil {
		u, err := s.storage.URL(ctx, *a.ThumbnailKey)
		if err != nil {
			return nil, apierr.Wrap(err, apierr.Internal, "the thumbnail URL could not be made")
		}
		r.ThumbnailUrl = proto.String(u)
	}
	return r, nil
}

// assetRecord is the wire form of an asset without URLs: the thumbnail of
// a deleted asset has gone with it.
func assetRecord(a *ent.Asset) *mediav1.Asset {
	r := &mediav1.Asset{
		Id: a.ID, OrgId: a.OrgID, Type: string(a.Type), Name: a.Name, Filename: a.Filename, StorageKey: a.StorageKey,
		FileSize: float64(a.FileSize), Metadata: a.Metadata, Scope: string(a.Scope), Status: string(a.Status),
		ThumbnailKey: a.ThumbnailKey, CreatedAt: float64(a.CreatedAt), UpdatedAt: float64(a.UpdatedAt),
	}
	if a.Category != nil {
		r.Category = proto.String(string(*a.Category))
	}
	return r
}
