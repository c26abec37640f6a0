module github.com/robotsguard/robotsguard/bench

go 1.25.0

replace github.com/robotsguard/robotsguard => ../

require (
	github.com/robotsguard/robotsguard v0.0.0
	github.com/temoto/robotstxt v1.1.2
)
