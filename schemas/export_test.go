package schemas

// ForgetAssembly makes l's next load assemble every group anew, as Load
// does, for tests that compare it with a load reusing groups.
func (l *Loader) ForgetAssembly() { l.groups = nil }

// SaveAssembly and RestoreAssembly keep the groups l may reuse across a
// load that must not change them.
func SaveAssembly(l *Loader) map[string]*builtGroup { return l.groups }

func RestoreAssembly(l *Loader, groups map[string]*builtGroup) { l.groups = groups }
