// Package auth maps API keys to organisations. Every request but the health
// check carries "Authorization: Bearer KEY" (gRPC metadata "authorization"
// over gRPC); the key's organisation scopes everything the request sees.
// With no keys configured kino runs in single-organisation mode.
package auth

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"os"
	"regexp"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/tap"

	"github.com/kinohq/kino/server/apierr"
)

// DefaultOrg is the organisation of single-organisation mode.
const DefaultOrg = "default"

var orgID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ParseKeys reads "key1=org1,key2=org2".
func ParseKeys(spec string) (map[string]string, error) {
	keys := map[string]string{}
	for _, part := range strings.Split(spec, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		if err := addKey(keys, part); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// ReadKeysFile reads one key=org a line; blank lines and # comments are skipped.
func ReadKeysFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read API keys: %w", err)
	}
	defer f.Close()
	keys := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := addKey(keys, line); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
	}
	return keys, sc.Err()
}

func addKey(keys map[string]string, entry string) error {
	key, org, ok := strings.Cut(strings.TrimSpace(entry), "=")
	key, org = strings.TrimSpace(key), strings.TrimSpace(org)
	// The key itself is never repeated in an error: errors get logged.
	switch {
	case !ok || key == "":
		return fmt.Errorf("an API key entry is not key=org")
	case len(key) < 16:
		return fmt.Errorf("the API key of organisation %q is shorter than 16 characters", org)
	case !orgID.MatchString(org):
		return fmt.Errorf("organisation %q: use letters, digits, _, . and - (at most 64)", org)
	}
	if _, dup := keys[key]; dup {
		return fmt.Errorf("an API key is listed twice")
	}
	keys[key] = org
	return nil
}

type entry struct {
	digest [32]byte
	org    string
}

// SystemOrg is the organisation of the admin key, which owns system assets.
const SystemOrg = "system"

// Authenticator checks keys and puts the organisation in the context.
type Authenticator struct {
	entries []entry
	admin   *[32]byte
	// public methods need no key.
	public map[string]bool
}

// New returns an authenticator for keys (key → organisation) and the admin
// key, which manages system assets. With no keys, every request belongs to
// DefaultOrg and may act as admin: a single-organisation kino trusts its callers.
func New(keys map[string]string, adminKey string, publicMethods ...string) *Authenticator {
	a := &Authenticator{public: map[string]bool{}}
	if adminKey != "" {
		d := sha256.Sum256([]byte(adminKey))
		a.admin = &d
	}
	for k, org := range keys {
		a.entries = append(a.entries, entry{digest: sha256.Sum256([]byte(k)), org: org})
	}
	for _, m := range publicMethods {
		a.public[m] = true
	}
	return a
}

// SingleOrg reports whether no keys are configured.
func (a *Authenticator) SingleOrg() bool { return len(a.entries) == 0 && a.admin == nil }

type orgKey struct{}

type adminKey struct{}

// Admin reports whether the request may manage system assets.
func Admin(ctx context.Context) bool {
	v, _ := ctx.Value(adminKey{}).(bool)
	return v
}

// WithAdmin marks ctx as the admin's.
func WithAdmin(ctx context.Context) context.Context {
	return context.WithValue(ctx, adminKey{}, true)
}

// Org is the organisation of the request.
func Org(ctx context.Context) string {
	if org, ok := ctx.Value(orgKey{}).(string); ok {
		return org
	}
	return DefaultOrg
}

// WithOrg returns ctx for the organisation, for tests and internal callers.
func WithOrg(ctx context.Context, org string) context.Context {
	return context.WithValue(ctx, orgKey{}, org)
}

// authenticate finds the organisation of the request's key.
func (a *Authenticator) authenticate(ctx context.Context, method string) (context.Context, error) {
	if a.SingleOrg() {
		return WithAdmin(WithOrg(ctx, DefaultOrg)), nil
	}
	if a.Public(method) {
		return ctx, nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	var header string
	if v := md.Get("authorization"); len(v) > 0 {
		header = v[0]
	}
	org, admin, err := a.Check(header)
	if err != nil {
		return nil, err
	}
	if admin {
		ctx = WithAdmin(ctx)
	}
	return WithOrg(ctx, org), nil
}

// Public reports whether a gRPC method needs no key.
func (a *Authenticator) Public(method string) bool {
	return a.public[method] || strings.HasPrefix(method, "/grpc.health.v1.") || strings.HasPrefix(method, "/grpc.reflection.")
}

// Check finds the organisation of an Authorization value ("Bearer KEY"),
// and whether the key is the admin key; an *apierr.Error with
// UNAUTHENTICATED when there is no key or an unknown one. Digests of
// equal length are compared in constant time against every key, so
// timing tells nothing about how close a guess was. In single-organisation
// mode every value is DefaultOrg's, acting as admin.
func (a *Authenticator) Check(authorization string) (org string, admin bool, err error) {
	if a.SingleOrg() {
		return DefaultOrg, true, nil
	}
	var token string
	scheme, rest, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		token = strings.TrimSpace(rest)
	}
	if token == "" {
		return "", false, apierr.New(apierr.Unauthenticated, "send an API key as Authorization: Bearer KEY")
	}
	d := sha256.Sum256([]byte(token))
	if a.admin != nil && subtle.ConstantTimeCompare(d[:], a.admin[:]) == 1 {
		return SystemOrg, true, nil
	}
	for _, e := range a.entries {
		if subtle.ConstantTimeCompare(d[:], e.digest[:]) == 1 {
			org = e.org
		}
	}
	if org == "" {
		return "", false, apierr.New(apierr.Unauthenticated, "the API key is not valid")
	}
	return org, false, nil
}

// Tap refuses a call without a valid key when its stream opens, from its
// headers alone: before the request message is read or decoded and before
// any interceptor runs, so an unauthenticated call costs no more than a
// digest. refused, when not nil, is told of each call refused (the
// interceptors that count calls never see it).
func (a *Authenticator) Tap(refused func(method string)) tap.ServerInHandle {
	return func(ctx context.Context, info *tap.Info) (context.Context, error) {
		if a.SingleOrg() || a.Public(info.FullMethodName) {
			return ctx, nil
		}
		var header string
		if v := info.Header.Get("authorization"); len(v) > 0 {
			header = v[0]
		}
		if _, _, err := a.Check(header); err != nil {
			if refused != nil {
				refused(info.FullMethodName)
			}
			return ctx, err
		}
		return ctx, nil
	}
}

// Unary is the interceptor of unary calls.
func (a *Authenticator) Unary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, err := a.authenticate(ctx, info.FullMethod)
		if err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// Stream is the interceptor of streaming calls.
func (a *Authenticator) Stream() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ctx, err := a.authenticate(ss.Context(), info.FullMethod)
		if err != nil {
			return err
		}
		return handler(srv, &orgStream{ServerStream: ss, ctx: ctx})
	}
}

type orgStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *orgStream) Context() context.Context { return s.ctx }
