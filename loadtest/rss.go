package loadtest

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// errNotFound is returned when no process listens on the server's port.
var errNotFound = errors.New("loadtest: no listening process found")

// tcpListen is the st column of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// readRSS returns the resident set size in bytes of pid, read from the
// VmRSS line of procRoot/PID/status.
func readRSS(procRoot string, pid int) (int64, error) {
	f, err := os.Open(filepath.Join(procRoot, strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseVmRSS(f)
}

// parseVmRSS finds "VmRSS:   1234 kB" in a /proc/PID/status file.
func parseVmRSS(r io.Reader) (int64, error) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "VmRSS:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("loadtest: malformed VmRSS line %q", s.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("loadtest: malformed VmRSS line %q: %w", s.Text(), err)
		}
		return kb * 1024, nil
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("loadtest: no VmRSS line (kernel thread or exited process)")
}

// findServerPID returns the process that listens on the loopback port of
// serverURL, found through the socket inodes of procRoot/net/tcp{,6} and the
// procRoot/*/fd links. Servers on other hosts are errNotFound.
func findServerPID(procRoot, serverURL string) (int, error) {
	port, ok := loopbackPort(serverURL)
	if !ok {
		return 0, fmt.Errorf("%w: %s is not a loopback address", errNotFound, serverURL)
	}
	inodes := map[uint64]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(procRoot, "net", name))
		if err != nil {
			continue // no IPv6, or no /proc at all
		}
		found, err := parseListeners(f, port)
		f.Close()
		if err != nil {
			return 0, err
		}
		for _, ino := range found {
			inodes[ino] = true
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("%w: nothing listens on loopback port %d", errNotFound, port)
	}
	return pidOwningSocket(procRoot, inodes)
}

// loopbackPort returns the port of serverURL when its host is a loopback name.
func loopbackPort(serverURL string) (int, bool) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return 0, false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		return 0, false
	}
	portStr := u.Port()
	if portStr == "" {
		portStr = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	port, err := strconv.Atoi(portStr)
	return port, err == nil && port > 0
}

// parseListeners reads a /proc/net/tcp or tcp6 table and returns the inodes
// of the sockets in LISTEN state on port whose local address is loopback or
// the wildcard address.
func parseListeners(r io.Reader, port int) ([]uint64, error) {
	var inodes []uint64
	s := bufio.NewScanner(r)
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) < 10 || f[0] == "sl" || f[3] != tcpListen {
			continue
		}
		ip, p, err := parseHexAddr(f[1])
		if err != nil {
			return nil, err
		}
		if p != port || !(ip.IsLoopback() || ip.IsUnspecified()) {
			continue
		}
		ino, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("loadtest: bad inode in %q: %w", s.Text(), err)
		}
		if ino != 0 {
			inodes = append(inodes, ino)
		}
	}
	return inodes, s.Err()
}

// parseHexAddr decodes "0100007F:1F90" (IPv4) or a 32-digit IPv6 address.
// The kernel prints the address as 32-bit words in host byte order and the
// port in network order.
func parseHexAddr(s string) (net.IP, int, error) {
	addr, portHex, ok := strings.Cut(s, ":")
	if !ok || (len(addr) != 8 && len(addr) != 32) {
		return nil, 0, fmt.Errorf("loadtest: bad socket address %q", s)
	}
	raw, err := hex.DecodeString(addr)
	if err != nil {
		return nil, 0, fmt.Errorf("loadtest: bad socket address %q: %w", s, err)
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return nil, 0, fmt.Errorf("loadtest: bad socket port %q: %w", s, err)
	}
	return ip, int(port), nil
}

// pidOwningSocket returns the lowest pid with an open fd on one of inodes.
func pidOwningSocket(procRoot string, inodes map[uint64]bool) (int, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return 0, err
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	for _, pid := range pids {
		fdDir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue // another user's process, or gone
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil {
				continue
			}
			if ino, ok := socketInode(target); ok && inodes[ino] {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: the listening socket belongs to no readable process", errNotFound)
}

// socketInode parses a "socket:[12345]" fd link.
func socketInode(link string) (uint64, bool) {
	s, ok := strings.CutPrefix(link, "socket:[")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "]")
	if !ok {
		return 0, false
	}
	ino, err := strconv.ParseUint(s, 10, 64)
	return ino, err == nil
}
