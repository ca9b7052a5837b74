package engine

import (
	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/types"
)

func newUID() string { return uuid.NewString() }

func typesUID(s string) types.UID { return types.UID(s) }
