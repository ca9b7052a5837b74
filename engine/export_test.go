package engine

// SetNameGenerator replaces how s turns generateName into a name.
func SetNameGenerator(s *Store, f func(base string) string) { s.genName = f }
