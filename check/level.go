package check

import "regexp"

// Level is the stability of an API version, from its name.
type Level int

const (
	Alpha Level = iota
	Beta
	Stable
)

var versionName = regexp.MustCompile(`^v[0-9]+(alpha|beta)?([0-9]+)?$`)

// LevelOf reads the level of a Kubernetes version name: v1 is stable,
// v2beta1 beta, v1alpha3 alpha. A name that does not follow the
// convention is taken as stable, the level that promises the most.
func LevelOf(version string) Level {
	m := versionName.FindStringSubmatch(version)
	switch {
	case m == nil:
		return Stable
	case m[1] == "alpha":
		return Alpha
	case m[1] == "beta":
		return Beta
	}
	return Stable
}

func (l Level) String() string {
	return [...]string{"alpha", "beta", "stable"}[l]
}

// breaking is the severity of a change that breaks clients or stored
// objects: the seed lets alpha versions change incompatibly (a warning),
// never beta or stable ones (an error).
func breaking(version string) Severity {
	if LevelOf(version) == Alpha {
		return Warning
	}
	return Error
}

// stableOnly is the severity of a change the seed forbids in stable
// versions only, such as a new enum value.
func stableOnly(version string) Severity {
	if LevelOf(version) == Stable {
		return Error
	}
	return Warning
}
