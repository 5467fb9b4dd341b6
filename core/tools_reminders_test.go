package core

import (
	"context"
	"strings"
	"testing"
	"time"

	"agent/core/ollamatest"
	"agent/core/reminders"
	"agent/profile"
)

func TestModelSetsAndListsRemindersThroughTheFakeOllama(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	ps := profile.NewStore(f.ws.State, time.Now)
	if _, err := ps.Set(ctx, profile.ByUser("test"), "user.timezone", "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	// f.now is 2026-11-22 09:30 UTC, 10:30 in Berlin.
	f.srv.Script(
		ollamatest.CallTool(ToolReminderAdd, map[string]any{"text": "call the landlord", "when": "2026-11-27T18:00:00+01:00"}),
		ollamatest.CallTool(ToolReminderAdd, map[string]any{"text": "too late", "when": "2026-11-21T18:00:00+01:00"}),
		ollamatest.CallTool(ToolReminderAdd, map[string]any{"text": "no offset", "when": "2026-11-27T18:00"}),
		ollamatest.CallTool(ToolReminderList, map[string]any{}),
		ollamatest.Text("I will remind you on Friday."),
	)
	var notes []string
	f.chat.Notify = func(s string) { notes = append(notes, s) }
	res, err := f.chat.Turn(ctx, f.session("home"), "remind me on friday at 6pm to call the landlord", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 4 {
		t.Fatalf("%d tool calls", len(res.ToolCalls))
	}
	ok := []bool{true, false, false, true}
	says := []string{
		"reminder 1 set for 2026-11-27T18:00:00+01:00",
		"is in the past",
		"not an ISO 8601 time with an offset, e.g. 2026-11-22T11:30:00+01:00",
		"1. call the landlord (2026-11-27T18:00:00+01:00, upcoming)",
	}
	for i, tc := range res.ToolCalls {
		if tc.OK != ok[i] || !strings.Contains(tc.Result, says[i]) {
			t.Errorf("call %d %s: ok=%v %q, want ok=%v containing %q", i, tc.Name, tc.OK, tc.Result, ok[i], says[i])
		}
	}
	list, _ := reminders.NewStore(f.ws.State, nil).Pending(ctx)
	if len(list) != 1 || list[0].Text != "call the landlord" || list[0].CreatedBy != "model (chat session home)" ||
		!list[0].DueAt.Equal(time.Date(2026, 11, 27, 17, 0, 0, 0, time.UTC)) {
		t.Fatalf("stored %+v", list)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "reminder 1 set by the model for Fri 2026-11-27 18:00 CET: call the landlord (see: agent reminders)") {
		t.Errorf("user not shown what the model set: %q", notes)
	}
	// The tools are offered in normal mode only.
	for _, tl := range toolsFor(true) {
		if strings.HasPrefix(tl.spec.Name, "reminder_") {
			t.Errorf("%s offered during bootstrap", tl.spec.Name)
		}
	}
}
