package aggregated

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server/apiservices"
)

// PrintAPIServices writes the APIServices that serving with
// --register-apiservices would keep for the schema directory dir, for
// users who apply them with GitOps instead. Without flags.CAFile they
// have no caBundle (for a CA injector, such as cert-manager's).
func PrintAPIServices(w io.Writer, dir string, flags Flags) error {
	if dir == "" {
		return errors.New("--schemas is required")
	}
	var ca []byte
	if flags.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(flags.CAFile); err != nil {
			return fmt.Errorf("--apiservice-ca-file: %w", err)
		}
	}
	cfg, err := flags.Config(ca)
	if err != nil {
		return err
	}
	if cfg.Port == 0 {
		return errors.New("--apiservice-port 0: a printed APIService needs the Service's port")
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		return err
	}
	return apiservices.Print(w, apiservices.Manifests(reg, cfg))
}
