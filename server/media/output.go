package media

import (
	"encoding/json"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/storage"
)

// jobError is the record's error object: the flat errorCode and
// errorMessage, whenever the job has them.
func jobError(j *jobs.Job) *mediav1.JobError {
	if j.ErrorCode == nil {
		return nil
	}
	e := &mediav1.JobError{Code: *j.ErrorCode}
	if j.ErrorMessage != nil {
		e.Message = *j.ErrorMessage
	}
	return e
}

// jobOutput is the record's output object, in Rendobar's shape, for a
// complete job: the primary output is file, every stored file is in
// files (the primary first, the files beside it, then the other outputs by
// field), the outputs that are values rather than files are data, and
// expiresAt is when the URLs made now stop working. meta is the job's
// outputMeta, read.
func jobOutput(st *storage.Storage, j *jobs.Job, meta map[string]any, url func(string) (string, error)) (*mediav1.JobOutput, error) {
	if j.State != jobs.Completed {
		return nil, nil
	}
	out := &mediav1.JobOutput{Files: []*mediav1.JobFile{}}
	for _, f := range storedFiles(j, meta) {
		u, err := url(f.Key)
		if err != nil {
			return nil, err
		}
		jf := &mediav1.JobFile{Url: u, Path: path.Base(f.Key), Type: fileType(f.ContentType, f.Key), Size: float64(f.Size)}
		if f.Field == mediajob.OutputField {
			jf.Meta = fileMeta(f.Key, meta)
			out.File = jf
		}
		out.Files = append(out.Files, jf)
	}
	if len(out.Files) > 0 {
		out.ExpiresAt = proto.Float64(float64(time.Now().Add(st.URLLifetime()).UnixMilli()))
	}
	if data := values(j.Type, meta); len(data) > 0 {
		s, err := structpb.NewStruct(data)
		if err == nil {
			out.Data = s
		}
	}
	return out, nil
}

// storedFiles are the job's files in the record's order. A job completed
// before kino recorded mediajob.MetaFiles has its outputs by field, the primary's
// size from outputMeta.
func storedFiles(j *jobs.Job, meta map[string]any) []mediajob.StoredFile {
	var files []mediajob.StoredFile
	if raw, ok := j.Metadata[mediajob.MetaFiles]; ok {
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &files)
	}
	if len(files) == 0 {
		for field, key := range j.Outputs {
			f := mediajob.StoredFile{Key: key, Field: field}
			if field == mediajob.OutputField {
				f.ContentType, _ = meta["contentType"].(string)
				if n, ok := meta["sizeBytes"].(float64); ok {
					f.Size = int64(n)
				}
			}
			files = append(files, f)
		}
	}
	rank := func(f mediajob.StoredFile) int {
		switch {
		case f.Field == mediajob.OutputField:
			return 0
		case f.Field == "":
			return 1
		}
		return 2
	}
	sort.SliceStable(files, func(a, b int) bool {
		if ra, rb := rank(files[a]), rank(files[b]); ra != rb {
			return ra < rb
		}
		if files[a].Field != files[b].Field {
			return outputOrder(files[a].Field) < outputOrder(files[b].Field)
		}
		return files[a].Key < files[b].Key
	})
	return files
}

// outputOrder sorts output fields as people number them: outputUrl2
// before outputUrl10.
func outputOrder(field string) string {
	digits := strings.TrimLeft(field, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	return field[:len(field)-len(digits)] + strings.Repeat("0", max(0, 6-len(digits))) + digits
}

// fileType is the File type's open enum, from the content type.
func fileType(contentType, key string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	switch {
	case mt == "application/vnd.apple.mpegurl" || mt == "application/x-mpegurl" || strings.HasSuffix(key, ".m3u8"):
		return "playlist"
	case strings.HasPrefix(mt, "video/"):
		return "video"
	case strings.HasPrefix(mt, "image/"):
		return "image"
	case strings.HasPrefix(mt, "audio/"):
		return "audio"
	case mt == "text/vtt" || mt == "application/x-subrip" || mt == "text/x-ssa":
		return "captions"
	case mt == "application/json":
		return "data"
	}
	return "other"
}

// fileMeta is what outputMeta says of the primary output, in the File
// type's names: format (the extension), width, height, durationMs.
func fileMeta(key string, meta map[string]any) *structpb.Struct {
	m := map[string]any{}
	if ext := strings.TrimPrefix(path.Ext(key), "."); ext != "" {
		m["format"] = ext
	}
	for _, k := range []string{"width", "height"} {
		if v, ok := meta[k].(float64); ok {
			m[k] = v
		}
	}
	if d, ok := meta["duration"].(float64); ok {
		m["durationMs"] = float64(int64(d*1000 + 0.5))
	}
	s, err := structpb.NewStruct(m)
	if err != nil {
		return nil
	}
	return s
}

// values are the outputs of the job's type that are not files (a
// transcript), by field, as outputMeta holds them.
func values(typ string, meta map[string]any) map[string]any {
	t, ok := catalog.Lookup(typ)
	if !ok {
		return nil
	}
	out := map[string]any{}
	for _, f := range t.Outputs {
		if v, ok := meta[f.Name]; ok && slices.Contains(f.Media, catalog.Text) {
			out[f.Name] = v
		}
	}
	return out
}
