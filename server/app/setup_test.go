package app_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/storage/s3test"
	"github.com/kinohq/kino/server/store/storetest"
)

// setup is the database and bucket of one run of a test.
type setup struct {
	db storetest.DB
	// storageURL is empty for the local bucket, an s3:// URL for a
	// private bucket of a test S3 server.
	storageURL string
	s3         *s3test.Server
}

// start starts a kino on the setup's database and bucket.
func (s setup) start(t *testing.T, mutate func(*app.Config)) *kino {
	t.Helper()
	return start(t, s.db, func(c *app.Config) {
		c.StorageURL = s.storageURL
		if mutate != nil {
			mutate(c)
		}
	})
}

// eachSetup runs fn as parallel subtests on every database with the local
// bucket (storetest.Each) and, when an S3 server can run (s3test), on
// SQLite with a private S3 bucket: what differs on S3 is storage, not the
// database, so one database is enough there.
func eachSetup(t *testing.T, fn func(t *testing.T, s setup)) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) { fn(t, setup{db: db}) })
	if !s3test.Available() {
		t.Log("S3 runs skipped: versitygw is not installed")
		return
	}
	t.Run("s3", func(t *testing.T) {
		t.Parallel()
		srv := s3test.Start(t)
		fn(t, setup{db: storetest.SQLite(t), storageURL: srv.Bucket(t), s3: srv})
	})
}

// stored reports whether the setup's bucket holds an object at key, read
// from the bucket itself rather than through kino.
func (k *kino) stored(t *testing.T, su setup, key string) bool {
	t.Helper()
	if su.s3 == nil {
		_, err := os.Stat(filepath.Join(k.cfg.DataDir, "outputs", filepath.FromSlash(key)))
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		require.NoError(t, err)
		return true
	}
	bucket, err := s3test.BucketName(su.storageURL)
	require.NoError(t, err)
	_, err = su.s3.Client().HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	var nf *s3types.NotFound
	if errors.As(err, &nf) {
		return false
	}
	require.NoError(t, err)
	return true
}
