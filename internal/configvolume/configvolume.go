package configvolume

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const (
	dataLink    = "..data"
	newDataLink = "..data_tmp"
)

// Write makes dir hold exactly files (path to content), as the kubelet's
// update of a ConfigMap volume does. A path may have folders, as a
// volume's items may (shop/v1.yaml): then only its first folder is a
// visible link (shop -> ..data/shop). dir must exist; on its first Write
// it gets the volume's layout.
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
		if strings.HasPrefix(name, "..") || strings.HasPrefix(name, "/") || slices.Contains(strings.Split(name, "/"), "..") {
			return "", fmt.Errorf("configvolume: %q: a path must be relative, without '..', and not start with '..'", name)
		}
		p := filepath.Join(ts, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("configvolume: %w", err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
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

// linkNames adds the visible link of each path's first element that has
// none.
func linkNames(dir string, files map[string]string) error {
	for name := range visible(files) {
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

// unlinkGone removes the visible links of the old folder's entries that
// no path of files starts with.
func unlinkGone(dir, oldTS string, files map[string]string) error {
	old, err := os.ReadDir(filepath.Join(dir, oldTS))
	if err != nil {
		return fmt.Errorf("configvolume: %w", err)
	}
	keep := visible(files)
	for _, e := range old {
		if keep[e.Name()] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("configvolume: %w", err)
		}
	}
	return nil
}

// visible are the first elements of the paths of files: the names the
// volume shows.
func visible(files map[string]string) map[string]bool {
	names := map[string]bool{}
	for p := range files {
		first, _, _ := strings.Cut(p, "/")
		names[first] = true
	}
	return names
}
