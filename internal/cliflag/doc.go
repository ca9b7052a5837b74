// Package cliflag holds what specd's commands share on top of
// spf13/cobra and pflag, as kubectl's and helm's are built: a list flag,
// repeatable and comma-separated, as kube-apiserver's string slices are;
// Execute, which runs a command tree with help on stdout, a bad command
// line answered in one line (exit 2) and a failure in one line (exit 1);
// and Sections, which prints a command's flags grouped under headings
// ("Etcd flags:") with component-base's NamedFlagSets, as
// kube-apiserver's help does; Values offers a flag's values to shell
// completion.
package cliflag
