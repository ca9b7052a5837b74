package plugins

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// hostEnv, set, makes the test binary a host process for
// TestPluginDiesWithHost: it starts the plugin of that directory, prints
// its pid and waits to be killed.
const hostEnv = "SPECD_PLUGINS_TEST_HOST_DIR"

func init() {
	dir := os.Getenv(hostEnv)
	if dir == "" {
		return
	}
	catalog, err := OpenCatalog(dir, nil)
	if err == nil {
		h := NewHost(HostConfig{Catalog: catalog})
		var out []byte
		out, err = h.Default(context.Background(), "widgets", admission("CREATE", `{}`, ""))
		if err == nil {
			var o struct{ Spec struct{ Pid int } }
			if err = json.Unmarshal(out, &o); err == nil {
				fmt.Println(o.Spec.Pid)
				time.Sleep(time.Minute)
			}
		}
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func TestPluginDiesWithHost(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hostEnv+"="+pluginDir(t, map[string]string{"widgets": "testplugin"}))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("read the plugin's pid: %v", err)
	}
	pid, err := strconv.Atoi(line[:len(line)-1])
	if err != nil || !alive(pid) {
		t.Fatalf("plugin pid %q: %v", line, err)
	}

	_ = cmd.Process.Signal(syscall.SIGKILL) // go-plugin gets no chance to stop it
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the plugin (pid %d) outlived its host", pid)
	}
}
