package local

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// mount is one line of /proc/PID/mountinfo.
type mount struct {
	Root   string // within the mounted file system; "net:[4026532288]" for a namespace
	Point  string // where it is mounted
	FSType string
}

// mountinfo reads the mounts of a process's mount namespace ("self" for
// this process).
func mountinfo(pid string) ([]mount, error) {
	f, err := os.Open(filepath.Join("/proc", pid, "mountinfo"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mount
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root point options [optional...] - fstype source superopts
		f := strings.Fields(sc.Text())
		sep := -1
		for i, s := range f {
			if s == "-" {
				sep = i
				break
			}
		}
		if len(f) < 5 || sep < 0 || sep+1 >= len(f) {
			continue
		}
		out = append(out, mount{Root: unescape(f[3]), Point: unescape(f[4]), FSType: f[sep+1]})
	}
	return out, sc.Err()
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountsUnder lists this mount namespace's mount points at or under dir.
func mountsUnder(dir string) []string {
	ms, _ := mountinfo("self")
	var out []string
	for _, m := range ms {
		if m.Point == dir || strings.HasPrefix(m.Point, dir+"/") {
			out = append(out, m.Point)
		}
	}
	return out
}

// nsMounts lists where, in this mount namespace, the network namespace
// with inode ino is bind-mounted.
func nsMounts(ino uint64) []string {
	if ino == 0 {
		return nil
	}
	ms, _ := mountinfo("self")
	want := fmt.Sprintf("net:[%d]", ino)
	var out []string
	for _, m := range ms {
		if m.FSType == "nsfs" && m.Root == want {
			out = append(out, m.Point)
		}
	}
	return out
}

// mountedElsewhere names a process of each other mount namespace in which
// path is a mount point ("pid 812 (dockerd)"), for an error that says who
// keeps a namespace file busy.
func mountedElsewhere(path string) []string {
	mine, _ := os.Readlink("/proc/self/ns/mnt")
	seen := map[string]bool{mine: true}
	var out []string
	for _, pid := range pids() {
		p := strconv.Itoa(pid)
		mnt, err := os.Readlink("/proc/" + p + "/ns/mnt")
		if err != nil || seen[mnt] {
			continue
		}
		seen[mnt] = true
		ms, _ := mountinfo(p)
		for _, m := range ms {
			if m.Point == path {
				out = append(out, fmt.Sprintf("pid %d (%s); remove it there with `nsenter -t %d -m umount -l %s`", pid, comm(pid), pid, path))
				break
			}
		}
	}
	return out
}
