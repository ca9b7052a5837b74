package cliflag

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestExecute: the exit code and the one line of each kind of error.
func TestExecute(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := Group(&cobra.Command{Use: "tool"})
		run := &cobra.Command{Use: "run", Args: NoArgs, RunE: RunE(func(cmd *cobra.Command, _ []string) error {
			switch v, _ := cmd.Flags().GetString("do"); v {
			case "fail":
				return errors.New("it broke")
			case "misuse":
				return Usagef("--do %q: no", v)
			case "exit":
				return Exit(3)
			}
			cmd.Print("ran\n")
			return nil
		})}
		run.Flags().String("do", "", "what to do")
		root.AddCommand(run)
		return root
	}
	for name, tc := range map[string]struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		"runs":             {[]string{"run"}, 0, "ran\n", ""},
		"fails":            {[]string{"run", "--do", "fail"}, 1, "", "tool run: it broke\n"},
		"misused":          {[]string{"run", "--do", "misuse"}, 2, "", "tool run: --do \"misuse\": no\n"},
		"exits":            {[]string{"run", "--do", "exit"}, 3, "", ""},
		"unknown flag":     {[]string{"run", "--nope"}, 2, "", "tool run: unknown flag: --nope (tool run -h lists the flags)\n"},
		"one dash":         {[]string{"run", "-do=fail"}, 2, "", "tool run: unknown shorthand flag: 'd' in -do=fail; did you mean --do? (tool run -h lists the flags)\n"},
		"argument":         {[]string{"run", "x"}, 2, "", "tool run: unexpected arguments: x\n"},
		"unknown command":  {[]string{"rn"}, 2, "", "tool: unknown command \"rn\"; did you mean run? (tool -h lists the commands)\n"},
		"command and flag": {[]string{"rn", "--do", "x"}, 2, "", "tool: unknown command \"rn\"; did you mean run? (tool -h lists the commands)\n"},
		"help":             {[]string{"run", "-h"}, 0, "--do string", ""},
		"no command":       {nil, 0, "Available Commands:", ""},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := Execute(t.Context(), newRoot(), tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || stderr.String() != tc.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}
