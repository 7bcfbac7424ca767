package render

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/template"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/store"
)

// Limits of templates and their merge values.
const (
	maxTemplateName = 200
	maxMergeValues  = 100
	maxMergeValue   = 4096
	// maxMergeGrowth bounds how much longer the values make a
	// composition, every use of a placeholder counted.
	maxMergeGrowth = 2 << 20
)

// maxPlaceholderName bounds a placeholder's name.
const maxPlaceholderName = 64

// eachPlaceholder calls fn for every placeholder in s, left to right: {{NAME}}
// with NAME of letters, digits, _ . and -, starting with a letter or _, at
// most 64 long, spaces inside the braces allowed. start and end bound the
// whole placeholder. A hand-written scan rather than a regexp: one pass, and
// nothing allocated per placeholder, however many a string holds.
func eachPlaceholder(s string, fn func(start, end int, name string)) {
	for pos := 0; ; {
		i := strings.Index(s[pos:], "{{")
		if i < 0 {
			return
		}
		start := pos + i
		if end, name, ok := placeholderAt(s, start); ok {
			fn(start, end, name)
			pos = end
			continue
		}
		pos = start + 1
	}
}

// placeholderAt reads a placeholder that begins at s[start:], which holds "{{".
func placeholderAt(s string, start int) (end int, name string, ok bool) {
	i := skipSpace(s, start+2)
	n := i
	for n < len(s) && n-i < maxPlaceholderName && nameByte(s[n], n == i) {
		n++
	}
	if n == i {
		return 0, "", false
	}
	j := skipSpace(s, n)
	if !strings.HasPrefix(s[j:], "}}") {
		return 0, "", false
	}
	return j + 2, s[i:n], true
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v') {
		i++
	}
	return i
}

func nameByte(c byte, first bool) bool {
	switch {
	case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '_':
		return true
	case first:
		return false
	default:
		return c >= '0' && c <= '9' || c == '.' || c == '-'
	}
}

// TemplateService is the TemplateService implementation.
type TemplateService struct {
	renderv1.UnimplementedTemplateServiceServer
	st     *store.Store
	limits engine.Limits
	log    *slog.Logger
}

// NewTemplateService returns the service.
func NewTemplateService(st *store.Store, limits engine.Limits, log *slog.Logger) *TemplateService {
	return &TemplateService{st: st, limits: limits, log: log}
}

// walkStrings calls fn on every string value of a decoded JSON value (not
// on object keys) and stores what it returns in its place.
func walkStrings(v any, fn func(string) string) any {
	switch t := v.(type) {
	case string:
		return fn(t)
	case map[string]any:
		for k, e := range t {
			t[k] = walkStrings(e, fn)
		}
	case []any:
		for i, e := range t {
			t[i] = walkStrings(e, fn)
		}
	}
	return v
}

// occurrences counts the placeholders of a composition, by name.
func occurrences(composition []byte) (map[string]int, error) {
	var v any
	if err := json.Unmarshal(composition, &v); err != nil {
		return nil, err
	}
	count := map[string]int{}
	walkStrings(v, func(s string) string {
		eachPlaceholder(s, func(_, _ int, name string) { count[name]++ })
		return s
	})
	return count, nil
}

// placeholders are the sorted names of the placeholders in a composition.
func placeholders(composition []byte) ([]string, error) {
	count, err := occurrences(composition)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(count)), nil
}

// fill replaces every placeholder of a composition with what value gives;
// whole tells it the placeholder is the whole string (spaces aside). What
// value returns is put in as it is, never searched for placeholders again.
func fill(composition []byte, value func(name string, whole bool) string) ([]byte, error) {
	var v any
	if err := json.Unmarshal(composition, &v); err != nil {
		return nil, err
	}
	v = walkStrings(v, func(s string) string {
		// Once per string: per placeholder, a long string of many would
		// be scanned again for each.
		trimmed := strings.TrimSpace(s)
		whole := false
		if strings.HasPrefix(trimmed, "{{") {
			end, _, ok := placeholderAt(trimmed, 0)
			whole = ok && end == len(trimmed)
		}
		var b strings.Builder
		last := 0
		eachPlaceholder(s, func(start, end int, name string) {
			b.WriteString(s[last:start])
			b.WriteString(value(name, whole))
			last = end
		})
		if last == 0 {
			return s
		}
		b.WriteString(s[last:])
		return b.String()
	})
	return json.Marshal(v)
}

// CreateTemplate validates a composition with placeholders and stores it.
// Validation fills each placeholder with a stand-in (a URL where it is the
// whole string, as a src is; its name elsewhere), so a template is checked
// as thoroughly as a render request, field by field.
func (s *TemplateService) CreateTemplate(ctx context.Context, req *renderv1.CreateTemplateRequest) (*renderv1.CreateTemplateResponse, error) {
	name := strings.TrimSpace(req.GetName())
	if name == "" || len(name) > maxTemplateName {
		return nil, apierr.New(apierr.Validation, "name: is required, at most %d characters", maxTemplateName)
	}
	if req.GetComposition() == nil {
		return nil, apierr.New(apierr.Validation, "composition: is required")
	}
	composition, err := protojson.Marshal(req.GetComposition())
	if err != nil {
		return nil, apierr.New(apierr.Validation, "composition: %v", err)
	}
	standIn, err := fill(composition, func(name string, whole bool) string {
		if whole {
			return "https://template.kino.invalid/" + name
		}
		return name
	})
	if err != nil {
		return nil, apierr.New(apierr.Validation, "composition: is not valid JSON")
	}
	if _, err := engine.Compile(req.GetProvider(), standIn, req.GetAssetUrls(), s.limits); err != nil {
		return nil, renderjob.Invalid(err)
	}
	now := time.Now().UnixMilli()
	t, err := s.st.Template.Create().
		SetID(ident.New(ident.Template)).
		SetOrgID(auth.Org(ctx)).SetName(name).SetProvider(req.GetProvider()).
		SetComposition(composition).SetAssetUrls(req.GetAssetUrls()).
		SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		s.log.ErrorContext(ctx, "store template", "err", err)
		return nil, apierr.Wrap(err, apierr.TriggerSubmitFailed, "the template could not be stored; try again")
	}
	rec, err := templateRecord(t)
	if err != nil {
		return nil, err
	}
	return &renderv1.CreateTemplateResponse{Template: rec}, nil
}

// GetTemplate reads a template of the caller's organisation.
func (s *TemplateService) GetTemplate(ctx context.Context, req *renderv1.GetTemplateRequest) (*renderv1.GetTemplateResponse, error) {
	t, err := loadTemplate(ctx, s.st, req.GetId(), "id")
	if err != nil {
		return nil, err
	}
	rec, err := templateRecord(t)
	if err != nil {
		return nil, err
	}
	return &renderv1.GetTemplateResponse{Template: rec}, nil
}

// ListTemplates lists the caller's templates, newest first.
func (s *TemplateService) ListTemplates(ctx context.Context, req *renderv1.ListTemplatesRequest) (*renderv1.ListTemplatesResponse, error) {
	limit, offset := int(req.GetLimit()), int(req.GetOffset())
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > 100 {
		return nil, apierr.New(apierr.Validation, "limit: must be between 1 and 100")
	}
	if offset < 0 {
		return nil, apierr.New(apierr.Validation, "offset: must be 0 or more")
	}
	q := s.st.Template.Query().Where(template.OrgID(auth.Org(ctx)))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the templates could not be listed; try again")
	}
	ts, err := q.Order(ent.Desc(template.FieldCreatedAt), ent.Desc(template.FieldID)).Limit(limit).Offset(offset).All(ctx)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the templates could not be listed; try again")
	}
	resp := &renderv1.ListTemplatesResponse{Templates: []*renderv1.Template{}, Total: int32(total), Limit: int32(limit), Offset: int32(offset)}
	for _, t := range ts {
		rec, err := templateRecord(t)
		if err != nil {
			return nil, err
		}
		resp.Templates = append(resp.Templates, rec)
	}
	return resp, nil
}

// DeleteTemplate removes a template of the caller's organisation.
func (s *TemplateService) DeleteTemplate(ctx context.Context, req *renderv1.DeleteTemplateRequest) (*renderv1.DeleteTemplateResponse, error) {
	n, err := s.st.Template.Delete().Where(template.ID(req.GetId()), template.OrgID(auth.Org(ctx))).Exec(ctx)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the template could not be deleted; try again")
	}
	if n == 0 {
		return nil, apierr.New(apierr.NotFound, "no template has the id %q", req.GetId())
	}
	return &renderv1.DeleteTemplateResponse{}, nil
}

// loadTemplate reads a template of the caller's organisation; field names
// where the id came from, for messages.
func loadTemplate(ctx context.Context, st *store.Store, id, field string) (*ent.Template, error) {
	t, err := st.Template.Query().Where(template.ID(id), template.OrgID(auth.Org(ctx))).Only(ctx)
	if ent.IsNotFound(err) {
		if field == "id" {
			return nil, apierr.New(apierr.NotFound, "no template has the id %q", id)
		}
		return nil, apierr.New(apierr.Validation, "%s: no template has the id %q", field, id)
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the template could not be read; try again")
	}
	return t, nil
}

func templateRecord(t *ent.Template) (*renderv1.Template, error) {
	comp := &structpb.Struct{}
	if err := protojson.Unmarshal(t.Composition, comp); err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the template could not be read")
	}
	names, err := placeholders(t.Composition)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the template could not be read")
	}
	return &renderv1.Template{Id: t.ID, Name: t.Name, Provider: t.Provider, Composition: comp, AssetUrls: t.AssetUrls,
		Placeholders: names, CreatedAt: timestamp(t.CreatedAt), UpdatedAt: timestamp(t.UpdatedAt)}, nil
}

// fromTemplate makes the provider, composition and asset URLs of a render
// request that names a template: its placeholders filled from merge, which
// must give each one and nothing else.
func fromTemplate(ctx context.Context, st *store.Store, req *renderv1.SubmitRenderRequest) (string, []byte, map[string]string, error) {
	if req.GetComposition() != nil {
		return "", nil, nil, apierr.New(apierr.Validation, "composition: give either composition or template, not both")
	}
	t, err := loadTemplate(ctx, st, req.GetTemplate(), "template")
	if err != nil {
		return "", nil, nil, err
	}
	if p := req.GetProvider(); p != "" && p != t.Provider {
		return "", nil, nil, apierr.New(apierr.Validation, "provider: template %s is %q; leave provider out or give that", t.ID, t.Provider)
	}
	values := req.GetMerge()
	if len(values) > maxMergeValues {
		return "", nil, nil, apierr.New(apierr.Validation, "merge: has %d values; at most %d are allowed", len(values), maxMergeValues)
	}
	count, err := occurrences(t.Composition)
	if err != nil {
		return "", nil, nil, apierr.Wrap(err, apierr.Internal, "the template could not be read")
	}
	names := slices.Sorted(maps.Keys(count))
	var missing []string
	for _, n := range names {
		if _, ok := values[n]; !ok {
			missing = append(missing, "{{"+n+"}}")
		}
	}
	if len(missing) > 0 {
		return "", nil, nil, apierr.New(apierr.Validation, "merge: no value for %s", strings.Join(missing, ", "))
	}
	growth := 0
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if count[k] == 0 {
			return "", nil, nil, apierr.New(apierr.Validation, "merge.%s: template %s has no placeholder {{%s}} (it has %s)", k, t.ID, k, strings.Join(names, ", "))
		}
		if len(values[k]) > maxMergeValue {
			return "", nil, nil, apierr.New(apierr.Validation, "merge.%s: at most %d characters", k, maxMergeValue)
		}
		growth += count[k] * len(values[k])
	}
	// Counted before filling: a placeholder used a great many times would
	// otherwise make a small request a huge composition in memory.
	if growth > maxMergeGrowth {
		return "", nil, nil, apierr.New(apierr.Validation, "merge: the values would add %d bytes to the composition (each value once per use of its placeholder); at most %d are allowed", growth, maxMergeGrowth)
	}
	composition, err := fill(t.Composition, func(name string, _ bool) string { return values[name] })
	if err != nil {
		return "", nil, nil, apierr.Wrap(err, apierr.Internal, "the template could not be read")
	}
	assets := maps.Clone(t.AssetUrls)
	if assets == nil {
		assets = map[string]string{}
	}
	maps.Copy(assets, req.GetAssetUrls())
	return t.Provider, composition, assets, nil
}
