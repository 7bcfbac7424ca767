package usage

import (
	"context"
	"log/slog"
	"sort"
	"time"

	"github.com/kinohq/kino/ent"
	entusage "github.com/kinohq/kino/ent/usage"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/store"
)

// MaxDays is the longest range of days one GET /usage answers.
const MaxDays = 366

// DefaultDays is the range answered when from is not given: 30 days up
// to to.
const DefaultDays = 30

// Service answers GET /usage.
type Service struct {
	mediav1.UnimplementedUsageServiceServer
	st  *store.Store
	log *slog.Logger
}

// NewService returns the usage service over the ledger in st.
func NewService(st *store.Store, log *slog.Logger) *Service {
	return &Service{st: st, log: log}
}

// GetUsage adds up the caller's organisation's ledger by day and type.
func (s *Service) GetUsage(ctx context.Context, req *mediav1.GetUsageRequest) (*mediav1.GetUsageResponse, error) {
	from, to, err := Range(req.GetFrom(), req.GetTo(), time.Now())
	if err != nil {
		return nil, err
	}
	rows, err := Totals(ctx, s.st.Client, auth.Org(ctx), from, to)
	if err != nil {
		s.log.Error("read usage", "err", err)
		return nil, apierr.Wrap(err, apierr.Internal, "the usage could not be read; try again")
	}
	meta := &mediav1.UsageMeta{From: from, To: to}
	for _, r := range rows {
		meta.Jobs += r.Jobs
		meta.MediaSeconds += r.MediaSeconds
		meta.CpuSeconds += r.CpuSeconds
		meta.Price += r.Price
	}
	if rows == nil {
		rows = []*mediav1.UsageRow{}
	}
	return &mediav1.GetUsageResponse{Data: rows, Meta: meta}, nil
}

// Range reads a range of UTC days given as 2006-01-02, both included:
// to defaults to now's day, from to DefaultDays days up to to.
func Range(from, to string, now time.Time) (string, string, error) {
	end := now.UTC().Truncate(24 * time.Hour)
	if to != "" {
		t, err := time.Parse(time.DateOnly, to)
		if err != nil {
			return "", "", apierr.New(apierr.Validation, "to: %q is not a day; give it as YYYY-MM-DD (UTC), such as %s", to, end.Format(time.DateOnly))
		}
		end = t
	}
	start := end.AddDate(0, 0, -(DefaultDays - 1))
	if from != "" {
		t, err := time.Parse(time.DateOnly, from)
		if err != nil {
			return "", "", apierr.New(apierr.Validation, "from: %q is not a day; give it as YYYY-MM-DD (UTC), such as %s", from, start.Format(time.DateOnly))
		}
		start = t
	}
	switch {
	case start.After(end):
		return "", "", apierr.New(apierr.Validation, "from: %s is after to (%s); give from on or before to", start.Format(time.DateOnly), end.Format(time.DateOnly))
	case end.Sub(start) >= MaxDays*24*time.Hour:
		return "", "", apierr.New(apierr.Validation, "from: the range from %s to %s is over %d days; ask for a shorter one", start.Format(time.DateOnly), end.Format(time.DateOnly), MaxDays)
	}
	return start.Format(time.DateOnly), end.Format(time.DateOnly), nil
}

// Totals adds up org's ledger from day from to day to (2006-01-02, both
// included), by day and type, in that order.
func Totals(ctx context.Context, db *ent.Client, org, from, to string) ([]*mediav1.UsageRow, error) {
	// Sums are read as floats: PostgreSQL sums integers as numeric.
	var sums []struct {
		Day          string  `json:"day"`
		Type         string  `json:"type"`
		Jobs         float64 `json:"jobs"`
		MediaSeconds float64 `json:"media_seconds"`
		CPUSeconds   float64 `json:"cpu_seconds"`
		Price        float64 `json:"price"`
	}
	err := db.Usage.Query().
		Where(entusage.OrgID(org), entusage.DayGTE(from), entusage.DayLTE(to)).
		GroupBy(entusage.FieldDay, entusage.FieldType).
		Aggregate(ent.As(ent.Sum(entusage.FieldJobs), "jobs"), ent.As(ent.Sum(entusage.FieldMediaSeconds), "media_seconds"),
			ent.As(ent.Sum(entusage.FieldCPUSeconds), "cpu_seconds"), ent.As(ent.Sum(entusage.FieldPrice), "price")).
		Scan(ctx, &sums)
	if err != nil {
		return nil, err
	}
	rows := make([]*mediav1.UsageRow, 0, len(sums))
	for _, s := range sums {
		rows = append(rows, &mediav1.UsageRow{Day: s.Day, Type: s.Type, Jobs: int32(s.Jobs), MediaSeconds: s.MediaSeconds,
			CpuSeconds: s.CPUSeconds, Price: s.Price})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Day != rows[j].Day {
			return rows[i].Day < rows[j].Day
		}
		return rows[i].Type < rows[j].Type
	})
	return rows, nil
}
