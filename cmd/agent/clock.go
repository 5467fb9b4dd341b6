package main

import (
	"time"
)

// testNowVar names an instant the program takes for its start: its clock
// is then that instant advancing at the system clock's pace. It is for
// tests that need another minute or day without waiting for one (git has
// GIT_TEST_DATE_NOW for the same reason): the end-to-end test starts a
// chat "in the next minute" to show that a session's start time stays out
// of the fixed prompt, which otherwise slept up to a minute for each of
// three templates (issue 51). Only what the program shows or stores as
// "now" follows it; deadlines and timeouts keep the real clock.
const testNowVar = "AGENT_TEST_NOW"

// clock is the program's clock: time.Now, or the instant in AGENT_TEST_NOW
// (RFC 3339) moving on from when this was called.
func clock(getenv func(string) string) (func() time.Time, error) {
	v := getenv(testNowVar)
	if v == "" {
		return time.Now, nil
	}
	at, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, usagef("%s takes a time as 2006-01-02T15:04:05Z07:00, got %q", testNowVar, v)
	}
	start := time.Now()
	return func() time.Time { return at.Add(time.Since(start)) }, nil
}
