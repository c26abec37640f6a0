package robotsredis

// ReleasedChannel is the channel the tests watch for subscribers.
const ReleasedChannel = releasedChannel
