module github.com/robotsguard/robotsguard/robotsredis

go 1.25.0

require (
	github.com/redis/go-redis/v9 v9.22.0
	github.com/robotsguard/robotsguard v1.0.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/pquerna/cachecontrol v0.2.0 // indirect
	go.uber.org/atomic v1.11.0 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

// The root module from this checkout, for development and CI (the
// unreleased root cannot be downloaded). Modules that require this one
// ignore replace directives: they get the root at the version this file
// requires, which scripts/release sets to the version of each release.
replace github.com/robotsguard/robotsguard => ../
