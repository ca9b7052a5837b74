package auth

import (
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
