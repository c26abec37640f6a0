package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// modulePath is the module the command belongs to.
const modulePath = "github.com/robotsguard/robotsguard"

// cliToken is the product token of the User-Agent the command sends
// when no -agent names a crawler. It never changes, so that a site can
// name it in a robots.txt group.
const cliToken = "robotsguard-cli"

// agentURL is the page the User-Agent points a site owner to.
const agentURL = "https://github.com/robotsguard/robotsguard"

// buildInfo is what the binary knows of its build.
type buildInfo struct {
	Version  string // the module's version: "v1.2.3", a pseudo-version, or "(devel)"
	Go       string // "go1.25.0"
	Platform string // "linux/amd64"
	Revision string // the VCS revision, when the build recorded it
	Time     string // the revision's commit time, RFC 3339
	Modified bool   // the work tree had changes
}

// readBuildInfo reads the binary's build information, once.
var readBuildInfo = sync.OnceValue(func() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return infoOf(bi)
})

// infoOf extracts the command's build information from bi (nil when the
// binary has none): the version of the robotsguard module, whether it is
// the main module (go install …@v1.2.3, or a build in a checkout) or a
// dependency of another (a program that imports the command's module).
func infoOf(bi *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return b
	}
	if bi.GoVersion != "" {
		b.Go = bi.GoVersion
	}
	mod := &bi.Main
	if mod.Path != modulePath {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				mod = d
				break
			}
		}
	}
	if mod != nil {
		if mod.Replace != nil && mod.Replace.Version != "" {
			mod = mod.Replace
		}
		if mod.Version != "" {
			b.Version = mod.Version
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "GOOS":
			b.Platform = s.Value + b.Platform[strings.IndexByte(b.Platform, '/'):]
		case "GOARCH":
			b.Platform = b.Platform[:strings.IndexByte(b.Platform, '/')+1] + s.Value
		}
	}
	return b
}

// userAgent is the User-Agent the command sends when it fetches for no
// particular crawler: "robotsguard-cli/v1.2.3 (+https://…)".
func (b buildInfo) userAgent() string {
	return cliToken + "/" + productVersion(b.Version) + " (+" + agentURL + ")"
}

// productVersion makes v a product-version, which is an RFC 9110 token:
// "(devel)" becomes "devel", any other character not allowed in a token
// a '-'.
func productVersion(v string) string {
	v = strings.Trim(v, "()")
	if v == "" {
		return "devel"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return r
		}
		return '-'
	}, v)
}

// versionOutput is version's -json output.
type versionOutput struct {
	Version   string `json:"version"`
	Go        string `json:"go"`
	Platform  string `json:"platform"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	UserAgent string `json:"user_agent"`
}

func cmdVersion(e *env, args []string) (int, error) {
	fs := newFlags(e, "version")
	jsonOut := fs.Bool("json", false, "write JSON")
	if err := e.parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() != 0 {
		return 0, usagef("version takes no arguments")
	}
	b := readBuildInfo()
	if *jsonOut {
		return exitOK, writeJSON(e.stdout, versionOutput{Version: b.Version, Go: b.Go, Platform: b.Platform,
			Revision: b.Revision, Time: b.Time, Modified: b.Modified, UserAgent: b.userAgent()})
	}
	writeVersion(e, b)
	return exitOK, nil
}

// writeVersion writes b for a person:
//
//	robotsguard v1.2.3
//	go          go1.25.0 linux/amd64
//	revision    0123abcd… (2026-01-02T03:04:05Z, modified)
//	user-agent  robotsguard-cli/v1.2.3 (+https://github.com/robotsguard/robotsguard)
func writeVersion(e *env, b buildInfo) {
	fmt.Fprintf(e.stdout, "robotsguard %s\n", b.Version)
	pairs := []string{"go", b.Go + " " + b.Platform}
	if b.Revision != "" {
		rev := b.Revision
		var notes []string
		if b.Time != "" {
			notes = append(notes, b.Time)
		}
		if b.Modified {
			notes = append(notes, "modified")
		}
		if len(notes) > 0 {
			rev += " (" + strings.Join(notes, ", ") + ")"
		}
		pairs = append(pairs, "revision", rev)
	}
	kv(e.stdout, append(pairs, "user-agent", b.userAgent())...)
}
