module github.com/robotsguard/robotsguard/robotsretry

go 1.25.0

// The root module from this checkout, for development and CI (the
// unreleased root cannot be downloaded). Modules that require this one
// ignore replace directives: they get the root at the version this file
// requires, which scripts/release sets to the version of each release.
replace github.com/robotsguard/robotsguard => ../

require (
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/robotsguard/robotsguard v1.0.0
)

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/pquerna/cachecontrol v0.2.0 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
