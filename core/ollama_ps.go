package core

import "context"

// Loaded reports whether Ollama holds the named model in memory now
// (/api/ps): a turn that waits on a model not loaded waits for it to load,
// one on a loaded model for its prompt to be evaluated. Bounded as any
// quick request.
func (o *Ollama) Loaded(ctx context.Context, name string) (bool, error) {
	ctx, cancel := o.quick(ctx)
	defer cancel()
	ps, err := o.client.ListRunning(ctx)
	if err != nil {
		return false, o.classify(o.late(ctx, err), "")
	}
	want := NormalizeModel(name)
	for _, m := range ps.Models {
		if NormalizeModel(m.Name) == want || NormalizeModel(m.Model) == want {
			return true, nil
		}
	}
	return false, nil
}

// NewPromptTokens estimates the tokens of req that Ollama must evaluate
// given that prev was the request before it: the messages after the longest
// shared run from the start (Ollama keeps the evaluated prefix of the last
// prompt in its cache), all of them when prev is nil. An estimate, at the
// uncalibrated ratio: it says "how much", not a count to budget by.
func NewPromptTokens(prev, req *ChatRequest) int {
	e := newEstimator(0)
	shared := 0
	if prev != nil && prev.Model == req.Model {
		for shared < len(prev.Messages) && shared < len(req.Messages) && sameMessage(prev.Messages[shared], req.Messages[shared]) {
			shared++
		}
	}
	n := 0
	for _, m := range req.Messages[shared:] {
		n += e.message(m)
	}
	return n
}

func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolName == b.ToolName && len(a.ToolCalls) == 0 && len(b.ToolCalls) == 0
}
