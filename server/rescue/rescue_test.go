package rescue_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/kinohq/kino/server/rescue"
)

// caught runs fn and returns what it panicked with, or nil.
func caught(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

func TestGroupRaisesAWorkersPanicInTheWaiter(t *testing.T) {
	t.Parallel()
	var g rescue.Group
	ran := make(chan int, 8)
	v := caught(func() {
		for i := range 8 {
			g.Go(func() {
				ran <- i
				if i == 5 {
					panic("injected") //nolint:forbidigo // deliberate: the recovery under test
				}
			})
		}
		g.Wait()
	})
	p, ok := v.(*rescue.Panic)
	require.True(t, ok, "%v", v)
	assert.Equal(t, "injected", p.Value)
	assert.Contains(t, p.Stack, "rescue_test.go", "the stack is where it happened")
	assert.Len(t, ran, 8, "every worker ran; Wait waited for them all")
}

func TestErrgroupPanicsBecomeErrorsThenPanics(t *testing.T) {
	t.Parallel()
	var g errgroup.Group
	g.Go(rescue.Func(func() error { var m map[string]int; m["x"] = 1; return nil })) //nolint:staticcheck // deliberate: a runtime panic under test
	err := g.Wait()
	var p *rescue.Panic
	require.True(t, errors.As(err, &p), "%v", err)
	v := caught(func() { rescue.Raise(err) })
	assert.Same(t, p, v)
	assert.Nil(t, caught(func() { rescue.Raise(errors.New("a plain failure")) }))
}
