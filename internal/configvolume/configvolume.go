package configvolume

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	dataLink    = "..data"
	newDataLink = "..data_tmp"
)

// Write makes dir hold exactly files (name to content; names without a
// folder), as the kubelet's update of a ConfigMap volume does. dir must
// exist; on its first Write it gets the volume's layout.
func Write(dir string, files map[string]string) error {
	oldTS, err := os.Readlink(filepath.Join(dir, dataLink))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("configvolume: %w", err)
	}
	ts, err := writeTimestamped(dir, files)
	if err != nil {
		return err
	}
	if err := swapData(dir, ts); err != nil {
		return err
	}
	if err := linkNames(dir, files); err != nil {
		return err
	}
	if oldTS == "" {
		return nil
	}
	if err := unlinkGone(dir, oldTS, files); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(dir, oldTS)); err != nil {
		return fmt.Errorf("configvolume: %w", err)
	}
	return nil
}

// writeTimestamped writes files into a new folder named after the time,
// and returns its name.
func writeTimestamped(dir string, files map[string]string) (string, error) {
	ts, err := os.MkdirTemp(dir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
	if err != nil {
		return "", fmt.Errorf("configvolume: %w", err)
	}
	if err := os.Chmod(ts, 0o755); err != nil {
		return "", fmt.Errorf("configvolume: %w", err)
	}
	for name, content := range files {
		if strings.ContainsRune(name, '/') || strings.HasPrefix(name, "..") {
			return "", fmt.Errorf("configvolume: %q: a name must have no folder and not start with '..'", name)
		}
		if err := os.WriteFile(filepath.Join(ts, name), []byte(content), 0o644); err != nil {
			return "", fmt.Errorf("configvolume: %w", err)
		}
	}
	return filepath.Base(ts), nil
}

// swapData points ..data at ts by renaming a new link over it.
func swapData(dir, ts string) error {
	tmp := filepath.Join(dir, newDataLink)
	if err := os.Symlink(ts, tmp); err != nil {
		return fmt.Errorf("configvolume: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, dataLink)); err != nil {
		return fmt.Errorf("configvolume: %w", err)
	}
	return nil
}

// linkNames adds the visible link of each name that has none.
func linkNames(dir string, files map[string]string) error {
	for name := range files {
		link := filepath.Join(dir, name)
		if _, err := os.Readlink(link); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join(dataLink, name), link); err != nil {
			return fmt.Errorf("configvolume: %w", err)
		}
	}
	return nil
}

// unlinkGone removes the visible links of the names in the old folder
// that files no longer has.
func unlinkGone(dir, oldTS string, files map[string]string) error {
	old, err := os.ReadDir(filepath.Join(dir, oldTS))
	if err != nil {
		return fmt.Errorf("configvolume: %w", err)
	}
	for _, e := range old {
		if _, ok := files[e.Name()]; ok {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("configvolume: %w", err)
		}
	}
	return nil
}
