// Package resetconn resets, rather than closes, a TCP connection whose
// write timed out.
//
// A server closes a connection gracefully: its FIN goes out after the
// bytes still queued in the kernel's send buffer. When the peer stopped
// reading (a watch client that hangs, say) those bytes never leave, so the
// peer never learns the connection ended, and the orphaned socket keeps
// its buffer while the kernel probes a window that stays shut.
// Once a write has timed out, the peer is not reading what it was sent;
// Listener makes the close that follows abortive (SO_LINGER 0): a RST, the
// queued bytes dropped; the peer reads what had reached it, then the
// reset.
//
// This also holds for the watches that Server.CloseWatches ends at
// shutdown by moving their write deadline to now.
package resetconn
