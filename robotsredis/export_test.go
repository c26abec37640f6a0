package robotsredis

// ReleasedChannel is the channel the tests watch for subscribers.
const ReleasedChannel = releasedChannel

// PaceKey and QueueKey are the keys of an origin's pace and of its queue
// of requests waiting for a place.
func PaceKey(origin string) string  { return paceKey(origin) }
func QueueKey(origin string) string { return queueKey(origin) }

// EncodeValue is what a Fleet stores in Redis for an entry.
func EncodeValue(entry []byte) []byte { return encodeValue(entry) }
