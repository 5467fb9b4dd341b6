package core

import (
	"context"
	"strings"
	"testing"
	"time"

	"agent/core/jobs"
)

func TestDoctorJobsNamesADisabledJob(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	ws, _, err := Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	st := jobs.NewStore(ws.State, nil)
	if _, err := st.Add(ctx, "idx", "@hourly", time.UTC, []string{"memory", "reindex"}); err != nil {
		t.Fatal(err)
	}
	// Nothing has run the tick yet: the enabled job would never run.
	if c := DoctorJobs(ctx, ws); c.OK || !strings.Contains(c.Detail, "nothing runs `agent jobs tick`") || !strings.Contains(c.Fix, "agent jobs install") {
		t.Fatalf("no tick: %+v", c)
	}
	if err := st.Beat(ctx); err != nil {
		t.Fatal(err)
	}
	if c := DoctorJobs(ctx, ws); !c.OK || c.Detail != "1 job, 1 enabled" {
		t.Fatalf("healthy: %+v", c)
	}
	tk := &jobs.Ticker{Store: st, Loc: time.UTC, Run: func(context.Context, []string) jobs.Result {
		return jobs.Result{ExitCode: 1, Stderr: "agent: boom\n"}
	}}
	for i := 0; i < jobs.MaxFailures; i++ {
		if _, err := tk.RunNow(ctx, "idx"); err != nil {
			t.Fatal(err)
		}
	}
	c := DoctorJobs(ctx, ws)
	if c.OK || c.Detail != "job idx disabled after 5 failures in a row (last: exit 1: boom)" || !strings.Contains(c.Fix, "agent jobs enable idx") {
		t.Fatalf("after 5 failures: %+v", c)
	}
}
