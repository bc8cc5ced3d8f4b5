// Package atomicfile writes files so that a reader sees either the old
// content or the whole new content, never half of it, and so that a write
// error is never lost: results.json, reports and assets all go through
// WriteFile.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to name through a temporary file in the same
// directory: write, chmod, fsync, close, rename, then fsync the directory so
// the rename itself survives a crash. The temporary file is removed on any
// failure. The error names the file and the step that failed.
func WriteFile(name string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("write %s: %w", name, err)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), name); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory, so that entries created or renamed in it are
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return fmt.Errorf("sync %s: %w", dir, serr)
	}
	return cerr
}
