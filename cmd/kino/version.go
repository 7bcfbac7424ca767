package main

import "runtime/debug"

// version names this build: the module version, or the VCS revision of a
// build from a checkout.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			if v == "" || v == "(devel)" {
				return s.Value[:12]
			}
		}
	}
	if v == "" {
		return "unknown"
	}
	return v
}
