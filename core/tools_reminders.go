package core

import (
	"context"
	"fmt"
	"strings"

	"agent/core/reminders"
	"agent/memory/secrets"
)

// Tool names of reminders.
const (
	ToolReminderAdd  = "reminder_add"
	ToolReminderList = "reminder_list"
)

var toolReminderAdd = tool{
	spec: ToolSpec{Name: ToolReminderAdd,
		Parameters: []ToolParam{
			{Name: "text", Type: "string", Required: true},
			{Name: "when", Type: "string", Description: "ISO 8601 with offset", Required: true},
		}},
	inNormal: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		text, err := args.str("text", true)
		if err != nil {
			return "", err
		}
		when, err := args.str("when", true)
		if err != nil {
			return "", err
		}
		loc := t.now.Location()
		due, err := reminders.ParseISO(when, t.now, loc)
		if err != nil {
			return "", err
		}
		redacted := secrets.RedactEach(&text) // a reminder lives in state.db: no secret there either
		r, err := reminders.NewStore(c.WS.State, c.Now).Add(ctx, text, due, "model (chat session "+t.session.Name+")")
		if err != nil {
			return "", err
		}
		c.notify(fmt.Sprintf("reminder %d set by the model for %s: %s (see: agent reminders)", r.ID, reminders.Format(r.DueAt, loc), oneLine(r.Text, 80)))
		return fmt.Sprintf("reminder %d set for %s", r.ID, r.DueAt.In(loc).Format("2006-01-02T15:04:05-07:00")) + c.secretsNote(ToolReminderAdd, redacted), nil
	},
}

var toolReminderList = tool{
	spec:     ToolSpec{Name: ToolReminderList},
	inNormal: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		list, err := reminders.NewStore(c.WS.State, c.Now).Pending(ctx)
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "no pending reminders", nil
		}
		var b strings.Builder
		loc := t.now.Location()
		for _, r := range list {
			state := "upcoming"
			if !r.DueAt.After(t.now) {
				state = "DUE"
			}
			fmt.Fprintf(&b, "%d. %s (%s, %s)\n", r.ID, oneLine(r.Text, 200), r.DueAt.In(loc).Format("2006-01-02T15:04:05-07:00"), state)
		}
		return b.String(), nil
	},
}
