package app

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAfterWorkLeavesTheCommitterFree: what follows a commit runs off the
// committing goroutine (a request's), and close waits for it: nothing is lost.
func TestAfterWorkLeavesTheCommitterFree(t *testing.T) {
	t.Parallel()
	var w afterWork
	release, done := make(chan struct{}), make(chan struct{})
	w.run(func() { <-release; close(done) }) // returns although fn blocks
	closed := make(chan struct{})
	go func() { w.close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("close returned before the work ended")
	case <-done:
		t.Fatal("the work ended before it was released")
	default:
	}
	close(release)
	<-closed
	<-done
	ran := false
	w.run(func() { ran = true })
	assert.True(t, ran, "after close, work runs at once in the caller")
}
