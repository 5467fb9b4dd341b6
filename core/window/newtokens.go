package window

import "agent/core/llm"

// NewPromptTokens estimates the tokens of req that Ollama must evaluate
// given that prev was the request before it: the messages after the longest
// shared run from the start (Ollama keeps the evaluated prefix of the last
// prompt in its cache), all of them when prev is nil. An estimate, at the
// uncalibrated ratio: it says "how much", not a count to budget by.
func NewPromptTokens(prev, req *llm.ChatRequest) int {
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
