package kubernetes

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCopyStream checks, without a cluster, what copyIn and copyOut are
// made of: the content key changes with a file's content and not
// otherwise, and a tree written by writeTar comes back from readTar as it
// was (files with their modes, directories), links kept out of readTar.
func TestCopyStream(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"a.jar": "jar", "sub/run.sh": "#!/bin/sh\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "sub/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.jar", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	key, err := contentKey(root)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := contentKey(root); err != nil || again != key {
		t.Fatalf("content key %q then %q (%v)", key, again, err)
	}
	var stream bytes.Buffer
	if err := writeTar(&stream, []string{root}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := readTar(bytes.NewReader(stream.Bytes()), []string{root}); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || string(got) != content {
			t.Errorf("%s after the round trip: %q (%v), want %q", name, got, err, content)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "sub/run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("sub/run.sh after the round trip: %v (%v), want mode 0755", fi.Mode(), err)
	}
	if _, err := os.Lstat(filepath.Join(root, "link")); !os.IsNotExist(err) {
		t.Errorf("readTar wrote the link: %v", err)
	}
	changed := filepath.Join(root, "a.jar")
	if err := os.WriteFile(changed, []byte("jar, changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(changed, time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if after, err := contentKey(root); err != nil || after == key {
		t.Errorf("content key after a change: %q (%v), want other than %q", after, err, key)
	}
	if err := readTar(bytes.NewReader(stream.Bytes()), []string{filepath.Join(root, "sub")}); err == nil {
		t.Error("readTar took entries outside the paths asked for")
	}
}
