package ollama

import "context"

// Loaded reports whether Ollama holds the named model in memory now
// (/api/ps): a turn that waits on a model not loaded waits for it to load,
// one on a loaded model for its prompt to be evaluated. Bounded as any
// quick request.
func (o *Client) Loaded(ctx context.Context, name string) (bool, error) {
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
