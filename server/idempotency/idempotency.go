// Package idempotency makes a submit with an Idempotency-Key happen once:
// a repeat with the same key and body within Window returns what the first
// one made, the same key with another body is IDEMPOTENCY_KEY_REUSED. Keys
// are per organisation. Renders, media jobs and pipeline runs use it; each
// keeps the key on the rows it creates, under a unique index of
// (organisation, key), which is what makes two concurrent submits make one
// thing.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/jobs"
)

// Header is the metadata key (and HTTP header) of idempotent submits.
const Header = "idempotency-key"

// Window is how long a key returns what it first made.
const Window = 24 * time.Hour

// MaxKey is the longest key, in bytes.
const MaxKey = 255

// Key reads the request's key: "" when it has none, a VALIDATION_ERROR
// when it is blank or longer than MaxKey.
func Key(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(Header)
	if len(vals) == 0 {
		return "", nil
	}
	key := strings.TrimSpace(vals[0])
	if key == "" || len(key) > MaxKey {
		return "", apierr.New(apierr.Validation, "Idempotency-Key: must be 1 to %d characters", MaxKey)
	}
	return key, nil
}

// Hash identifies a request: what it asks for (op, so that one key cannot
// serve two kinds of submit) and its message, marshalled deterministically.
// Renders pass op "": their hashes, stored before there were other kinds,
// are of the message alone.
func Hash(op string, m proto.Message) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("hash request: %w", err)
	}
	h := sha256.New()
	if op != "" {
		h.Write([]byte(op + "\x00"))
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Earlier is what an earlier request with the same key made.
type Earlier struct {
	// ID is the render, job or run, as the client knows it.
	ID        string
	Hash      string
	CreatedAt time.Time
}

// Submit is one submit under a key.
type Submit struct {
	Key, Hash string
	// Noun names what a submit makes ("render", "job", "run") in the
	// message of IDEMPOTENCY_KEY_REUSED.
	Noun string
	// Find looks up what an earlier request with Key made in the caller's
	// organisation; ok is false when nothing holds the key.
	Find func(ctx context.Context) (e Earlier, ok bool, err error)
	// Free takes the key off what e made, once it is older than Window.
	Free func(ctx context.Context, e Earlier) error
}

// Do returns the id of what an earlier request with the same key and body
// made within Window, with made false; or calls create, which stores the key
// with what it makes, and returns its id with made true. When create loses a
// race for the key (its error is jobs.ErrDuplicate), Do returns what the
// winner made. Without a key Do only calls create. Errors from Find and Free are TRIGGER_SUBMIT_FAILED;
// create's are returned as they are.
func Do(ctx context.Context, s Submit, create func(ctx context.Context) (string, error)) (id string, made bool, err error) {
	if s.Key != "" {
		if id, err := s.earlier(ctx); id != "" || err != nil {
			return id, false, err
		}
	}
	id, err = create(ctx)
	if err != nil {
		if s.Key != "" && errors.Is(err, jobs.ErrDuplicate) {
			// Another request with the same key won the race: answer as it did.
			if id, ferr := s.earlier(ctx); id != "" || ferr != nil {
				return id, false, ferr
			}
		}
		return "", false, err
	}
	return id, true, nil
}

func (s Submit) earlier(ctx context.Context) (string, error) {
	e, ok, err := s.Find(ctx)
	if err != nil {
		return "", apierr.Wrap(err, apierr.TriggerSubmitFailed, fmt.Sprintf("the %s could not be queued; try again", s.Noun))
	}
	if !ok {
		return "", nil
	}
	if time.Since(e.CreatedAt) > Window {
		if err := s.Free(ctx, e); err != nil {
			return "", apierr.Wrap(err, apierr.TriggerSubmitFailed, fmt.Sprintf("the %s could not be queued; try again", s.Noun))
		}
		return "", nil
	}
	if e.Hash != s.Hash {
		return "", apierr.New(apierr.IdempotencyKeyReused,
			"Idempotency-Key %q was already used with a different request body (%s %s); use a new key for a new %s", s.Key, s.Noun, e.ID, s.Noun)
	}
	return e.ID, nil
}
