package jobs

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"slices"
	"time"
)

// ExecRunner runs jobs as the agent's own binary bin, in the workspace home
// with the model, so a job can only ever be an agent command (CheckArgs
// refused anything else at add) and never goes through a shell. Standard
// input is empty. A chat job gets --no-log: its reply is logged once, under
// the job's own heading.
func ExecRunner(bin, home, model string) Runner {
	return func(ctx context.Context, args []string) Result {
		argv := []string{"--home", home}
		if model != "" {
			argv = append(argv, "--model", model)
		}
		if len(args) > 0 && args[0] == "chat" && !slices.Contains(args, "--no-log") {
			args = append([]string{"chat", "--no-log"}, args[1:]...)
		}
		cmd := exec.CommandContext(ctx, bin, append(argv, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		// A child that leaves a pipe open must not hang the tick.
		cmd.WaitDelay = 5 * time.Second
		err := cmd.Run()
		res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			res.ExitCode = ee.ExitCode()
		case err != nil:
			res.Err = err
		}
		return res
	}
}
