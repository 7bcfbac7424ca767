// Package s3test gives tests a private S3 bucket of their own: an
// S3-compatible server (versitygw, serving a temporary folder) started on
// loopback for the test. Without the versitygw binary the test is skipped,
// unless RequireEnv is set, as CI sets it: then the test fails.
package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"
)

// RequireEnv, when "1", turns a missing versitygw into a failure.
const RequireEnv = "KINO_REQUIRE_S3"

// Credentials of every test server. gocloud.dev's s3blob reads them from
// the AWS environment variables, which are process-wide: one pair for all
// servers lets parallel tests share them.
const (
	AccessKey = "kinotestaccesskey"
	SecretKey = "kinotestsecretkey0123456789"
	Region    = "us-east-1"
)

// Server is one running versitygw.
type Server struct {
	// Endpoint is its base URL, http://127.0.0.1:PORT.
	Endpoint string
	// Dir is the folder it serves: one sub-folder a bucket.
	Dir string
	cmd *exec.Cmd
}

// Bin finds the versitygw binary: on PATH, or where go install puts it.
func Bin() (string, bool) {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, true
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, d := range filepath.SplitList(strings.TrimSpace(string(out))) {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "versitygw")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}

// Available reports whether S3 tests can run; they must when RequireEnv is set.
func Available() bool {
	_, ok := Bin()
	return ok || os.Getenv(RequireEnv) == "1"
}

//nolint:gochecknoglobals // test helper: the S3 test server's environment, set once a test process
var envOnce sync.Once

// Start starts a server for the test, stopped when it ends; it skips the
// test when versitygw is missing (fails it when RequireEnv is set).
func Start(t testing.TB) *Server {
	t.Helper()
	bin, ok := Bin()
	if !ok {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("versitygw is not installed and %s=1: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0", RequireEnv)
		}
		t.Skip("versitygw is not installed: S3 tests skipped")
	}
	envOnce.Do(func() {
		os.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
		os.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
		os.Setenv("AWS_REGION", Region)
	})
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	// A free port, released just before versitygw binds it; a clash with
	// another process in between shows up as a failed start below, retried.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := launch(t, bin, dir, root)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("start versitygw: %v", lastErr)
	return nil
}

func launch(t testing.TB, bin, dir, root string) (*Server, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := lis.Addr().String()
	lis.Close()
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("versitygw-%s.log", strings.ReplaceAll(addr, ":", "-"))))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", addr, "posix", "--sidecar", filepath.Join(dir, "meta"), root)
	if err := os.MkdirAll(filepath.Join(dir, "meta"), 0o755); err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+AccessKey, "ROOT_SECRET_KEY="+SecretKey)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Killed with the test binary, should it die before the cleanup.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(exited)
	}()
	s := &Server{Endpoint: "http://" + addr, Dir: root, cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	// Up when it answers HTTP at all (403 to an unsigned request).
	deadline := time.Now().Add(15 * time.Second)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-exited:
			log, _ := os.ReadFile(logFile.Name())
			return nil, fmt.Errorf("versitygw exited: %s", tail(log))
		default:
		}
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("versitygw did not answer on %s within 15s: %w", addr, err)
		}
		<-poll.C
	}
}

func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// Client is an S3 client of the server, for what kino itself never does
// (creating buckets) and for checks of what it stored.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
}

// Bucket creates a new private bucket and returns its gocloud.dev URL.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := "kino-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:20]
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return s.URL(name)
}

// URL is the gocloud.dev URL of a bucket of the server.
func (s *Server) URL(bucket string) string {
	q := url.Values{}
	q.Set("endpoint", s.Endpoint)
	q.Set("region", Region)
	q.Set("use_path_style", "true")
	return "s3://" + bucket + "?" + q.Encode()
}

// BucketName returns the bucket of a URL that Bucket returned.
func BucketName(storageURL string) (string, error) {
	u, err := url.Parse(storageURL)
	if err != nil || u.Scheme != "s3" {
		return "", errors.New("not an s3:// URL")
	}
	return u.Host, nil
}
