package identity

import "k8s.io/apiserver/pkg/authentication/user"

const (
	// UserPrefix precedes a plugin's name in its user name, as
	// "system:serviceaccount:" precedes a service account's.
	UserPrefix = "system:plugin:"
	// GroupPlugins is the group every plugin user is in.
	GroupPlugins = "system:plugins"
)

// UserName is the user plugin acts as: "system:plugin:" + plugin.
func UserName(plugin string) string { return UserPrefix + plugin }

// User is the user plugin's callbacks act as: in GroupPlugins and, as
// every authenticated user, system:authenticated.
func User(plugin string) user.Info {
	return &user.DefaultInfo{
		Name:   UserName(plugin),
		Groups: []string{GroupPlugins, user.AllAuthenticated},
	}
}
