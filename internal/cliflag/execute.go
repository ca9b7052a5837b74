package cliflag

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// usageError is an error in the command line: exit code 2.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// Usage marks err as an error in the command line, which exits 2.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// Usagef is an error in the command line, which exits 2.
func Usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// Exit is an exit code whose reason is already told, such as specd
// check's report of the problems it found; Execute prints nothing more.
type Exit int

func (e Exit) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// failure is an error of a command's run, not of its command line: exit
// code 1.
type failure struct{ error }

func (f failure) Unwrap() error { return f.error }

// RunE adapts run to cobra's RunE: what it returns is a failure (exit 1)
// unless Usage marks it, or it is an Exit. What cobra itself returns (an
// unknown command, wrong arguments) is a usage error.
func RunE(run func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		if err == nil || errors.As(err, new(usageError)) || errors.As(err, new(Exit)) {
			return err
		}
		return failure{err}
	}
}

// Execute runs root with args, help on stdout and errors on stderr, in
// one line that starts with the command's path; it returns the exit
// code: 0, 1 for a failure, 2 for an error in the command line.
func Execute(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetFlagErrorFunc(flagError)
	cmd, err := root.ExecuteContextC(ctx)
	var exit Exit
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return int(exit)
	case errors.As(err, new(failure)):
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
		return 1
	default:
		fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), strings.TrimSpace(err.Error()))
		return 2
	}
}

// flagError names the flag pflag could not parse, with a pointer to -h
// instead of the whole usage, so the one line that says what is wrong is
// not buried under a hundred others. A long flag given with one dash,
// which Go's flag package took, is named with two.
func flagError(cmd *cobra.Command, err error) error {
	if args := cmd.Flags().Args(); cmd.HasSubCommands() && len(args) > 0 {
		return unknownCommand(cmd, args[0]) // the flag is the unknown command's
	}
	hint := ""
	var missing *pflag.NotExistError
	if errors.As(err, &missing) && missing.GetSpecifiedShortnames() != "" {
		name, _, _ := strings.Cut(missing.GetSpecifiedShortnames(), "=")
		if cmd.Flags().Lookup(name) != nil {
			hint = fmt.Sprintf("; did you mean --%s?", name)
		}
	}
	return Usagef("%w%s (%s -h lists the flags)", err, hint, cmd.CommandPath())
}

// Group makes cmd a command of subcommands: without one it prints its
// help, and an unknown one is a usage error that suggests a near name.
func Group(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		return unknownCommand(c, args[0])
	}
	return cmd
}

// unknownCommand is the usage error of name, not a command of c.
func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's default, which it sets only in its own checks
	}
	if near := c.SuggestionsFor(name); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return Usagef("%s (%s -h lists the commands)", msg, c.CommandPath())
}

// NoArgs is cobra's Args of a command that takes no arguments, as a usage
// error that names the first.
func NoArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef("unexpected arguments: %s", strings.Join(args, " "))
	}
	return nil
}
