package versions

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/test/e2e/harness"
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
			harness.WriteFile(t, dir, "tools.yaml", testschemas.Tools)
			etcdURL := harness.EtcdSocketURL(t)
			s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir, EtcdServers: []string{etcdURL.String()}, Args: tc.args, NoWait: true})
			waitForLog(t, s, `msg="schemas loaded"`)

			harness.WriteFile(t, dir, "things.yaml", testschemas.Things)
			if tc.sighup {
				// Several: they make one reload, and none ends specd.
				for range 3 {
					if err := s.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
						t.Fatal(err)
					}
				}
			}
			select {
			case <-s.Exited:
				t.Fatalf("specd ended while starting: %v", s.ExitErr())
			case <-time.After(500 * time.Millisecond):
			}
			if strings.Contains(s.Stderr.String(), `msg=serving`) {
				t.Fatal("specd served before its etcd answered: the test proves nothing")
			}

			harness.StartEtcdAt(t, etcdURL)
			// specd stops before its etcd (cleanups run last first): an
			// etcd with clients takes seconds to close.
			t.Cleanup(func() { s.Stop(t) })
			if err := s.WaitReady(harness.ReadyTimeout); err != nil {
				t.Fatal(err)
			}
			harness.Eventually(t, "things served", func() bool {
				return testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + things}).Code == http.StatusOK
			})
			// The reload is logged once its followers are done, a moment
			// after the new resources are served.
			waitForLog(t, s, `msg="schemas reloaded"`)
			log := s.Stderr.String()
			if want := `msg="schemas reloaded" trigger=` + tc.trigger; !strings.Contains(log, want) || !strings.Contains(log, "added=[things.things.example.com]") {
				t.Errorf("specd did not log the reload (%s):\n%s", want, log)
			}
			if tc.trigger == "SIGHUP" {
				// The signals sent while starting are one request.
				client := &http.Client{Timeout: 10 * time.Second}
				applied := harness.MetricValue(t, client, s, `specd_schema_reloads_total{result="applied"}`)
				unchanged := harness.MetricValue(t, client, s, `specd_schema_reloads_total{result="unchanged"}`)
				if applied != "1" || unchanged != "" {
					t.Errorf("reloads: %q applied, %q unchanged; want one applied for the 3 signals", applied, unchanged)
				}
			}
		})
	}
}

// waitForLog waits until specd has logged want.
func waitForLog(t *testing.T, s *harness.Specd, want string) {
	t.Helper()
	deadline := time.Now().Add(harness.ReadyTimeout)
	for !strings.Contains(s.Stderr.String(), want) {
		select {
		case <-s.Exited:
			t.Fatalf("specd exited before logging %s: %v\n%s", want, s.ExitErr(), s.Stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("specd did not log %s within %s", want, harness.ReadyTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
