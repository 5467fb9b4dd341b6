package core

import (
	"context"

	"agent/core/distill"
)

// DistillModel is the model behind agent memory distill: one chat request
// per call, with the JSON schema sent as Ollama's format so the reply is
// that JSON (or, cut by num_predict, the front of it, which distill counts
// as invalid).
type DistillModel struct {
	Model Model
	Name  string
}

var _ distill.Model = DistillModel{}

// Generate asks for one reply and returns its content and prompt_eval_count.
func (d DistillModel) Generate(ctx context.Context, req distill.Request) (distill.Reply, error) {
	r, err := d.Model.Chat(ctx, ChatRequest{
		Model:      d.Name,
		Messages:   []Message{{Role: "system", Content: req.System}, {Role: "user", Content: req.Prompt}},
		NumCtx:     req.NumCtx,
		NumPredict: req.NumPredict,
		Format:     req.Format,
	}, nil)
	if err != nil {
		return distill.Reply{}, err
	}
	return distill.Reply{Content: r.Content, PromptTokens: r.PromptEvalCount}, nil
}
