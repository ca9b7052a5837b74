package cliflag

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	kflag "k8s.io/component-base/cli/flag"
)

// Sections defines the flags of fss on cmd and makes its help print them
// under a heading per set, in their order, as kube-apiserver's does
// ("Etcd flags:"), with cmd's help flag under "Global flags:". The help
// wraps at the terminal's width, and not at all when it is not printed
// on a terminal, so that `| grep` finds a flag's whole line.
func Sections(cmd *cobra.Command, fss *kflag.NamedFlagSets) {
	for _, name := range fss.Order {
		cmd.Flags().AddFlagSet(fss.FlagSets[name])
	}
	cmd.InitDefaultHelpFlag()
	fss.FlagSet("global").AddFlag(cmd.Flags().Lookup("help"))
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := c.OutOrStdout()
		fmt.Fprintf(w, "%s\n\nUsage:\n  %s\n", c.Long, c.UseLine())
		if c.Example != "" {
			fmt.Fprintf(w, "\nExamples:\n%s\n", c.Example)
		}
		kflag.PrintSections(w, *fss, width(w))
	})
}

// width is the width of the terminal w is, 0 when it is none.
func width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return cols
}

// Values makes shell completion offer values for cmd's flag name.
func Values(cmd *cobra.Command, name string, values ...string) {
	// The error says that cmd has no such flag: a test of the command
	// then finds no completions.
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}
