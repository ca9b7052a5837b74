package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Parse parses args with fs. Asked for help (-h), it prints fs's
// usage to help, which the commands give as stdout so that `| grep`
// reads it. A flag it cannot parse is returned alone, with a pointer to
// -h, without the usage, so the one line that names the bad flag is not
// buried under a hundred others.
func Parse(fs *flag.FlagSet, args []string, help io.Writer) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(help)
		fs.Usage()
		return err
	case err != nil:
		return fmt.Errorf("%w (%s -h lists the flags)", err, fs.Name())
	}
	return nil
}
