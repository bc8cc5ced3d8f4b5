package main

import "runtime/debug"

// toolVersion is the module version and VCS revision this binary was built
// from, for provenance.
func toolVersion() string {
	v, commit := buildInfo()
	if commit != "" {
		return v + " (" + commit + ")"
	}
	return v
}

func buildInfo() (version, commit string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel", ""
	}
	version = bi.Main.Version
	if version == "" || version == "(devel)" {
		version = "devel"
	}
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if dirty {
		commit += "+dirty"
	}
	return version, commit
}
