//go:build !linux && !darwin

package main

// quietTypeAhead leaves the terminal as it is where its settings are not
// known to this program.
func quietTypeAhead() (restore func()) { return func() {} }
