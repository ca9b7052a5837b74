// Command ship-policy is a specd plugin for the Ships of
// fleet.example.com: it defaults spec.class to "cargo" and refuses to
// change spec.registry once it is set. The schema binds it with
//
//	x-specd-hooks:
//	  default: ship-policy
//	  validate: ship-policy
//
// and `make plugins` builds it into bin/plugins. docs/plugins.md is the
// guide.
package main

import (
	"context"

	"github.com/specd-io/specd/plugins/sdk"
)

func main() {
	sdk.Serve(
		sdk.Defaulter("fleet.example.com", "Ship", defaultShip),
		sdk.Validator("fleet.example.com", "Ship", validateShip),
	)
}

// defaultShip makes a ship of no class a cargo ship.
func defaultShip(_ context.Context, req *sdk.AdmissionRequest) error {
	if req.Object.String("spec.class") != "" {
		return nil
	}
	return req.Object.Set("spec.class", "cargo")
}

// validateShip keeps a ship's port of registry once it has one.
func validateShip(_ context.Context, req *sdk.AdmissionRequest) (sdk.FieldErrors, error) {
	if req.Operation != sdk.Update {
		return nil, nil
	}
	was, is := req.OldObject.String("spec.registry"), req.Object.String("spec.registry")
	if was != "" && is != was {
		return sdk.FieldErrors{sdk.Immutable("spec.registry", is)}, nil
	}
	return nil, nil
}
