//go:build race

package mockup

// raceEnabled: the race detector makes CPU time no measure of the work.
const raceEnabled = true
