package e2e

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testschemas"
)

// TestReloadRequestedWhileStarting: a SIGHUP sent while specd starts does
// not end it, and neither it nor a change of the schema directory made
// then is lost: the file added after specd read the directory is served
// once specd is up. specd is held in its start by an etcd that answers
// only later, after it has loaded its schemas.
func TestReloadRequestedWhileStarting(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		args    []string
		sighup  bool
		trigger string // of the reload that serves the new file
	}{
		"SIGHUP with --watch=false": {args: []string{"--watch=false"}, sighup: true, trigger: "SIGHUP"},
		"SIGHUP while watching":     {sighup: true},
		"a change while watching":   {trigger: "change"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, "tools.yaml", testschemas.Tools)
			etcdURL := etcdSocketURL(t)
			s := startSpecd(t, specdOptions{Schemas: dir, EtcdServers: []string{etcdURL.String()}, Args: tc.args, NoWait: true})
			waitForLog(t, s, `msg="schemas loaded"`)

			writeFile(t, dir, "things.yaml", testschemas.Things)
			if tc.sighup {
				// Several: they make one reload, and none ends specd.
				for range 3 {
					if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
						t.Fatal(err)
					}
				}
			}
			select {
			case <-s.exited:
				t.Fatalf("specd ended while starting: %v", s.exitErr())
			case <-time.After(500 * time.Millisecond):
			}
			if strings.Contains(s.stderr.String(), `msg=serving`) {
				t.Fatal("specd served before its etcd answered: the test proves nothing")
			}

			startEtcdAt(t, etcdURL)
			// specd stops before its etcd (cleanups run last first): an
			// etcd with clients takes seconds to close.
			t.Cleanup(func() { s.Stop(t) })
			if err := s.waitReady(readyTimeout); err != nil {
				t.Fatal(err)
			}
			eventually(t, "things served", func() bool { return get(t, s.URL+things).Code == http.StatusOK })
			// The reload is logged once its followers are done, a moment
			// after the new resources are served.
			waitForLog(t, s, `msg="schemas reloaded"`)
			log := s.stderr.String()
			if want := `msg="schemas reloaded" trigger=` + tc.trigger; !strings.Contains(log, want) || !strings.Contains(log, "added=[things.things.example.com]") {
				t.Errorf("specd did not log the reload (%s):\n%s", want, log)
			}
			if tc.trigger == "SIGHUP" {
				// The signals sent while starting are one request.
				client := &http.Client{Timeout: 10 * time.Second}
				applied := metricValue(t, client, s, `specd_schema_reloads_total{result="applied"}`)
				unchanged := metricValue(t, client, s, `specd_schema_reloads_total{result="unchanged"}`)
				if applied != "1" || unchanged != "" {
					t.Errorf("reloads: %q applied, %q unchanged; want one applied for the 3 signals", applied, unchanged)
				}
			}
		})
	}
}

// waitForLog waits until specd has logged want.
func waitForLog(t *testing.T, s *specd, want string) {
	t.Helper()
	deadline := time.Now().Add(readyTimeout)
	for !strings.Contains(s.stderr.String(), want) {
		select {
		case <-s.exited:
			t.Fatalf("specd exited before logging %s: %v\n%s", want, s.exitErr(), s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("specd did not log %s within %s", want, readyTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
