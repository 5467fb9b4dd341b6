package embed

import (
	"context"
	"fmt"

	"agent/index"
)

// Background embeds the chunks of ix that have no vectors yet, now and
// each time poke fires, until ctx is done (agent memory watch). ix is its
// own handle on the index: searches and the watcher's refreshes go on while
// a batch is with the model. note hears a change of model, and a failure
// once until it changes or embedding works again.
func Background(ctx context.Context, ix *index.Index, poke <-chan struct{}, note func(string)) {
	said := ""
	for {
		st, err := ix.Embed(ctx, index.EmbedOptions{Notice: note})
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if msg := fmt.Sprintf("embedding stopped: %v (%d chunks wait; search uses words alone for them)", err, st.Left); msg != said {
				note(msg)
				said = msg
			}
		default:
			said = ""
			if st.Embedded > 0 {
				note(fmt.Sprintf("embedded %d chunks (%d texts sent, %d reused)", st.Chunks, st.Embedded, st.Reused))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-poke:
		}
	}
}
