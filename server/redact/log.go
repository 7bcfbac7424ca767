package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler is a slog.Handler that writes through to another with Text
// applied to the message and to every value that prints as text: strings,
// errors and Stringers, inside groups too. A log line then never carries a
// credential a URL held, whichever code wrote it.
type Handler struct{ next slog.Handler }

// NewHandler returns next behind a Handler; next itself when it already is
// one.
func NewHandler(next slog.Handler) slog.Handler {
	if h, ok := next.(Handler); ok {
		return h
	}
	return Handler{next: next}
}

// Enabled reports whether next handles records at level.
func (h Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle writes r to next, redacted.
func (h Handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs returns a Handler whose next carries attrs, redacted.
func (h Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = attr(a)
	}
	return Handler{next: h.next.WithAttrs(red)}
}

// WithGroup returns a Handler whose next opens the group.
func (h Handler) WithGroup(name string) slog.Handler {
	return Handler{next: h.next.WithGroup(name)}
}

func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, ga := range g {
			red[i] = attr(ga)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, Text(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, Text(x.String()))
		default:
			// Other values keep their form unless their text holds a URL.
			if s := fmt.Sprint(x); Text(s) != s {
				return slog.String(a.Key, Text(s))
			}
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
