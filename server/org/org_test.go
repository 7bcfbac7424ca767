package org

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseOverridesOnlyWhatIsGiven(t *testing.T) {
	t.Parallel()
	def := Policy{Weight: 1, Rate: 5, MaxQueued: 100, MaxRunning: 2, StorageQuota: 1 << 30}
	byOrg, err := Parse([]byte(`{"acme": {"weight": 3, "storageQuota": "2GiB"}, "beta": {"rate": 0}}`), def)
	require.NoError(t, err)
	p := New(def, byOrg)
	require.Equal(t, Policy{Weight: 3, Rate: 5, MaxQueued: 100, MaxRunning: 2, StorageQuota: 2 << 30}, p.For("acme"))
	require.Equal(t, Policy{Weight: 1, Rate: 0, MaxQueued: 100, MaxRunning: 2, StorageQuota: 1 << 30}, p.For("beta"))
	require.Equal(t, def, p.For("other"))
	require.Equal(t, []string{"acme", "beta"}, p.Listed())
}

func TestParseRefusesWhatCannotBeMeant(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"not an object":  `[1]`,
		"unknown field":  `{"acme": {"wieght": 2}}`,
		"zero weight":    `{"acme": {"weight": 0}}`,
		"negative rate":  `{"acme": {"rate": -1}}`,
		"bad size":       `{"acme": {"storageQuota": "lots"}}`,
		"bad org id":     `{"a b": {}}`,
		"negative queue": `{"acme": {"maxQueued": -3}}`,
	} {
		_, err := Parse([]byte(in), Policy{Weight: 1})
		require.Error(t, err, name)
	}
}

func TestReplaceAppliesAtOnceAndWeightIsAtLeastOne(t *testing.T) {
	t.Parallel()
	p := New(Policy{}, nil)
	require.Equal(t, 1, p.For("x").Weight)
	p.Replace(Policy{Weight: 1}, map[string]Policy{"x": {Weight: 4}})
	require.Equal(t, 4, p.For("x").Weight)
	require.Equal(t, 1, p.For("y").Weight)
}

func TestBurstIsTheRateRoundedDownAndAtLeastOne(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, Policy{}.Burst())
	require.Equal(t, 1, Policy{Rate: 0.5}.Burst())
	require.Equal(t, 10, Policy{Rate: 10.7}.Burst())
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"0": 0, "512": 512, "3KiB": 3 << 10, "2GiB": 2 << 30, "1TiB": 1 << 40,
		"50MB": 50e6, "500M": 500e6, "2GB": 2e9, "1.5GiB": 3 << 29, "4GiB": 4 << 30, "100 MiB": 100 << 20, "64kb": 64e3, " 1gib ": 1 << 30} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "-1", "MB", "5 apples", "9999999999999TiB", "5EiB", ".5GB", "1e9"} {
		_, err := ParseSize(in)
		require.Error(t, err, in)
	}
}
