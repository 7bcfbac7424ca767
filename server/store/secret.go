package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
)

// SharedSecret returns the secret stored under name, creating a random
// one first if no node has yet: every node on the database reads the same
// value, so what one signs another verifies. Two nodes starting at once
// both insert; the one whose insert loses reads the winner's.
func (s *Store) SharedSecret(ctx context.Context, name string) ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("make secret %s: %w", name, err)
	}
	insertErr := s.Setting.Create().SetID(name).SetValue(base64.RawStdEncoding.EncodeToString(b)).
		OnConflict().DoNothing().Exec(ctx)
	// On a conflict (another node's secret is there) DoNothing reports
	// no rows on some drivers; the read below is what counts then. Any
	// other failure is reported: it is why the read finds nothing.
	if insertErr != nil && !errors.Is(insertErr, sql.ErrNoRows) {
		return nil, fmt.Errorf("store secret %s: %w", name, insertErr)
	}
	row, err := s.Setting.Get(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read secret %s: %w", name, err)
	}
	v, err := base64.RawStdEncoding.DecodeString(row.Value)
	if err != nil {
		return nil, fmt.Errorf("decode secret %s: %w", name, err)
	}
	return v, nil
}
