package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestInfoOf(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "GOOS", Value: "freebsd"}, {Key: "GOARCH", Value: "arm64"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
	}
	for _, tc := range []struct {
		name      string
		bi        *debug.BuildInfo
		version   string
		userAgent string
	}{
		{"no build information", nil, "(devel)", "robotsguard-cli/devel (+https://github.com/robotsguard/robotsguard)"},
		{"go install …@v1.2.3",
			&debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Path: modulePath, Version: "v1.2.3"}},
			"v1.2.3", "robotsguard-cli/v1.2.3 (+https://github.com/robotsguard/robotsguard)"},
		{"a build in a checkout",
			&debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Path: modulePath, Version: "(devel)"}, Settings: vcs},
			"(devel)", "robotsguard-cli/devel (+https://github.com/robotsguard/robotsguard)"},
		{"a stamped pseudo-version",
			&debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.2.4-0.20260102030405-0123456789ab+dirty"}},
			"v1.2.4-0.20260102030405-0123456789ab+dirty", "robotsguard-cli/v1.2.4-0.20260102030405-0123456789ab+dirty (+https://github.com/robotsguard/robotsguard)"},
		{"a dependency of another module",
			&debug.BuildInfo{Main: debug.Module{Path: "example.com/tools", Version: "v9.0.0"},
				Deps: []*debug.Module{{Path: "golang.org/x/net", Version: "v0.1.0"}, {Path: modulePath, Version: "v1.3.0"}}},
			"v1.3.0", "robotsguard-cli/v1.3.0 (+https://github.com/robotsguard/robotsguard)"},
		{"a replaced dependency",
			&debug.BuildInfo{Main: debug.Module{Path: "example.com/tools", Version: "v9.0.0"},
				Deps: []*debug.Module{{Path: modulePath, Version: "v1.3.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.3.1"}}}},
			"v1.3.1", "robotsguard-cli/v1.3.1 (+https://github.com/robotsguard/robotsguard)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := infoOf(tc.bi)
			if b.Version != tc.version {
				t.Errorf("version %q, want %q", b.Version, tc.version)
			}
			if got := b.userAgent(); got != tc.userAgent {
				t.Errorf("user agent %q, want %q", got, tc.userAgent)
			}
		})
	}
	b := infoOf(&debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Path: modulePath, Version: "(devel)"}, Settings: vcs})
	want := buildInfo{Version: "(devel)", Go: "go1.25.0", Platform: "freebsd/arm64",
		Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-01-02T03:04:05Z", Modified: true}
	if b != want {
		t.Errorf("infoOf = %+v, want %+v", b, want)
	}
}

func TestProductVersion(t *testing.T) {
	for in, want := range map[string]string{
		"(devel)": "devel", "": "devel", "v1.2.3": "v1.2.3", "v1.0.0+incompatible": "v1.0.0+incompatible",
		"v1 (x)": "v1--x", "vé": "v-",
	} {
		if got := productVersion(in); got != want {
			t.Errorf("productVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteVersion(t *testing.T) {
	var out strings.Builder
	writeVersion(&env{stdout: &out}, buildInfo{Version: "v1.2.3", Go: "go1.25.0", Platform: "linux/amd64",
		Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-01-02T03:04:05Z", Modified: true})
	want := `robotsguard v1.2.3
go          go1.25.0 linux/amd64
revision    0123456789abcdef0123456789abcdef01234567 (2026-01-02T03:04:05Z, modified)
user-agent  robotsguard-cli/v1.2.3 (+https://github.com/robotsguard/robotsguard)
`
	if out.String() != want {
		t.Errorf("version output:\n%s\nwant:\n%s", out.String(), want)
	}
}
