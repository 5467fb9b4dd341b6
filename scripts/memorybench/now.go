package main

import (
	"time"

	"agent/core"
	"agent/index"
)

// withNow lets a search read time words as of t (index.SearchOptions.Now);
// an agent before issue 46 had no such option, and its copy of this file
// does nothing (how the "before" figures were taken).
func withNow(opts *index.SearchOptions, t time.Time) { opts.Now = t }

// recallNow sets the time by which the chat's recall reads time words
// (core.IndexRecall.SetNow); before issue 46's item 2 recall read none,
// and its copy of this function does nothing.
func recallNow(r *core.IndexRecall, t time.Time) { r.SetNow(func() time.Time { return t }) }
