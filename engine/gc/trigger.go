package gc

// Trigger asks a Collector for a pass soon. It is made before the Store,
// whose deletes pull it (engine.Options.OnDelete), and the Collector, which
// waits on it (Options.Trigger), so neither needs the other first.
type Trigger struct{ c chan struct{} }

// NewTrigger returns a Trigger for one Collector.
func NewTrigger() *Trigger { return &Trigger{c: make(chan struct{}, 1)} }

// Pull asks for a pass. It never blocks: pulls while a pass is pending are
// one.
func (t *Trigger) Pull() {
	select {
	case t.c <- struct{}{}:
	default:
	}
}
