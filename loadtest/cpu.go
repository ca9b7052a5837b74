package loadtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times of /proc/PID/stat: USER_HZ,
// 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// readCPU returns the CPU time, user and system, that pid has used, from
// procRoot/PID/stat.
func readCPU(procRoot string, pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime, the 14th and 15th fields of a
// /proc/PID/stat line. The command name, the 2nd field, is in parentheses
// and may hold spaces, so the fields are counted after its last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("loadtest: /proc stat %q: no command name", stat)
	}
	fields := strings.Fields(stat[i+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("loadtest: /proc stat: %d fields after the command name, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime, stime: fields 14 and 15 of the line
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("loadtest: /proc stat: CPU time %q: %w", f, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// serverCPU is the server's CPU time so far; nil when unknown.
func (r *runner) serverCPU() *time.Duration { return fromProc(r.pid, readCPU) }

// rss is the server's resident set; nil when unknown.
func (r *runner) rss() *int64 { return fromProc(r.pid, readRSS) }

// fromProc reads a value of pid from /proc; nil when pid or the value is
// unknown.
func fromProc[T any](pid int, read func(procRoot string, pid int) (T, error)) *T {
	if pid <= 0 {
		return nil
	}
	v, err := read("/proc", pid)
	if err != nil {
		return nil
	}
	return &v
}
