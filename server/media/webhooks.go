package media

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookendpoint"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/webhook"
)

// Limits of webhook endpoints (docs/limits.md).
const (
	// MaxWebhookEndpoints is how many endpoints one organisation keeps.
	MaxWebhookEndpoints = 20
	// MaxEndpointName bounds an endpoint's name, as Rendobar does.
	MaxEndpointName = 50
	// MaxEndpointDescription bounds an endpoint's description.
	MaxEndpointDescription = 500
)

// WebhookService is the WebhookService implementation: an organisation's
// endpoints.
type WebhookService struct {
	mediav1.UnimplementedWebhookServiceServer
	st *store.Store
	// checkURL refuses URLs kino may never call; nil refuses none.
	checkURL func(string) error
	log      *slog.Logger
}

// NewWebhookService returns the service; checkURL refuses URLs kino may
// never call (fetch.Client.CheckHost), nil none.
func NewWebhookService(st *store.Store, checkURL func(string) error, log *slog.Logger) *WebhookService {
	return &WebhookService{st: st, checkURL: checkURL, log: log}
}

// CreateWebhookEndpoint validates and stores an endpoint with a new secret,
// answered this once.
func (s *WebhookService) CreateWebhookEndpoint(ctx context.Context, req *mediav1.CreateWebhookEndpointRequest) (*mediav1.CreateWebhookEndpointResponse, error) {
	if problems := checkEndpoint(req); len(problems) > 0 {
		return nil, apierr.New(apierr.Validation, "%s", strings.Join(problems, "; "))
	}
	if err := webhook.CheckURL("url", req.GetUrl(), s.checkURL); err != nil {
		return nil, err
	}
	org := auth.Org(ctx)
	made, err := s.create(ctx, org, req)
	var known *apierr.Error
	if errors.As(err, &known) {
		return nil, err
	}
	if err != nil {
		s.log.ErrorContext(ctx, "store webhook endpoint", "err", err)
		return nil, apierr.Wrap(err, apierr.Internal, "the endpoint could not be stored; try again")
	}
	rec := endpointRecord(made)
	rec.SigningSecret = proto.String(made.Secret)
	return &mediav1.CreateWebhookEndpointResponse{Data: rec}, nil
}

// create stores a new endpoint of org unless it has the most it may:
// counted and stored in one transaction, one create of an organisation at
// a time (SQLite writes one at a time; on PostgreSQL a lock per
// organisation), so two creates at once cannot both take the last place.
func (s *WebhookService) create(ctx context.Context, org string, req *mediav1.CreateWebhookEndpointRequest) (*ent.WebhookEndpoint, error) {
	tx, err := s.st.Tx(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	if s.st.Dialect == dialect.Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "webhook-endpoints:"+org); err != nil {
			return nil, err
		}
	}
	n, err := tx.WebhookEndpoint.Query().Where(webhookendpoint.OrgID(org)).Count(ctx)
	if err != nil {
		return nil, err
	}
	if n >= MaxWebhookEndpoints {
		return nil, apierr.New(apierr.Validation, "the organisation has %d webhook endpoints, the most it may have; delete one first", n)
	}
	now := nowMs()
	made, err := tx.WebhookEndpoint.Create().
		SetID(ident.New(ident.Endpoint)).
		SetOrgID(org).SetName(req.GetName()).SetDescription(req.GetDescription()).
		SetURL(req.GetUrl()).SetEvents(dedupe(req.GetEvents())).SetSecret(webhook.NewSecret()).
		SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	return made, tx.Commit()
}

// checkEndpoint lists what is wrong with a new endpoint but its URL.
func checkEndpoint(req *mediav1.CreateWebhookEndpointRequest) []string {
	var out []string
	if req.GetUrl() == "" {
		out = append(out, "url: is required")
	}
	if len(req.GetEvents()) == 0 {
		out = append(out, "subscribedEvents: name at least one event: "+strings.Join(Events, ", "))
	}
	return append(out, checkFields(req.GetName(), req.GetDescription(), req.GetEvents())...)
}

// checkFields lists what is wrong with an endpoint's name, description
// and events.
func checkFields(name, description string, events []string) []string {
	var out []string
	if n := utf8.RuneCountInString(name); n > MaxEndpointName {
		out = append(out, fmt.Sprintf("name: must be at most %d characters (it has %d)", MaxEndpointName, n))
	}
	if n := utf8.RuneCountInString(description); n > MaxEndpointDescription {
		out = append(out, fmt.Sprintf("description: must be at most %d characters (it has %d)", MaxEndpointDescription, n))
	}
	for i, e := range events {
		if !slices.Contains(Events, e) {
			out = append(out, fmt.Sprintf("subscribedEvents[%d]: unknown event %q; the events are %s", i, e, strings.Join(Events, ", ")))
		}
	}
	return out
}

// UpdateWebhookEndpoint changes the fields given of an endpoint of the
// organisation, checked as a create checks them.
func (s *WebhookService) UpdateWebhookEndpoint(ctx context.Context, req *mediav1.UpdateWebhookEndpointRequest) (*mediav1.UpdateWebhookEndpointResponse, error) {
	e, err := s.get(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	if problems := checkFields(req.GetName(), req.GetDescription(), req.GetEvents()); len(problems) > 0 {
		return nil, apierr.New(apierr.Validation, "%s", strings.Join(problems, "; "))
	}
	u := s.st.WebhookEndpoint.UpdateOne(e).Where(webhookendpoint.OrgID(e.OrgID)).SetUpdatedAt(nowMs())
	if req.Url != nil {
		if err := webhook.CheckURL("url", req.GetUrl(), s.checkURL); err != nil {
			return nil, err
		}
		u.SetURL(req.GetUrl())
	}
	if len(req.GetEvents()) > 0 {
		u.SetEvents(dedupe(req.GetEvents()))
	}
	if req.Name != nil {
		u.SetName(req.GetName())
	}
	if req.Description != nil {
		u.SetDescription(req.GetDescription())
	}
	if req.Active != nil {
		u.SetActive(req.GetActive())
	}
	saved, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundEndpoint(req.GetId())
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the endpoint could not be changed; try again")
	}
	return &mediav1.UpdateWebhookEndpointResponse{Data: endpointRecord(saved)}, nil
}

// dedupe is events in their order, each once.
func dedupe(events []string) []string {
	var out []string
	for _, e := range events {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// ListWebhookEndpoints lists the organisation's endpoints, newest first.
func (s *WebhookService) ListWebhookEndpoints(ctx context.Context, _ *mediav1.ListWebhookEndpointsRequest) (*mediav1.ListWebhookEndpointsResponse, error) {
	eps, err := s.st.WebhookEndpoint.Query().Where(webhookendpoint.OrgID(auth.Org(ctx))).
		Order(ent.Desc(webhookendpoint.FieldCreatedAt), ent.Desc(webhookendpoint.FieldID)).All(ctx)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the endpoints could not be listed; try again")
	}
	resp := &mediav1.ListWebhookEndpointsResponse{Data: make([]*mediav1.WebhookEndpoint, 0, len(eps))}
	for _, e := range eps {
		resp.Data = append(resp.Data, endpointRecord(e))
	}
	return resp, nil
}

// GetWebhookEndpoint reads one endpoint of the organisation.
func (s *WebhookService) GetWebhookEndpoint(ctx context.Context, req *mediav1.GetWebhookEndpointRequest) (*mediav1.GetWebhookEndpointResponse, error) {
	e, err := s.get(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	return &mediav1.GetWebhookEndpointResponse{Data: endpointRecord(e)}, nil
}

// DeleteWebhookEndpoint removes an endpoint of the organisation; its
// pending deliveries are not sent (the dispatcher finds it gone).
func (s *WebhookService) DeleteWebhookEndpoint(ctx context.Context, req *mediav1.DeleteWebhookEndpointRequest) (*mediav1.DeleteWebhookEndpointResponse, error) {
	e, err := s.get(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	n, err := s.st.WebhookEndpoint.Delete().Where(webhookendpoint.ID(e.ID), webhookendpoint.OrgID(e.OrgID)).Exec(ctx)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the endpoint could not be deleted; try again")
	}
	if n == 0 {
		return nil, notFoundEndpoint(req.GetId())
	}
	return &mediav1.DeleteWebhookEndpointResponse{Data: endpointRecord(e)}, nil
}

func (s *WebhookService) get(ctx context.Context, id string) (*ent.WebhookEndpoint, error) {
	e, err := s.st.WebhookEndpoint.Query().Where(webhookendpoint.ID(id), webhookendpoint.OrgID(auth.Org(ctx))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundEndpoint(id)
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the endpoint could not be read; try again")
	}
	return e, nil
}

func notFoundEndpoint(id string) error {
	return apierr.New(apierr.NotFound, "no webhook endpoint has the id %q", id)
}

// endpointRecord is the wire form of an endpoint, without its secret.
func endpointRecord(e *ent.WebhookEndpoint) *mediav1.WebhookEndpoint {
	return &mediav1.WebhookEndpoint{
		Id: e.ID, OrgId: e.OrgID, Name: e.Name, Description: e.Description, Url: e.URL,
		Events: append([]string{}, e.Events...), Active: e.Active,
		CreatedAt: float64(e.CreatedAt), UpdatedAt: float64(e.UpdatedAt),
	}
}
