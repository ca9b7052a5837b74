package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// readStamp reads the commit of repo, whether its tree has changes, and
// the build date: SOURCE_DATE_EPOCH when set (the reproducible-builds
// convention), else the commit's time, so that building again gives the
// same bytes.
func readStamp(ctx context.Context, repo string) (stamp, error) {
	commit, err := git(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return stamp{}, err
	}
	status, err := git(ctx, repo, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return stamp{}, err
	}
	s := stamp{Commit: commit, TreeState: "clean"}
	if status != "" {
		s.TreeState = "dirty"
	}
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		if epoch, err = git(ctx, repo, "show", "-s", "--format=%ct", "HEAD"); err != nil {
			return stamp{}, err
		}
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return stamp{}, fmt.Errorf("the build date %q: %w", epoch, err)
	}
	s.Date = time.Unix(secs, 0).UTC().Format(time.RFC3339)
	return s, nil
}

func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s in %s: %w", strings.Join(args, " "), repo, err)
	}
	return strings.TrimSpace(string(out)), nil
}
