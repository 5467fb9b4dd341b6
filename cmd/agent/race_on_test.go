//go:build race

package main

// raceBuilt says this test binary was built with -race (make test's unit
// step), so an "agent" that is this binary pays the race detector's cost.
const raceBuilt = true
